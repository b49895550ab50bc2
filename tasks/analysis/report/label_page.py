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
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.label_choice import DEFAULT_LABELS, STRATIFIED, Candidate, choose
from debate_eval.tasks.analysis.labels import run_scale
from debate_eval.tasks.analysis.report.gather import attach_inputs, load_run
from debate_eval.tasks.analysis.report.page import _csp, asset, fill, generated_at, holds_mark, safe_json, write_page
from debate_eval.tasks.analysis.report.plots import esc
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.rundir import refuse_foreign_file, refuse_run_file

PAGE = "label_page.html"
# in the header of every label page: an existing --out is replaced only when it holds this
MARK = "by <code>debate-eval label</code>"
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


@dataclass(frozen=True)
class LabelPage:
    """A written label page: where it is, and the ids of the items on it (in the page's order)."""

    path: Path
    item_ids: tuple[str, ...]
    choice: str


def label_page(
    run: str | Path,
    out: str | Path,
    n: int = DEFAULT_LABELS,
    how: str = STRATIFIED,
    seed: int = 0,
    data_dir: str | Path | None = None,
    title: str | None = None,
) -> LabelPage:
    """Write the label page of ``n`` items of ``run`` chosen by ``how`` (:mod:`tasks.analysis.label_choice`)
    to ``out``; returns the page (its path and item ids). Items with an error are never offered."""
    refuse_run_file(out)
    refuse_foreign_file(Path(out), "a label page written by debate-eval label", holds_mark(MARK))
    loaded = load_run(run)
    attach_inputs([loaded], data_dir)
    candidates: list[Candidate] = []
    aspects: set[str] = set()
    pairwise = False
    for record in loaded.iter_records():  # one record at a time: a large run never stands in memory
        if record.ok:
            candidates.append(_candidate(record))
            aspects.add(str(record.aspect))
            pairwise = pairwise or record.pairwise
    if not candidates:
        raise UserError(f"{run}: no finished item to label")
    if len(aspects) > 1:
        raise UserError(f"{run}: judged for several aspects ({', '.join(sorted(aspects))}); a label page is for one")
    aspect = next(iter(aspects))
    scale = None if pairwise else run_scale(loaded.config, aspect)
    by_id = sorted(range(len(candidates)), key=lambda index: candidates[index].key)  # not the finishing order
    chosen = sorted(by_id[index] for index in choose([candidates[i] for i in by_id], n, how=how, seed=seed))
    wanted = {index: rank for rank, index in enumerate(chosen)}
    items: list[dict[str, Any]] = [{}] * len(chosen)
    finished = (record for record in loaded.iter_records() if record.ok)
    for index, record in enumerate(finished):  # the same order: only the chosen records are kept, as items
        if index in wanted:
            items[wanted[index]] = _item(record)
    identity = "\n".join([str(loaded.path.resolve()), aspect, *(item["item_id"] for item in items)])
    data = {
        "page_id": hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16],
        "scale": [_plain(scale[0]), _plain(scale[1])] if scale else None,
        "choice": how,
        "seed": seed,
        "items": items,
    }
    script = asset("label_page.js")
    style = asset("label_page.css")
    kind = "verdict" if pairwise else "rating"
    summary = (
        f"{len(items)} of the run's {len(candidates)} items ({aspect}), chosen by {how} (seed {seed}); "
        f"give each a {kind}" + (f" on the run's scale {scale[0]:g}-{scale[1]:g}." if scale else ".")
    )
    body = {
        "csp": esc(_csp(script, style)),
        "title": esc(title or f"Label {loaded.path.name}"),
        "summary": esc(summary),
        "generated": esc(generated_at()),
        "style": style,
        "data": safe_json(data),
        "script": script,
    }
    target = write_page(Path(out), fill(PAGE, body))
    return LabelPage(target, tuple(item["item_id"] for item in items), how)


def _plain(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value
