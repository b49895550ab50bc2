"""Assemble the self-contained page: inline CSS and JS (package data files), server-rendered sections, and
the items with their transcripts as JSON that the script turns into the table and the conversations.

Safety: every run-derived string in HTML is escaped; the embedded JSON escapes ``<``, ``>``, ``&`` and the
JavaScript line separators, and the records travel as base64 of gzipped JSON, so no text (``</script>``
included) can end its script element; the script
builds the table and transcripts with ``textContent`` only; and a Content-Security-Policy allows only this
page's own script and style (by hash), no network and no other script, as a second line of defence.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any

from debate_eval.agents.redaction import environment_snapshot
from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD
from debate_eval.tasks.analysis.report import run_card, sections
from debate_eval.tasks.analysis.report.gather import Item, Run, compare_key, is_pairwise, item_key
from debate_eval.tasks.analysis.report.plots import esc, run_colour

ASSETS = "assets"
SAMPLE_ITEMS = 2000  # records a page embeds; a larger run embeds a sample, the full table goes in a sidecar
SIDECAR_SUFFIX = ".items.json.gz"  # beside the page: every row and record, gzipped JSON the page can load
# in the header of every report page (page.html): an existing --out is replaced only when it holds this
MARK = "by <code>debate-eval report</code>"
# The page's script, in this order, joined inside one function (they share its variables).
SCRIPTS = (
    "report_base.js",
    "report_table.js",
    "report_shapes.js",
    "report_viewer.js",
    "report_audit.js",
    "report_compare.js",
)


def asset(name: str) -> str:
    """The text of a packaged asset (``report.css``, ``report_*.js``, ``page.html``)."""
    return resources.files("debate_eval.tasks.analysis.report").joinpath(ASSETS, name).read_text(encoding="utf-8")


def fill(template: str, body: dict[str, str]) -> str:
    """The packaged page ``template`` with each ``{{name}}`` replaced by ``body[name]``, in one pass over the
    template only: a run's text that looks like a placeholder stays as it is."""
    return re.sub(r"\{\{(\w+)\}\}", lambda match: body[match.group(1)], asset(template))


def generated_at() -> str:
    """The time a page is written, as the pages show it (``2026-11-29 11:22 UTC``)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def holds_mark(mark: str) -> Callable[[Path], bool]:
    """Whether a file's head holds ``mark``, the sign of a page of ours (a folder or unreadable file does not)."""

    def holds(target: Path) -> bool:
        try:
            with target.open("rb") as handle:
                return mark in handle.read(64 * 1024).decode("utf-8", "replace")
        except OSError:
            return False

    return holds


def write_page(target: Path, html: str) -> Path:
    """Write ``html`` to ``target`` through a temporary file beside it (its folder is created); returns it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(html, encoding="utf-8")
    temporary.replace(target)
    return target


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)


def safe_json(value: Any) -> str:
    """JSON that can sit inside ``<script type="application/json">``: no ``<``, ``>``, ``&`` or line
    separators appear literally (they are ``\\u`` escapes, which ``JSON.parse`` reads back unchanged)."""
    text = _dump(value)
    for char, escape in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, escape)
    return text


def pack_records(records: list[dict[str, Any]]) -> str:
    """The records (with their transcripts) as base64 of gzipped JSON: prompts repeat the same article for
    every summary, so this is several times smaller; the page unpacks it with the browser's own
    ``DecompressionStream``. Base64 holds no ``<``, so it cannot end its script element either."""
    raw = _dump(records).encode("utf-8")
    return base64.b64encode(gzip.compress(raw, compresslevel=9, mtime=0)).decode("ascii")


def unpack_records(text: str) -> list[dict[str, Any]]:
    """The inverse of ``pack_records`` (for tests and tools reading a report)."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


def item_row(run_index: int, item: Item, record_index: int) -> dict[str, Any]:
    """The table row of one record (what the filters and sorting read)."""
    pairwise = is_pairwise(item)
    error = sections.item_error(item)  # pairwise: 0.0 when the verdict is the human label
    status = str(item.parse_status or ("failed" if item.error else "unknown"))
    return {
        "run": run_index,
        "rec": record_index,
        "key": item_key(item),
        "ckey": compare_key(item),
        "id": str(item.item_id),
        "group": "" if item.group_id is None else str(item.group_id),
        "method": item.method,
        "pairwise": pairwise,
        "human": item.human_label if pairwise else item.human_score,
        "score": item.verdict if pairwise else item.score,
        "err": error,
        "agreed": (None if error is None else error == 0) if pairwise else item.agreed,
        "consistent": item.consistent,
        "rounds": item.rounds,
        "conf": item.confidence,
        "parse": "failed" if item.error else status,
        "stop": str(item.stop_reason or ""),
        "tokens": item.tokens,
    }


def _runs_data(runs: Sequence[Run]) -> list[dict[str, Any]]:
    return [
        {"label": run.label, "method": run.method, "task": run.task_type, "colour": run_colour(i)}
        for i, run in enumerate(runs)
    ]


def _rows(runs: Sequence[Run]) -> Iterator[dict[str, Any]]:
    """The table row of every item of every run, one at a time (``rec`` counts over the runs)."""
    index = 0
    for run_index, run in enumerate(runs):
        for item in run.items:
            yield item_row(run_index, item, index)
            index += 1


def _records(runs: Sequence[Run]) -> Iterator[dict[str, Any]]:
    """Every record of every run as JSON (transcripts included), read one at a time."""
    for run in runs:
        for line, _ in run.iter_lines():
            yield line


def page_data(runs: Sequence[Run]) -> dict[str, Any]:
    """Everything the script needs: runs, table rows and the full records (transcripts included; every record
    read whole, for a page that embeds them all)."""
    with environment_snapshot():  # the environment's secrets read once, not at every record
        records = list(_records(runs))
    return {"runs": _runs_data(runs), "rows": list(_rows(runs)), "records": records}


def write_sidecar(runs: Sequence[Run], target: Path, keep: set[int]) -> list[dict[str, Any]]:
    """Write the sidecar to ``target``: gzipped JSON ``{"rows": [...], "records": [...]}`` of every row and
    record, streamed (rows from the items, records read one at a time, none held). Returns the records at
    the indexes ``keep`` (counted over the runs, in order): the page's sample."""
    kept = []
    with (
        environment_snapshot(),  # the environment's secrets read once, not at every record
        target.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as out,
    ):
        out.write(b'{"rows": [')
        for index, row in enumerate(_rows(runs)):
            out.write(((", " if index else "") + _dump(row)).encode("utf-8"))
        out.write(b'], "records": [')
        for index, record in enumerate(_records(runs)):
            out.write(((", " if index else "") + _dump(record)).encode("utf-8"))
            if index in keep:
                kept.append(record)
        out.write(b"]}")
    return kept


def sidecar_block(name: str, shown: int, total: int) -> str:
    """The note and file picker of a sampled page (the page may not fetch files: the reader picks it)."""
    return (
        f"<p class='note warn' id='sample-note'>This page holds {shown:,} of the {total:,} items (spread evenly "
        f"over the run); the plots and figures above use every item. The full table with every transcript is "
        f"in <code>{esc(name)}</code> beside this page: <label>load it <input id='items-file' type='file' "
        f"accept='.gz'></label></p>"
    )


def _csp(script: str, style: str) -> str:
    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")

    return (
        f"default-src 'none'; script-src 'sha256-{digest(script)}'; style-src 'sha256-{digest(style)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def render(
    runs: Sequence[Run],
    title: str | None = None,
    notes: Sequence[str] = (),
    lead: str = "",
    ci_method: str = DEFAULT_CI_METHOD,
) -> str:
    """The whole report page for ``runs`` with every item; ``notes`` are shown under the title (e.g. texts not
    loaded); ``lead`` is a section of escaped HTML shown first (an audit's judge card, ``audit_section``);
    ``ci_method`` is the bootstrap interval method of the meta-evaluation tables (``meta-eval --ci-method``)."""
    return render_page(runs, title, notes, lead, ci_method)[0]


def render_page(
    runs: Sequence[Run],
    title: str | None = None,
    notes: Sequence[str] = (),
    lead: str = "",
    ci_method: str = DEFAULT_CI_METHOD,
    *,
    sample: int | None = None,
    sidecar: Path | None = None,
) -> tuple[str, bool]:
    """``render``, and with ``sample`` a page that embeds at most that many items (spread evenly) and the
    sidecar of every item written to ``sidecar`` (``write_sidecar``; the page names the file ``sidecar``'s
    name without a ``.tmp`` suffix). Returns the page and whether a sidecar was written (not when every
    item fits). The records are read one at a time: only the embedded ones are held."""
    style = asset("report.css")
    script = '(function () {\n  "use strict";\n' + "\n".join(asset(name) for name in SCRIPTS) + "})();\n"
    title = title or "debate-eval report: " + ", ".join(run.label for run in runs)
    rows_total = sum(len(run.items) for run in runs)
    block, wrote = "", False
    if sample is not None and sidecar is not None and rows_total > sample:
        wanted = {i * rows_total // sample for i in range(sample)}  # every total/sample-th: spread evenly
        records = write_sidecar(runs, sidecar, wanted)
        rows = []
        for position, row in enumerate(_rows(runs)):  # the sample's rows, renumbered
            if position in wanted:
                row["rec"] = len(rows)
                rows.append(row)
        name = sidecar.name.removesuffix(".tmp")
        block, wrote = sidecar_block(name, len(records), rows_total), True
        data = {"runs": _runs_data(runs), "rows": rows}
    else:
        data = page_data(runs)
        records = data.pop("records")
    packed = pack_records(records)
    compare = sections.comparison(runs)
    systems = sections.systems_section(runs, ci_method)
    body = {
        "title": esc(title),
        "generated": esc(generated_at()),
        "runs": esc(" · ".join(f"{run.label} ({len(run.items)} items)" for run in runs)),
        "notes": "".join(f"<p class='note warn'>{esc(note)}</p>" for note in notes),
        "overview": sections.glance(runs, ci_method)
        + "".join(run_card.overview(run, i, len(runs) == 1, ci_method) for i, run in enumerate(runs)),
        "plots": sections.plots_section(runs),
        "compare": f"<section id='compare' class='card'><h2>Side by side</h2>{compare}<div id='compare-table'></div>"
        "</section>"
        if compare
        else "",
        "compare_link": '<a href="#compare">Side by side</a> ' if compare else "",
        "systems": systems,
        "systems_link": '<a href="#systems">Systems</a> ' if systems else "",
        "lead": lead,
        "lead_link": '<a href="#audit">Judge card</a> ' if lead else "",
        "csp": esc(_csp(script, style)),
        "style": style,
        "script": script,
        "data": safe_json(data),
        "records": packed,
        "sidecar": block,
    }
    return fill("page.html", body), wrote
