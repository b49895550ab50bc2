"""``import jsonl``: any JSON-lines file with an item id and a judge's raw answer, joined to a named dataset.

``--dataset NAME`` (required) names the registered dataset whose item ids the file uses; ``--fields
id=COL,text=COL`` names the two columns (default ``id`` and ``text``). On a single-text dataset the answer
is parsed as a score on ``--scale`` (else the aspect's own scale) for ``--aspect`` (needed when the dataset
has several); on a pairwise dataset it is parsed as a verdict (aspect ``preference``). ``--method`` labels the
records (default ``geval``: one answer per item). Ids that match no item are listed, never dropped silently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.analysis.imports.common import (
    ImportResult,
    base_record,
    items_by_id,
    parse_answer,
    parse_pairwise_answer,
    read_text,
    score_fields,
    transcript_entry,
    verdict_fields,
)
from debate_eval.tasks.data.datasets import get_dataset

FORMAT = "jsonl"
DEFAULT_FIELDS = {"id": "id", "text": "text"}
PAIRWISE_ASPECT = "preference"


def parse_fields(text: str | None) -> dict[str, str]:
    """``"id=qid,text=answer"`` as ``{"id": "qid", "text": "answer"}`` (defaults for what is not given)."""
    fields = dict(DEFAULT_FIELDS)
    for part in (text or "").split(","):
        if not part.strip():
            continue
        key, sep, column = part.partition("=")
        if not sep or key.strip() not in DEFAULT_FIELDS or not column.strip():
            raise UserError(f"--fields {text!r}: write id=COLUMN,text=COLUMN")
        fields[key.strip()] = column.strip()
    return fields


def read_jsonl_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-empty line; a bad line is one ``UserError`` naming it."""
    rows = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            raise UserError(f"{path}: line {number} is not valid JSON") from None
        if not isinstance(row, dict):
            raise UserError(f"{path}: line {number} is not a JSON object")
        rows.append((number, row))
    return rows


def _aspect_and_scale(dataset: str, options: dict[str, Any]) -> tuple[str, ScoreRange | None, bool]:
    spec = get_dataset(dataset)
    if getattr(spec, "task_type", "single") == "pairwise":
        return options.get("aspect") or PAIRWISE_ASPECT, None, True
    aspects = list(spec.aspects)
    aspect = options.get("aspect") or (aspects[0] if len(aspects) == 1 else None)
    if aspect is None:
        raise UserError(f"dataset {dataset} has several aspects ({', '.join(aspects)}); give --aspect")
    if aspect not in spec.aspects:
        raise UserError(f"--aspect {aspect!r}: {dataset}'s aspects are {', '.join(aspects)}")
    scale = options.get("scale") or ScoreRange(*spec.aspects[aspect])
    return aspect, scale, False


def import_file(path: Path, options: dict[str, Any]) -> tuple[ImportResult, str, ScoreRange | None]:
    """One JSONL file as records joined to ``options["dataset"]``."""
    dataset = options.get("dataset")
    if not dataset:
        raise UserError("import jsonl needs --dataset NAME (the dataset whose item ids the file uses)")
    fields = parse_fields(options.get("fields"))
    aspect, scale, pairwise = _aspect_and_scale(dataset, options)
    protocol = options.get("method") or "geval"
    items = items_by_id(dataset, options.get("data_dir"))
    result = ImportResult(
        notes=[f"{path}: ids from {fields['id']!r}, answers from {fields['text']!r}, {dataset}/{aspect}"]
    )
    for number, row in read_jsonl_rows(path):
        where = f"{path}: line {number}"
        raw_id, text = row.get(fields["id"]), row.get(fields["text"])
        if raw_id is None or isinstance(raw_id, (bool, dict, list)):
            raise UserError(f"{where}: column {fields['id']!r} is missing or not an id (see --fields)")
        if not isinstance(text, str):
            raise UserError(f"{where}: column {fields['text']!r} is missing or not text (see --fields)")
        item = result.item(items, str(raw_id))
        if item is None:
            continue
        record = base_record(item, aspect, protocol, {"format": FORMAT, "file": str(path), "line": number})
        if pairwise:
            parsed: Any = parse_pairwise_answer(text, item)
            record.update(verdict_fields(parsed, item))
        else:
            parsed = parse_answer(text, item, scale, aspect)  # type: ignore[arg-type]
            record.update(score_fields(parsed), details={"scale": str(scale)})
        record.update(
            decided_by=EVALUATOR,
            stop_reason="imported",
            transcript=[transcript_entry(0, EVALUATOR, "evaluator", text, parsed)],
        )
        result.records.append(record)
    return result, aspect, scale
