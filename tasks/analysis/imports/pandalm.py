"""``import pandalm``: PandaLM's released verdict files (``WeOpenML/PandaLM``, ``data/*-testset-v1.json``).

Each file is a JSON list of ``{idx, gpt_result, gpt_reason, gpt_reference, ...}`` (GPT-3.5's verdicts) or rows
with ``pandalm_result`` (PandaLM's own). ``gpt_result`` is a string: ``"1"`` (response 1 better: ``first``),
``"2"`` (``second``), ``"0"`` or ``"Tie"`` (``tie``); anything else (the GPT-3.5 file has ``"garbage"``) is no
verdict, counted in ``n_missing``. ``pandalm_result`` is an int with the same codes. The field is
``--answer-field``, else ``gpt_result`` when any row has it, else ``pandalm_result``. Rows join the ``pandalm``
dataset on ``idx``; the human label is the dataset's (majority of three annotators). The judge's reason and
reference answer are kept in the transcript and ``details``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict
from debate_eval.tasks.analysis.imports.common import (
    ImportResult,
    base_record,
    items_by_id,
    read_json_rows,
    transcript_entry,
    verdict_fields,
)
from debate_eval.tasks.data.rows import id_text

FORMAT = "pandalm"
#: ``rescore`` has no judge text to read again: the verdicts are the release's own decisions
REREADABLE = False
DATASET = "pandalm"
PROTOCOL = "geval"  # one judge call per pair, as G-Eval's pairwise form
ASPECT = "preference"
CODES = {"0": "tie", "1": "first", "2": "second", "tie": "tie"}
FIELDS = ("gpt_result", "pandalm_result")


def verdict_of(value: Any, field: str) -> ParsedVerdict:
    """The verdict a released code stands for; anything else is no verdict (never a default)."""
    if field == "pandalm_result":
        key = str(value) if isinstance(value, int) and not isinstance(value, bool) else None
    else:
        key = value.strip().lower() if isinstance(value, str) and value.strip() in ("0", "1", "2", "Tie") else None
    verdict = CODES.get(key) if key is not None else None
    if verdict is None:
        return no_verdict(f"No verdict: {field} is {value!r}, not one of 0, 1, 2, Tie.")
    return ParsedVerdict(verdict, "parsed", "pandalm_code", f"{field} {value!r} means {verdict}.")


def result_field(path: Path, rows: list[dict[str, Any]], given: str | None) -> str:
    """``given``, else ``gpt_result`` when any row has a value for it, else ``pandalm_result``."""
    if given:
        if given not in FIELDS:
            raise UserError(f"--answer-field {given!r}: PandaLM files hold {' or '.join(FIELDS)}")
        return given
    for field in FIELDS:
        if any(row.get(field) is not None for row in rows):
            return field
    raise UserError(f"{path}: no row has a gpt_result or pandalm_result; is this a PandaLM verdict file?")


def import_file(path: Path, options: dict[str, Any]) -> tuple[ImportResult, str, None]:
    """One released verdict file as pairwise records."""
    rows = read_json_rows(path)
    field = result_field(path, rows, options.get("answer_field"))
    items = items_by_id(DATASET, options.get("data_dir"))
    judge = "gpt-3.5-turbo (PandaLM's release)" if field == "gpt_result" else "PandaLM-7B (PandaLM's release)"
    result = ImportResult(notes=[f"{path}: verdicts from {field!r} ({judge})"])
    for number, row in enumerate(rows, start=1):
        idx = id_text(row.get("idx"))
        if idx is None:
            raise UserError(f"{path}: row {number} (counted from 1): field 'idx' is missing or not an id")
        item = result.item(items, idx)
        if item is None:
            continue
        parsed = verdict_of(row.get(field), field)
        reason = row.get("gpt_reason") if isinstance(row.get("gpt_reason"), str) else ""
        raw = {key: row[key] for key in ("gpt_result", "gpt_reason", "gpt_reference", "pandalm_result") if key in row}
        source = {"format": FORMAT, "file": str(path), "row": number, "answer_field": field}
        record = base_record(item, ASPECT, PROTOCOL, source)
        record.update(verdict_fields(parsed, item))
        content = f"{field}: {row.get(field)!r}" + (f"\n\n{reason}" if reason else "")
        record.update(
            decided_by=EVALUATOR,
            stop_reason="imported",
            details={"judge": judge, "raw": raw},
            transcript=[transcript_entry(0, EVALUATOR, "evaluator", content, parsed)],
        )
        result.records.append(record)
    return result, ASPECT, None
