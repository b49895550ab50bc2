"""``import geval``: G-Eval's released results (``nlpyang/geval``, ``results/gpt4_{coh,con,flu,rel}_detailed.json``).

Each file is a JSON list of SummEval rows with the rendered ``prompt`` and ``all_responses``: the 20 answers
GPT-4 sampled for the item (temperature 2, at most 5 tokens). Every sample is parsed with the project's parser
(G-Eval's own script takes a leading number and counts an unparsable sample as 0; here an unparsable sample
is left out, never counted as a score), and the item's score is the mean of the parsed samples. The parse
fields report the samples (``"18/20 parsed"``), the transcript holds every sample as an Evaluator message.
The judged aspect is ``--aspect``, else the one aspect the prompt declares a scale for, else the file name
(``coh``/``con``/``flu``/``rel``); the scale is ``--scale``, else the prompt's (fluency asks 1-3), else the
aspect's own. Rows join the ``summeval`` dataset on ``doc_id/system_id``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.geval.method import sample_record_fields
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.analysis.imports.common import (
    ImportResult,
    base_record,
    items_by_id,
    parse_answer,
    read_json_rows,
    summeval_id,
    transcript_entry,
)
from debate_eval.tasks.analysis.imports.debate_authors import judged_aspect, judged_scale

FORMAT = "geval"
DATASET = "summeval"
PROTOCOL = "geval"
FILE_ASPECTS = {"coh": "coherence", "con": "consistency", "flu": "fluency", "rel": "relevance"}


def aspect_of(path: Path, rows: list[dict[str, Any]], given: str | None) -> str:
    """``--aspect``, else the prompt's, else the file name's (``gpt4_con_detailed.json`` is consistency)."""
    try:
        return judged_aspect(path, rows, given)
    except UserError:
        match = re.search(r"(?:^|_)(coh|con|flu|rel)(?:_|\.|$)", path.name)
        if given is None and match:
            return FILE_ASPECTS[match.group(1)]
        raise


def import_file(path: Path, options: dict[str, Any]) -> tuple[ImportResult, str, ScoreRange]:
    """One released file as records; returns them with the judged aspect and the scale."""
    rows = read_json_rows(path)
    if not rows:
        raise UserError(f"{path}: the file holds no rows")
    aspect = aspect_of(path, rows, options.get("aspect"))
    scale, scale_from = judged_scale(rows, aspect, options.get("scale"))
    items = items_by_id(DATASET, options.get("data_dir"))
    result = ImportResult(notes=[f"{path}: aspect {aspect}, scale {scale} from {scale_from}"])
    for number, row in enumerate(rows, start=1):
        where = f"{path}: row {number} (counted from 1)"
        item_id = summeval_id(row, where)
        samples = row.get("all_responses")
        if not isinstance(samples, list) or not all(isinstance(s, str) for s in samples):
            raise UserError(f"{where}: field 'all_responses' must be a list of answer texts")
        item = result.item(items, item_id)
        if item is None:
            continue
        parses = [parse_answer(sample, item, scale, aspect) for sample in samples]
        source = {"format": FORMAT, "file": str(path), "row": number}
        record = base_record(item, aspect, PROTOCOL, source)
        record.update(sample_record_fields([p.value if p.ok else None for p in parses], len(samples)))
        record.update(
            decided_by=EVALUATOR,
            stop_reason="samples",
            details={
                "method": "sample_mean",
                "samples": len(samples),
                "parsed_samples": sum(p.ok for p in parses),
                "sample_scores": [p.value if p.ok else None for p in parses],
                "scale": str(scale),
            },
            transcript=[
                transcript_entry(i, EVALUATOR, "evaluator", s, p)
                for i, (s, p) in enumerate(zip(samples, parses, strict=True))
            ],
        )
        result.records.append(record)
    return result, aspect, scale
