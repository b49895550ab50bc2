"""The label page (``debate-eval label RUN``): one self-contained HTML page where a person labels K items of a run.

The page is built like the report (``page.py``): its CSS and script are package assets inlined in the page, the
items travel as escaped JSON in a ``<script type="application/json">`` element, the script builds every
element with ``textContent`` only, and a Content-Security-Policy allows only the page's own script and style
(by hash) and no network. Each chosen item shows its judged texts, a rating control on the run's scale (a
verdict for a pairwise run) and the judge's answer and transcript collapsed. Progress is kept in the browser's
local storage under the page's id, and the page downloads ``labels.jsonl`` (:mod:`tasks.analysis.labels`
reads it).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.label_choice import DEFAULT_LABELS, STRATIFIED, Candidate, choose
from debate_eval.tasks.analysis.labels import run_scale
from debate_eval.tasks.analysis.report.gather import attach_inputs, load_run
from debate_eval.tasks.analysis.report.page import _csp, asset, safe_json
from debate_eval.tasks.analysis.report.plots import esc
from debate_eval.tasks.engine.record import Record

PAGE = "label_page.html"
TRANSCRIPT_CHARS = 20_000  # of one message on the page (a longer one is cut, saying so)


def _candidate(record: Record) -> Candidate:
    confidence = getattr(record, "confidence", None)  # the record's confidence in [0, 1], where it records one
    number = isinstance(confidence, int | float) and not isinstance(confidence, bool)
    return Candidate(
        key=record.key,
        system=record.system_id,
        score=float(record.score) if record.score is not None else None,
        verdict=record.verdict if record.pairwise else None,
        confidence=float(confidence) if number else None,
    )


def _texts(record: Record) -> list[list[str]]:
    inputs = record.inputs if isinstance(record.inputs, Mapping) else {}
    texts = [[str(name), str(value)] for name, value in inputs.items() if isinstance(value, str) and value.strip()]
    if texts:
        return texts
    first = next((message.content for message in record.transcript), "")  # no separate texts: the prompt
    return [["the judge's prompt (the judged texts were not found apart from it)", first]]


def _item(record: Record) -> dict[str, Any]:
    judged = record.verdict if record.pairwise else record.score
    messages = []
    for message in record.transcript:
        content = message.content
        if len(content) > TRANSCRIPT_CHARS:
            content = content[:TRANSCRIPT_CHARS] + f"\n[… cut at {TRANSCRIPT_CHARS:,} characters]"
        messages.append([message.agent or message.role or "?", content])
    return {
        "item_id": record.key,
        "aspect": str(record.aspect),
        "system": record.system_id,
        "pairwise": record.pairwise,
        "judged": "no score" if judged is None else (f"{judged:g}" if isinstance(judged, float) else str(judged)),
        "inputs": _texts(record),
        "transcript": messages,
    }


def label_page(
    run: str | Path,
    out: str | Path,
    n: int = DEFAULT_LABELS,
    how: str = STRATIFIED,
    seed: int = 0,
    data_dir: str | Path | None = None,
    title: str | None = None,
) -> tuple[Path, int]:
    """Write the label page of ``n`` items of ``run`` chosen by ``how`` (:mod:`tasks.analysis.label_choice`)
    to ``out``; returns the path and the number of items on it. Items with an error are never offered."""
    loaded = load_run(run)
    attach_inputs([loaded], data_dir)
    records = [record for record in loaded.iter_records() if record.ok]
    aspects = sorted({str(record.aspect) for record in records})
    if not records:
        raise UserError(f"{run}: no finished item to label")
    if len(aspects) > 1:
        raise UserError(f"{run}: judged for several aspects ({', '.join(aspects)}); a label page is for one")
    scale = None if any(record.pairwise for record in records) else run_scale(loaded.config, aspects[0])
    chosen = choose([_candidate(record) for record in records], n, how=how, seed=seed)
    items = [_item(records[index]) for index in chosen]
    identity = "\n".join([str(loaded.path.resolve()), aspects[0], *(item["item_id"] for item in items)])
    data = {
        "page_id": hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16],
        "scale": [_plain(scale[0]), _plain(scale[1])] if scale else None,
        "choice": how,
        "seed": seed,
        "items": items,
    }
    script = asset("label_page.js")
    style = asset("label_page.css")
    kind = "verdict" if scale is None and any(item["pairwise"] for item in items) else "rating"
    summary = (
        f"{len(items)} of the run's {len(records)} items ({aspects[0]}), chosen by {how} (seed {seed}); "
        f"give each a {kind}" + (f" on the run's scale {scale[0]:g}-{scale[1]:g}." if scale else ".")
    )
    body = {
        "csp": esc(_csp(script, style)),
        "title": esc(title or f"Label {loaded.path.name}"),
        "summary": esc(summary),
        "generated": esc(datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")),
        "style": style,
        "data": safe_json(data),
        "script": script,
    }
    html = re.sub(r"\{\{(\w+)\}\}", lambda match: body[match.group(1)], asset(PAGE))  # one pass
    target = Path(out)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(html, encoding="utf-8")
    return target, len(items)


def _plain(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value
