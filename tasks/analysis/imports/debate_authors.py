"""``import debate-authors``: the DEBATE authors' released results (``sangwongenip/geval``, branch ``tiebreaker``,
``results/gpt4_*_detailed_openai_sangwon.json``).

Each file is a JSON list of SummEval rows (``doc_id``, ``system_id``, ``source``, ``reference``,
``system_output``, ``scores``, the rendered ``prompt``) plus one field with the judge's raw answer. That
field is named after an aspect, and not always the aspect judged (their consistency and fluency files keep
it under ``coherence``), so the judged aspect is ``--aspect`` (else the one aspect the prompt declares a
scale for) and the answer field is ``--answer-field`` (else the one string field outside that list). The
scale is ``--scale``, else the prompt's ``Aspect (lo-hi)`` line (their fluency prompt asks 1-3), else the
aspect's own. Rows join the ``summeval`` dataset on ``doc_id/system_id``; a few of the 320 rows may be
missing from a file, which is fine. The human score is the dataset's, the answer is parsed with the
project's parser, and the raw answer is the Scorer's message in the transcript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import SCORER
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.analysis.imports.common import (
    ImportResult,
    base_record,
    items_by_id,
    parse_answer,
    read_json_rows,
    score_fields,
    summeval_id,
    transcript_entry,
)
from debate_eval.tasks.data.datasets import get_dataset
from debate_eval.tasks.data.templates import infer_scale

FORMAT = "debate-authors"
DATASET = "summeval"
PROTOCOL = "debate"
ROW_FIELDS = ("doc_id", "system_id", "source", "reference", "system_output", "scores", "prompt")


def answer_field(path: Path, rows: list[dict[str, Any]], given: str | None) -> str:
    """``given``, else the one string field outside :data:`ROW_FIELDS` (checked on every row)."""
    if given:
        if not any(isinstance(row.get(given), str) for row in rows):
            raise UserError(f"{path}: no row has a text field {given!r} (--answer-field)")
        return given
    candidates = sorted({k for row in rows for k, v in row.items() if k not in ROW_FIELDS and isinstance(v, str)})
    if len(candidates) != 1:
        found = ", ".join(candidates) or "none"
        raise UserError(
            f"{path}: cannot tell the answer field (string fields outside the row: {found}); give --answer-field"
        )
    return candidates[0]


def judged_aspect(path: Path, rows: list[dict[str, Any]], given: str | None) -> str:
    """``given``, else the one SummEval aspect the first row's prompt declares a scale for."""
    aspects = list(get_dataset(DATASET).aspects)
    if given:
        if given not in aspects:
            raise UserError(f"--aspect {given!r}: SummEval's aspects are {', '.join(aspects)}")
        return given
    prompt = str(rows[0].get("prompt") or "") if rows else ""
    declared = [aspect for aspect in aspects if infer_scale(prompt, aspect) is not None]
    if len(declared) != 1:
        raise UserError(f"{path}: cannot tell the judged aspect from the prompt; give --aspect")
    return declared[0]


def judged_scale(rows: list[dict[str, Any]], aspect: str, given: ScoreRange | None) -> tuple[ScoreRange, str]:
    """The scale answers are parsed on, and where it came from."""
    if given is not None:
        return given, "--scale"
    for row in rows:
        scale = infer_scale(str(row.get("prompt") or ""), aspect)
        if scale is not None:
            return scale, "the prompt"
    low, high = get_dataset(DATASET).aspects[aspect]
    return ScoreRange(low, high), f"{aspect}'s own scale"


def import_file(path: Path, options: dict[str, Any]) -> tuple[ImportResult, str, ScoreRange]:
    """One released file as records; returns them with the judged aspect and the scale."""
    rows = read_json_rows(path)
    if not rows:
        raise UserError(f"{path}: the file holds no rows")
    field = answer_field(path, rows, options.get("answer_field"))
    aspect = judged_aspect(path, rows, options.get("aspect"))
    scale, scale_from = judged_scale(rows, aspect, options.get("scale"))
    items = items_by_id(DATASET, options.get("data_dir"))
    result = ImportResult(notes=[f"{path}: aspect {aspect}, answer field {field!r}, scale {scale} from {scale_from}"])
    for number, row in enumerate(rows, start=1):
        item_id = summeval_id(row, f"{path}: row {number} (counted from 1)")
        item = result.item(items, item_id)
        if item is None:
            continue
        answer = row.get(field)
        source = {"format": FORMAT, "file": str(path), "row": number, "answer_field": field}
        record = base_record(item, aspect, PROTOCOL, source)
        if not isinstance(answer, str):
            parsed_fields = {"score": None, "parse_status": "no_score", "parse_method": "none"}
            record.update(parsed_fields, parse_reason=f"No answer: field {field!r} is missing or not text.")
            record.update(decided_by=SCORER, stop_reason="imported", transcript=[], details={"scale": str(scale)})
            result.records.append(record)
            continue
        parsed = parse_answer(answer, item, scale, aspect)
        record.update(score_fields(parsed), decided_by=SCORER, stop_reason="imported", details={"scale": str(scale)})
        record.update(transcript=[transcript_entry(0, SCORER, "scorer", answer, parsed)])
        result.records.append(record)
    return result, aspect, scale
