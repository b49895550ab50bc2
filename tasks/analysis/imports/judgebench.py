"""JudgeBench (Tan et al. 2024): response pairs with an objective label, and a judge's released outputs.

**Pairs** (``data/dataset=judgebench,response_model=...jsonl``): one JSON object per line, as
:mod:`debate_eval.tasks.data.judgebench` describes (``pair_id``, ``source``, ``question``, ``response_A``,
``response_B``, ``label`` ``A>B`` or ``B>A``, ...).

**Outputs** (``outputs/...,judge_name=...,judge_model=...jsonl``): the same rows plus ``judge_name`` and
``judgments``, a list of one or two judgments: the pair as given, then with A and B swapped. Each is
``{judgment: {judge_model, prompt, response[, scores]}, decision}`` or null; ``decision`` is ``A>B``, ``B>A``,
``A=B``, null (or another string a judge's parser let through), in that judgment's own order. Reward models
give ``scores``: one number per response, in that judgment's order.

:func:`read_judgebench` returns one :class:`JudgeBenchPair` per output row with both decisions in the pair's
order (the second flipped back, as JudgeBench's ``flip_judgment`` does: only ``A>B`` and ``B>A`` change), the
reward scores of both orders in the pair's order (response A's first) and their margin. JudgeBench's metric
(``utils/metrics.py``): per pair, +1 for each decision equal to the label, −1 for each equal to the flipped
label (``A=B``, null and other strings count 0); the pair is right when the sum is > 0, and the score is the
percentage of pairs that are right. Every problem with a file is one :class:`UserError` line naming the file,
the row (counted from 1) and the field.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.kit.combine import combine_orders
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict
from debate_eval.tasks.analysis.imports.common import ImportResult, base_record, transcript_entry, verdict_fields
from debate_eval.tasks.analysis.imports.confidence import margin_confidence, orders_confidence, verdict_strength
from debate_eval.tasks.analysis.imports.jsonl import read_jsonl_rows
from debate_eval.tasks.data.judgebench import NAME as DATASET
from debate_eval.tasks.data.pairwise import ASPECT, pairwise_item
from debate_eval.tasks.data.rows import finite_number, id_text

FORMAT = "judgebench"
#: ``rescore`` has no judge text to read again: the verdicts are the release's own decisions
REREADABLE = False
PROTOCOL = "geval"  # one judge call per order, as G-Eval's pairwise form
ORDERS = ("original", "swapped")
LABELS = ("A>B", "B>A")
TIE_DECISION = "A=B"
#: A decision in the project's pairwise verdicts (``first``: response A better).
VERDICT_OF_DECISION = {"A>B": "first", "B>A": "second", TIE_DECISION: "tie"}


def flip_decision(decision: str | None) -> str | None:
    """A decision read in the other order: ``A>B`` and ``B>A`` swap; anything else stays (as JudgeBench)."""
    return {"A>B": "B>A", "B>A": "A>B"}.get(decision, decision) if isinstance(decision, str) else decision


@dataclass(frozen=True)
class JudgeBenchPair:
    """One pair as a judge's output file gives it, with its decisions put in the pair's order.

    ``decisions[0]`` is the judgment of the pair as given, ``decisions[1]`` the swapped judgment flipped back
    (absent when the file holds one judgment); ``scores[i]`` the reward scores of judgment ``i`` as
    ``(score of response A, score of response B)`` in the pair's order, None without scores; ``responses[i]``
    the raw text of judgment ``i`` (the judge's response, its scores, its decision). ``row`` is the output
    file's line (counted from 1).
    """

    pair_id: str
    source: str
    label: str
    decisions: tuple[str | None, ...]
    scores: tuple[tuple[float, float] | None, ...]
    judge_name: str | None
    judge_model: str | None
    row: int
    question: str = ""
    response_a: str = ""
    response_b: str = ""
    responses: tuple[str, ...] = ()

    @property
    def points(self) -> int:
        """JudgeBench's per-pair sum: +1 per decision equal to the label, −1 per decision equal to its flip."""
        flipped = flip_decision(self.label)
        return sum(1 if decision == self.label else -1 if decision == flipped else 0 for decision in self.decisions)

    @property
    def correct(self) -> bool:
        """JudgeBench's "right": the sum of points is > 0."""
        return self.points > 0

    @property
    def consistent(self) -> bool | None:
        """Whether both orders gave the same decision (after flipping back); None without two decisions."""
        if len(self.decisions) < 2 or self.decisions[0] is None or self.decisions[1] is None:
            return None
        return self.decisions[0] == self.decisions[1]

    @property
    def margins(self) -> tuple[float | None, ...]:
        """Per judgment, score of A minus score of B (None where the judgment has no scores)."""
        return tuple(None if pair is None else pair[0] - pair[1] for pair in self.scores)

    @property
    def margin(self) -> float | None:
        """The mean of :attr:`margins` over the judgments with scores (> 0: response A preferred)."""
        known = [m for m in self.margins if m is not None]
        return sum(known) / len(known) if known else None

    @property
    def verdicts(self) -> tuple[str | None, ...]:
        """The decisions as the project's verdicts (``first``/``second``/``tie``; None for null or others)."""
        return tuple(VERDICT_OF_DECISION.get(d) if isinstance(d, str) else None for d in self.decisions)

    @property
    def human_label(self) -> str:
        """The label as the project's pairwise label (``first``: response A is correct)."""
        return VERDICT_OF_DECISION[self.label]


def judgebench_score(pairs: Sequence[JudgeBenchPair]) -> float | None:
    """JudgeBench's figure: the percentage of pairs that are right (None for no pairs)."""
    return 100.0 * sum(pair.correct for pair in pairs) / len(pairs) if pairs else None


def _where(path: Path, number: int) -> str:
    return f"{path}: row {number} (counted from 1)"


def _text(path: Path, number: int, row: Mapping[str, Any], name: str, *, required: bool = True) -> str:
    value = row.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise UserError(f"{_where(path, number)}: field {name!r} is missing or not text")
    return value


def _pair_rows(path: Path) -> Iterator[tuple[int, dict[str, Any], str, str]]:
    """Each row of a JudgeBench pairs or outputs file: its line (from 1), the row, its ``pair_id`` (once in
    the file) and its label, both checked."""
    seen: set[str] = set()
    for number, row in read_jsonl_rows(path):
        pair_id = id_text(row.get("pair_id"))
        if pair_id is None:
            raise UserError(f"{_where(path, number)}: field 'pair_id' is missing or not an id")
        if pair_id in seen:
            raise UserError(f"{_where(path, number)}: pair_id {pair_id!r} appears twice")
        seen.add(pair_id)
        label = row.get("label")
        if label not in LABELS:
            raise UserError(f"{_where(path, number)}: field 'label' is {label!r}, expected A>B or B>A")
        yield number, row, pair_id, str(label)


def _scores(path: Path, number: int, index: int, judgment: Mapping[str, Any]) -> tuple[float, float] | None:
    value = judgment.get("scores")
    if value is None:
        return None
    ok = isinstance(value, list) and len(value) == 2 and all(finite_number(v) is not None for v in value)
    if not ok:
        raise UserError(
            f"{_where(path, number)}: field 'judgments[{index}].judgment.scores' is {str(value)[:60]!r}, "
            "expected two finite numbers (one per response)"
        )
    return float(value[0]), float(value[1])


def _response_text(judgment: Mapping[str, Any], decision: Any) -> str:
    """A judgment's raw text for the transcript: the judge's response, its reward scores and its decision."""
    response, scores = judgment.get("response"), judgment.get("scores")
    text = response if isinstance(response, str) and response.strip() else ""
    if scores is not None:
        text = (text + "\n" if text else "") + f"scores (this order's A, B): {scores}"
    return f"{text}\n\ndecision: {decision}" if text else f"decision: {decision}"


def _judgments(path: Path, number: int, row: Mapping[str, Any]) -> tuple[list, list, list[str], str | None]:
    """(decisions, scores and raw texts, each in the judgment's own order; judge model) of one output row."""
    judgments = row.get("judgments")
    if not isinstance(judgments, list) or not 1 <= len(judgments) <= 2:
        got = f"{len(judgments)} judgments" if isinstance(judgments, list) else type(judgments).__name__
        raise UserError(
            f"{_where(path, number)}: field 'judgments' must be a list of one or two judgments (the pair as "
            f"given, then swapped), got {got}"
        )
    decisions: list[str | None] = []
    scores: list[tuple[float, float] | None] = []
    texts: list[str] = []
    models = []
    for index, entry in enumerate(judgments):
        if entry is None:
            decisions.append(None)
            scores.append(None)
            texts.append(_response_text({}, None))
            continue
        if not isinstance(entry, dict):
            raise UserError(f"{_where(path, number)}: field 'judgments[{index}]' is not an object or null")
        decision = entry.get("decision")
        if decision is not None and not isinstance(decision, str):
            raise UserError(
                f"{_where(path, number)}: field 'judgments[{index}].decision' is {decision!r}, expected a string "
                "(A>B, B>A, A=B) or null"
            )
        decisions.append(decision.strip() if isinstance(decision, str) else None)
        inner = entry.get("judgment")
        if inner is not None and not isinstance(inner, dict):
            raise UserError(f"{_where(path, number)}: field 'judgments[{index}].judgment' is not an object")
        inner = inner or {}
        scores.append(_scores(path, number, index, inner))
        texts.append(_response_text(inner, decision))
        if isinstance(inner.get("judge_model"), str):
            models.append(inner["judge_model"])
    return decisions, scores, texts, (models[0] if models else None)


def read_judgebench_pairs(path: Path) -> dict[str, dict[str, Any]]:
    """The pairs file's rows by ``pair_id`` (each checked: ``pair_id``, ``source``, ``label``, ``question``,
    ``response_A``, ``response_B``); a repeated ``pair_id`` is an error."""
    pairs: dict[str, dict[str, Any]] = {}
    for number, row, pair_id, _ in _pair_rows(Path(path)):
        for name in ("source", "question"):
            _text(path, number, row, name)
        for name in ("response_A", "response_B"):
            _text(path, number, row, name, required=False)
        pairs[pair_id] = {**row, "row": number}
    if not pairs:
        raise UserError(f"{path}: no pairs (an empty file)")
    return pairs


def read_judgebench(outputs: Path, pairs: Path | None = None) -> list[JudgeBenchPair]:
    """A judge's JudgeBench output file as one :class:`JudgeBenchPair` per row, in the file's order.

    With ``pairs`` (the pairs file the judge was run on) every output row must name a pair of it with the same
    label, and the pair's texts come from there; without it they come from the output row (which repeats
    them). The second judgment's decision is flipped back and its scores put in the pair's order.
    """
    outputs = Path(outputs)
    known = read_judgebench_pairs(Path(pairs)) if pairs is not None else None
    result: list[JudgeBenchPair] = []
    for number, row, pair_id, label in _pair_rows(outputs):
        base: Mapping[str, Any] = row
        if known is not None:
            if pair_id not in known:
                raise UserError(f"{_where(outputs, number)}: pair_id {pair_id!r} is not in the pairs file {pairs}")
            base = known[pair_id]
            if base["label"] != label:
                raise UserError(
                    f"{_where(outputs, number)}: label {label} differs from the pairs file's {base['label']} "
                    f"(row {base['row']} of {pairs})"
                )
        decisions, scores, texts, model = _judgments(outputs, number, row)
        if len(decisions) == 2:
            decisions[1] = flip_decision(decisions[1])
            scores[1] = None if scores[1] is None else (scores[1][1], scores[1][0])
        judge_name = row.get("judge_name")
        result.append(
            JudgeBenchPair(
                pair_id=pair_id,
                source=_text(outputs, number, base, "source") if known is None else str(base["source"]),
                label=label,
                decisions=tuple(decisions),
                scores=tuple(scores),
                judge_name=judge_name if isinstance(judge_name, str) else None,
                judge_model=model,
                row=number,
                question=str(base.get("question") or ""),
                response_a=str(base.get("response_A") or ""),
                response_b=str(base.get("response_B") or ""),
                responses=tuple(texts),
            )
        )
    if not result:
        raise UserError(f"{outputs}: no judged pairs (an empty file)")
    return result


# --------------------------------------------------------------------------------------------------
# ``debate-eval import judgebench PAIRS OUTPUTS --out DIR``


def _parsed(decision: str | None, order: str) -> ParsedVerdict:
    verdict = VERDICT_OF_DECISION.get(decision) if isinstance(decision, str) else None
    if verdict is None:
        return no_verdict(f"No verdict: the {order} order's decision is {decision!r}.")
    return ParsedVerdict(verdict, "parsed", "judgebench_decision", f"{order} order: {decision} means {verdict}.")


def pair_record(pair: JudgeBenchPair, source_file: Path) -> dict[str, Any]:
    """The run record of one judged pair: the verdict of both orders as a ``--swap`` run combines them (the
    agreeing verdict, a tie when they disagree), ``verdicts`` and ``consistent``, and in ``details.judgebench``
    the raw decisions (in the pair's order), JudgeBench's points, the reward scores and their margin; its
    ``confidence`` from the margin or the orders (``imports.confidence``)."""
    item = pairwise_item(
        item_id=pair.pair_id,
        dataset=DATASET,
        system_id=pair.source,
        question=pair.question,
        input_text="",
        output_a=pair.response_a,
        output_b=pair.response_b,
        label=pair.human_label,
        row_index=pair.row - 1,
    )
    parsed = [_parsed(decision, order) for decision, order in zip(pair.decisions, ORDERS, strict=False)]
    fields: dict[str, Any] = {}
    if len(parsed) == 2:
        combined, consistent = combine_orders(parsed[0], parsed[1])
        fields = {"verdicts": dict(zip(ORDERS, pair.verdicts, strict=True)), "consistent": consistent}
    else:
        combined = parsed[0]
    source = {"format": FORMAT, "file": str(source_file), "row": pair.row}
    confidence = _confidence(pair, fields.get("consistent"))
    record = base_record(item, ASPECT, PROTOCOL, source)
    record.update(verdict_fields(combined, item))
    record.update(fields)
    record.update(
        decided_by=EVALUATOR,
        stop_reason="imported",
        details={
            "judge": pair.judge_model or pair.judge_name or "unknown judge",
            "judge_name": pair.judge_name,
            "judgebench": {
                "label": pair.label,
                "decisions": list(pair.decisions),
                "points": pair.points,
                "correct": pair.correct,
                "scores": [list(s) if s is not None else None for s in pair.scores],
                "margin": pair.margin,
            },
            **({"confidence_basis": confidence[1]} if confidence else {}),
        },
        **({"confidence": round(confidence[0], 6)} if confidence else {}),
        transcript=[
            {**transcript_entry(index, EVALUATOR, "evaluator", text), "order": order}
            for index, (text, order) in enumerate(zip(pair.responses, ORDERS, strict=False))
        ],
    )
    return record


def _confidence(pair: JudgeBenchPair, consistent: bool | None) -> tuple[float, str] | None:
    """How sure the released judge was (``imports.confidence``): a reward model's margin, else the two orders'
    agreement and verdict strength."""
    if pair.margin is not None:
        if consistent is False:
            return 0.0, "the two orders disagree"
        value = margin_confidence(pair.margin)
        return value, f"reward margin {pair.margin:+.3g}: sigmoid(|margin|) = {value:.3f}"
    if len(pair.decisions) < 2:
        return None
    return orders_confidence(consistent, [verdict_strength(text) for text in pair.responses])


def import_files(paths: Sequence[Path], options: Mapping[str, Any]) -> tuple[ImportResult, str, None]:
    """``PAIRS OUTPUTS`` (or ``OUTPUTS`` alone: its rows repeat the pairs) as one pairwise run."""
    if len(paths) not in (1, 2):
        raise UserError(
            f"import judgebench takes PAIRS OUTPUTS (or one OUTPUTS file), got {len(paths)} files; "
            "import each judge into its own --out"
        )
    pairs_file, outputs = (paths[0], paths[1]) if len(paths) == 2 else (None, paths[0])
    pairs = read_judgebench(outputs, pairs_file)
    judges = sorted({pair.judge_model or pair.judge_name or "unknown judge" for pair in pairs})
    score = judgebench_score(pairs)
    result = ImportResult(
        notes=[
            f"{outputs}: {len(pairs)} pairs judged by {', '.join(judges)}; JudgeBench's score "
            f"{score:.2f} % ({sum(p.correct for p in pairs)} of {len(pairs)} pairs right)"
        ]
    )
    result.records = [pair_record(pair, outputs) for pair in pairs]
    return result, ASPECT, None
