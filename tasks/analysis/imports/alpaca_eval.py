"""``import alpaca-eval``: AlpacaEval's released per-instruction annotations (``results/<model>/<annotator>/
annotations.json`` in ``tatsu-lab/alpaca_eval``), one system per file, into one pairwise run.

Each file is a JSON list of rows with ``instruction``, ``output_1`` (the baseline's output, ``generator_1``),
``output_2`` (the model's, ``generator_2``) and ``preference``: the judge's preference in [1, 2] (a number or a
string holding one; 2 = the model's output preferred, 1.5 or 0 a draw, null or anything outside [1, 2] no
preference). A record per row: ``output_a`` the baseline's output, ``output_b`` the model's (``system_a`` /
``system_b`` the generators), ``score`` the preference as AlpacaEval writes it (0 read as 1.5), ``verdict``
``second`` above 1.5, ``first`` below, ``tie`` at 1.5, and no human label (AlpacaEval's figures are the
judge's win rates: :mod:`debate_eval.tasks.analysis.win_rates`). The instruction is the group: the systems are
compared on the instructions they share. Every problem is one ``UserError`` line naming the file, the row
(counted from 1) and the field.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.scoring.verdicts import FIRST, SECOND, TIE, ParsedVerdict, no_verdict
from debate_eval.tasks.analysis.imports.common import ImportResult, no_call_fields, read_json_rows, transcript_entry
from debate_eval.tasks.analysis.imports.confidence import preference_confidence
from debate_eval.tasks.data.pairwise import ASPECT
from debate_eval.tasks.data.rows import finite_number

FORMAT = "alpaca-eval"
#: ``rescore`` has no judge text to read again: the verdicts are the release's own decisions
REREADABLE = False
DATASET = "alpaca_eval"
PROTOCOL = "geval"  # one judge call per pair
DRAW = 1.5


def read_preference(value: Any) -> float | None:
    """AlpacaEval's preference as a number in [1, 2] (0 is a draw: 1.5), None when there is none."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    value = finite_number(value)
    if value is None:
        return None
    if value == 0.0:
        return DRAW
    return value if 1.0 <= value <= 2.0 else None


def verdict_of(preference: float | None) -> ParsedVerdict:
    """The verdict a preference stands for (``second``: the model's output preferred)."""
    if preference is None:
        return no_verdict("No verdict: no preference in [1, 2].")
    value = SECOND if preference > DRAW else FIRST if preference < DRAW else TIE
    return ParsedVerdict(value, "parsed", "alpaca_eval_preference", f"preference {preference} means {value}.")


def _text(path: Path, number: int, row: Mapping[str, Any], name: str) -> str:
    value = row.get(name)
    if not isinstance(value, str):
        raise UserError(f"{path}: row {number} (counted from 1): field {name!r} is missing or not text")
    return value


def import_file(path: Path, options: dict[str, Any]) -> tuple[ImportResult, str, None]:
    """One system's annotations as pairwise records against its baseline."""
    rows = read_json_rows(path)
    if not rows:
        raise UserError(f"{path}: no rows (an empty list)")
    systems = {_text(path, n, row, "generator_2") for n, row in enumerate(rows, start=1)}
    baselines = {_text(path, n, row, "generator_1") for n, row in enumerate(rows, start=1)}
    if len(systems) != 1 or len(baselines) != 1:
        raise UserError(
            f"{path}: one system against one baseline per file (generator_2: {', '.join(sorted(systems))}; "
            f"generator_1: {', '.join(sorted(baselines))})"
        )
    system, baseline = systems.pop(), baselines.pop()
    result = ImportResult()
    seen: dict[str, int] = {}
    missing: list[int] = []  # rows (counted from 1) without a preference in [1, 2]
    for number, row in enumerate(rows, start=1):
        instruction = _text(path, number, row, "instruction")
        group = hashlib.sha1(instruction.encode("utf-8")).hexdigest()[:12]  # the instruction's short stable id
        if group in seen:
            raise UserError(
                f"{path}: row {number} (counted from 1): field 'instruction' repeats row {seen[group]}'s instruction"
            )
        seen[group] = number
        if "preference" not in row:
            raise UserError(f"{path}: row {number} (counted from 1): field 'preference' is missing")
        preference = read_preference(row["preference"])
        if preference is None:
            missing.append(number)
        parsed = verdict_of(preference)
        output_a, output_b = _text(path, number, row, "output_1"), _text(path, number, row, "output_2")
        record: dict[str, Any] = {
            "item_id": f"{system}/{group}",
            "dataset": DATASET,
            "aspect": ASPECT,
            "method": PROTOCOL,
            "group_id": group,
            "system_id": system,
            "system_a": baseline,
            "system_b": system,
            "task_type": "pairwise",
            "human_label": None,
            "imported": {"format": FORMAT, "file": str(path), "row": number},
            **no_call_fields(),
            "score": preference,
            "verdict": parsed.value if parsed.ok else None,
            "parse_status": parsed.status,
            "parse_method": parsed.method,
            "parse_reason": parsed.reason,
            "verdict_parse": parsed.to_dict(),
            "inputs": {"question": instruction, "input": "", "output_a": output_a, "output_b": output_b},
            "decided_by": EVALUATOR,
            "stop_reason": "imported",
            "details": {
                "judge": str(row.get("annotator") or "unknown annotator"),
                "preference": row["preference"],
                **({"confidence_basis": "0.5 + |preference - 1.5|"} if preference is not None else {}),
            },
            **({"confidence": round(preference_confidence(preference), 6)} if preference is not None else {}),
            "transcript": [transcript_entry(0, EVALUATOR, "evaluator", f"preference: {row['preference']!r}")],
        }
        result.records.append(record)
    note = f"{path}: {system} against {baseline}, {len(rows)} instructions"
    if missing:
        shown = ", ".join(map(str, missing[:10])) + (" ..." if len(missing) > 10 else "")
        note += (
            f"; {len(missing)} without a preference in [1, 2] (left out of the win rate; rows counted from 1: {shown})"
        )
    result.notes.append(note)
    return result, ASPECT, None


def import_files(paths: Sequence[Path], options: Mapping[str, Any]) -> tuple[ImportResult, str, None]:
    """Several systems' files into one run: every file must name the same baseline and a different system."""
    result = ImportResult()
    systems: dict[str, Path] = {}
    baselines: set[str] = set()
    for path in paths:
        part, _, _ = import_file(Path(path), dict(options))
        first = part.records[0]
        if first["system_b"] in systems:
            raise UserError(f"{path}: system {first['system_b']} is also in {systems[first['system_b']]}")
        systems[first["system_b"]] = Path(path)
        baselines.add(first["system_a"])
        result.extend(part)
    if len(baselines) > 1:
        raise UserError(f"the files compare against different baselines ({', '.join(sorted(baselines))})")
    return result, ASPECT, None
