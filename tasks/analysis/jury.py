"""A jury: several judges (models, maybe from different providers) on the same items, their answers combined.

Each juror is a finished run of the same items (``debate-eval run --model ... --provider ...``, or an imported
file of released judgments). Per item the jurors' answers are combined as self-consistency combines its samples
(``debates.kit.combine``): scores by ``mean`` or ``majority``, verdicts by ``majority`` or ``mean`` preference;
a juror without an answer does not vote. A **split** jury (``majority`` with no single most common answer) is
left unscored by default (``split="unscored"``: no score or verdict, listed, as inspect_ai's majority panel
leaves a sample unscored), or given the combination's own rule (``split="combine"``: a tie for verdicts, the
mean of the tied scores). The jury's ``confidence`` is the jurors' agreement (the share that gave the most common
answer), so ``debate-eval cascade JURY STRONGER`` sends the split and narrow verdicts to a stronger judge or a
person.

The jury is written as a run directory (``results.jsonl`` and ``config.json``) that ``show``, ``meta-eval``,
``report`` and ``cascade`` read: each record keeps the jurors' answers in ``details.jurors`` and their token
usage per juror, so the jury's cost is the sum of its jurors'.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import stable_hash
from debate_eval.debates.kit.combine import COMBINES, MAJORITY, combine_scores, combine_verdicts
from debate_eval.debates.kit.confidence import BASIS_KEY, agreement, score_key
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict
from debate_eval.tasks.analysis.records import latest_records
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.results import ResultsWriteError
from debate_eval.tasks.engine.rundir import RunDir

METHOD = "jury"
UNSCORED, COMBINE = "unscored", "combine"
SPLITS = (UNSCORED, COMBINE)
JUROR_ROLE = "juror"


@dataclass(frozen=True)
class JuryResult:
    """What ``write_jury`` wrote: the items, how many juries split (left unscored with ``split="unscored"``),
    the items some juror did not judge (left out)."""

    out: Path
    items: int
    split: int
    unscored: tuple[str, ...]
    left_out: int
    jurors: tuple[str, ...]


def split_vote(votes: Sequence[Any]) -> bool:
    """Whether a majority of ``votes`` is split: two answers or more given equally often, most often."""
    counts = Counter(vote for vote in votes if vote is not None).most_common()
    return len(counts) > 1 and counts[0][1] == counts[1][1]


def jury_record(item: Record, jurors: dict[str, Record], combine: str, split: str) -> dict[str, Any]:
    """The jury's record of one item (``item``: the first juror's record, for the item's own fields)."""
    pairwise = item.pairwise
    answers = {name: (r.verdict if pairwise else r.score) if r.ok else None for name, r in jurors.items()}
    votes = [answers[name] if pairwise else score_key(answers[name]) for name in jurors]
    is_split = combine == MAJORITY and split_vote(votes)
    parsed: ParsedScore | ParsedVerdict
    if pairwise:
        parses = [ParsedVerdict(v, "parsed", "juror", "") if v else no_verdict("") for v in answers.values()]
        parsed = combine_verdicts(parses, combine)
        if is_split and split == UNSCORED:
            parsed = no_verdict(f"No verdict: a split jury ({_listed(answers)}).")
    else:
        parses = [
            ParsedScore(v, "parsed", "juror", "") if v is not None else ParsedScore(None, "no_score", "juror", "")
            for v in answers.values()
        ]
        parsed = combine_scores(parses, combine)
        if is_split and split == UNSCORED:
            parsed = ParsedScore(None, "no_score", f"sample_{combine}", f"No score: a split jury ({_listed(answers)}).")
    confidence = agreement(votes, "jurors")
    line: dict[str, Any] = {
        "item_id": item.item_id,
        "dataset": item.dataset,
        "aspect": item.aspect,
        "method": METHOD,
        "group_id": item.group_id,
        "system_id": item.system_id,
        "human_score": item.human_score,
        "score": None if pairwise else parsed.value,
        "parse_status": parsed.status,
        "parse_method": parsed.method.replace("sample_", "jury_"),
        "parse_reason": parsed.reason.replace("samples", "jurors").replace("sample", "juror"),
        "error": None,
        "agreed": None,
        "rounds": 0,
        "stop_reason": "jury_split" if is_split else "jury",
        "decided_by": "jurors",
        "details": {
            "combine": combine,
            "split": is_split,
            "jurors": {name: {"answer": answers[name], "method": r.method} for name, r in jurors.items()},
            **({BASIS_KEY: confidence.basis} if confidence else {}),
        },
        "usage": {
            f"{JUROR_ROLE}:{name}:{role}": u for name, r in jurors.items() for role, u in (r.usage or {}).items()
        },
        "llm_calls": sum(r.llm_calls for r in jurors.values()),
        "cached_calls": sum(r.cached_calls for r in jurors.values()),
        "transcript": [
            {"index": index, "agent": name, "role": JUROR_ROLE, "content": f"{name}: {answers[name]!r} ({r.method})"}
            for index, (name, r) in enumerate(jurors.items())
        ],
    }
    if confidence is not None and (parsed.value is not None):
        line["confidence"] = round(confidence.value, 6)
    if pairwise:
        line.update(
            task_type="pairwise",
            human_label=item.human_label,
            verdict=parsed.value,
            inputs=dict(item.inputs or {}),
            verdict_parse=parsed.to_dict(),
            system_a=item.system_a,
            system_b=item.system_b,
        )
    return {key: value for key, value in line.items() if value is not None or key in ("score", "error")}


def _listed(answers: dict[str, Any]) -> str:
    return ", ".join(f"{name} {value if value is not None else '-'}" for name, value in answers.items())


def write_jury(
    runs: Sequence[str | Path], out: str | Path, *, combine: str = MAJORITY, split: str = UNSCORED
) -> JuryResult:
    """Combine the jurors' ``runs`` (run directories of the same items) into the jury's run directory ``out``."""
    if combine not in COMBINES:
        raise UserError(f"--combine {combine}: choose one of {', '.join(COMBINES)}")
    if split not in SPLITS:
        raise UserError(f"--split {split}: choose one of {', '.join(SPLITS)}")
    if len(runs) < 2:
        raise UserError("a jury needs two runs or more (one per juror)")
    if RunDir(Path(out)).results_path.is_file() and RunDir(Path(out)).results_path.stat().st_size > 0:
        raise UserError(f"{out} already holds results; write the jury into a new --out directory")
    names = [Path(run).name if Path(run).is_dir() else Path(run).parent.name for run in runs]
    if len(set(names)) < len(names):
        raise UserError("two jurors' runs have the same name; give run directories with different names")
    loaded = [latest_records(run) for run in runs]
    kinds = {record.pairwise for part in loaded for record in part.values()}
    if len(kinds) > 1:
        raise UserError("the jurors' runs mix pairwise and single-score judgments; give runs of the same items")
    keys = [key for key in loaded[0] if all(key in part for part in loaded[1:])]
    if not keys:
        raise UserError(f"the jurors' runs {', '.join(names)} share no item: give runs of the same items")
    every = set().union(*(set(part) for part in loaded))
    records = [
        jury_record(loaded[0][key], {name: part[key] for name, part in zip(names, loaded, strict=True)}, combine, split)
        for key in keys
    ]
    settings = {"jurors": [str(run) for run in runs], "combine": combine, "split": split}
    config_hash = stable_hash(settings)[:16]
    target = Path(out)
    try:
        target.mkdir(parents=True, exist_ok=True)
        with RunDir(target).results_path.open("w", encoding="utf-8") as handle:
            for record in records:  # each line as the engine writes a record (checked, keys in its order)
                line = Record.from_json({**record, "config_hash": config_hash}).to_json()
                handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise ResultsWriteError(f"{target}: cannot write the jury ({exc.strerror})") from None
    first = loaded[0][keys[0]]
    result_config = {"protocol": METHOD, "dataset": first.dataset, "aspect": first.aspect, **settings}
    RunDir(target).write_config({"config_hash": config_hash, "result_config": result_config}, seal=False)
    unscored = tuple(str(r["item_id"]) for r in records if r.get("stop_reason") == "jury_split" and split == UNSCORED)
    return JuryResult(
        out=target,
        items=len(records),
        split=sum(r.get("stop_reason") == "jury_split" for r in records),
        unscored=unscored,
        left_out=len(every) - len(keys),
        jurors=tuple(names),
    )
