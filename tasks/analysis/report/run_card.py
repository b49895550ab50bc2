"""A run's card on the page: what was run (settings from ``config.json``, models, template), what it cost
(tokens per role) and how it meta-evaluates (correlations or pairwise metrics with intervals, beside the
paper's numbers). Everything that comes from a run is escaped here (``esc``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from debate_eval.agents.models.answer_format import describe_answers
from debate_eval.tasks.analysis.audit.card import fmt
from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, MIN_UNITS
from debate_eval.tasks.analysis.report import numbers, plots
from debate_eval.tasks.analysis.report.gather import Run
from debate_eval.tasks.analysis.report.plots import esc

SECTION_KEYS = ("template", "models", "dataset", "aspect", "protocol", "method")
LONG_TEXT = 90
DECODING = ("temperature", "top_p", "seed", "max_tokens")
PAIRWISE_METRICS = ("accuracy", "kappa", "consistency", "agreement")
NO_HUMAN_RATINGS = "No human ratings in this run: nothing to meta-evaluate (its scores and transcripts are below)."


def _flatten(prefix: str, value: Any, out: list[tuple[str, Any]]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, out)
    else:
        out.append((prefix, value))


def settings_rows(run: Run) -> list[tuple[str, Any]]:
    """The method's settings from ``config.json``: every key of ``result_config`` but the template, models,
    dataset and aspect, flattened (``debate.critic.name``)."""
    config = run.config.get("result_config") or {}
    rows: list[tuple[str, Any]] = []
    for key, value in config.items():
        if key not in SECTION_KEYS and value not in (None, {}, []):
            _flatten(key, value, rows)
    return rows


def _value_html(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    if len(text) > LONG_TEXT:
        return f"<details><summary>{esc(text[:60])}…</summary><div class='longtext'>{esc(text)}</div></details>"
    return esc(text)


def _models(run: Run) -> list[tuple[str, str]]:
    models = (run.config.get("result_config") or {}).get("models") or {}
    out = []
    for role, entry in models.items():
        if isinstance(entry, dict):
            where = entry.get("endpoint") or entry.get("provider") or ""
            sampling = entry.get("sampling") if isinstance(entry.get("sampling"), dict) else {}
            decoding = ", ".join(f"{k} {v}" for k, v in sampling.items() if v is not None and k in DECODING)
            out.append((str(role), f"{entry.get('model', '?')} @ {where}" + (f" ({decoding})" if decoding else "")))
    return out


def _template(run: Run) -> str:
    template = (run.config.get("result_config") or {}).get("template")
    if not isinstance(template, dict):
        return "–"
    scale = f", scale {template['scale']}" if template.get("scale") else ""
    digest = f", sha256 {str(template['sha256'])[:12]}" if template.get("sha256") else ""
    return f"{template.get('source', '?')}{scale}{digest}"


def overview(run: Run, index: int, expanded: bool = True, ci_method: str = DEFAULT_CI_METHOD) -> str:
    """One run's card: what was run, on what, with what, what it cost, and how it meta-evaluates (closed
    unless ``expanded``: with several runs the table at a glance comes first; intervals by ``ci_method``)."""
    totals = numbers.totals(run)
    datasets = sorted({str(item.dataset) for item in run.items})
    aspects = sorted({str(item.aspect) for item in run.items})
    facts = [
        ("run folder", str(run.path)),
        ("dataset", ", ".join(datasets)),
        ("aspect", ", ".join(aspects)),
        ("method", run.method),
        ("template", _template(run)),
        ("answers", describe_answers((run.config.get("result_config") or {}).get("answers"))),
        ("task", run.task_type),
        ("items", f"{totals['items']} ({totals['parsed']} with a score or verdict, {totals['failed']} failed)"),
        ("model calls", f"{totals['llm_calls']} to the model, {totals['cached_calls']} from the cache"),
        ("tokens", f"{totals['prompt_tokens']:,} prompt + {totals['completion_tokens']:,} completion"),
        ("estimated cost", "unknown (no price for a model)" if totals["cost"] is None else f"${totals['cost']:.4f}"),
    ]
    colour = plots.run_colour(index)
    swatch = f'<svg class="swatch" width="12" height="12"><rect width="12" height="12" fill="{colour}"/></svg>'
    html = [
        f'<details class="card run-card" id="run-{index}"{" open" if expanded else ""}><summary><h3>{swatch}'
        f"{esc(run.label)}</h3></summary><div class='cols'><dl>"
    ]
    html += [f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts]
    html.append("</dl><div>")
    models = _models(run)
    if models:
        html.append(f"<h4>models</h4>{_kv_table((role, esc(text)) for role, text in models)}")
    if totals["usage"]:
        html.append(
            "<h4>tokens per role</h4><table class='kv'><tr><th></th><th>calls</th><th>prompt</th>"
            "<th>completion</th></tr>"
        )
        for role, use in totals["usage"].items():
            html.append(
                f"<tr><th>{esc(role)}</th><td>{esc(use.get('calls', ''))}</td>"
                f"<td>{esc(use.get('prompt_tokens', ''))}</td><td>{esc(use.get('completion_tokens', ''))}</td></tr>"
            )
        html.append("</table>")
    html.append("</div></div>")
    settings = settings_rows(run)
    if settings:
        rows = _kv_table((k, _value_html(v)) for k, v in settings)
        html.append(f"<details class='settings'><summary>method settings (config.json)</summary>{rows}</details>")
    html.append(meta_table(run, ci_method))
    html.append("</details>")
    return "".join(html)


def _kv_table(rows: Iterable[tuple[str, str]]) -> str:
    """A ``kv`` table: per row the escaped name and its HTML."""
    return "<table class='kv'>" + "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"


def ci_html(ci: Any) -> str:
    """An interval as ``[lo, hi]``, the minimum-units text as it is (never a number), or nothing."""
    if isinstance(ci, str):
        return f" <span class='ci few'>{esc(ci)}</span>"
    return f" <span class='ci'>[{fmt(ci[0])}, {fmt(ci[1])}]</span>" if ci else ""


def _paper_html(label: str | None, note: str | None, values: list[tuple[str, float | None]]) -> str:
    if label and any(v is not None for _, v in values):
        text = "<br>".join(f"{esc(symbol)} {fmt(value)}" for symbol, value in values)
        extra = f"<br><span class='paperlabel'>{esc(note)}</span>" if note else ""
        return f"{text}<br><span class='paperlabel'>{esc(label)}, not this run</span>{extra}"
    return f"<span class='paperlabel'>no paper number: {esc(note or 'none for this method')}</span>"


def meta_table(run: Run, ci_method: str = DEFAULT_CI_METHOD) -> str:
    """The meta-evaluation of a run (correlations with 95 % intervals beside the published row ``meta-eval``
    shows; pairwise accuracy/κ/consistency), Topical-Chat under both definitions. The intervals are
    ``meta-eval --ci-method ci_method``'s, and the notes under the tables name the method."""
    if not numbers.has_human_ratings(run.items):
        return f"<p class='note no-human'>{esc(NO_HUMAN_RATINGS)}</p>"
    parts = []
    rows = numbers.meta_eval_rows(run, ci_method=ci_method)
    if rows:
        parts.append(
            "<table class='meta'><tr><th>dataset/aspect</th><th>definition</th><th>items</th><th>no score</th>"
            "<th>no human score</th><th>groups used/skipped</th><th>this run (95% CI)</th><th>paper</th></tr>"
        )
        for row in rows:
            groups = "item level" if row["level"] == "item" else f"{row['n_groups']}/{row['n_skipped']}"
            mine = "<br>".join(f"{esc(c['symbol'])} {fmt(c['value'])}{ci_html(c['ci'])}" for c in row["cells"])
            values = [(c["symbol"], c["paper"]) for c in row["cells"]]
            paper = _paper_html(row["paper_label"], row["paper_note"], values)
            parts.append(
                f"<tr><td>{esc(row['dataset'])}/{esc(row['aspect'])}</td><td>{esc(row['definition_name'])}</td>"
                f"<td>{row['n_items']}</td><td>{row['n_missing']}</td><td>{row['n_unrated']}</td><td>{groups}</td>"
                f"<td>{mine}</td><td class='paper'>{paper}</td></tr>"
            )
        parts.append(
            "</table><p class='note'>As <code>debate-eval meta-eval</code>: per group = correlations "
            "per document/context averaged (DEBATE Appendix E.5; a group whose scores are all equal is skipped); "
            "pooled = one correlation over all responses (UniEval's correlation.py, as G-Eval and ChatEval report "
            f"Topical-Chat); item level = over all items. Intervals: {esc(ci_method)} bootstrap over groups (items at "
            f"item level); below {MIN_UNITS} groups or items no interval is given (too few).</p>"
        )
    pairwise = numbers.pairwise_rows(run, ci_method=ci_method)
    if pairwise:
        parts.append(
            "<table class='meta'><tr><th>dataset/aspect</th><th>items</th><th>no verdict</th>"
            "<th>no human label</th>"
            + "".join(f"<th>{esc(m)} (95% CI)</th>" for m in PAIRWISE_METRICS)
            + "<th>paper</th></tr>"
        )
        for row in pairwise:
            cells = []
            intervals = row.get("ci95")
            for metric in PAIRWISE_METRICS:
                ci = intervals if isinstance(intervals, str) else (intervals or {}).get(metric)
                cells.append(f"<td>{fmt(row.get(metric))}{ci_html(ci)}</td>")
            published = row["paper"] or {}
            values = [(m, published[m]) for m in PAIRWISE_METRICS if published.get(m) is not None]
            paper = _paper_html(row["paper_label"], row["paper_note"], values)
            parts.append(
                f"<tr><td>{esc(row['dataset'])}/{esc(row['aspect'])}</td><td>{row['n_items']}</td>"
                f"<td>{row['n_missing']}</td><td>{row['n_unlabelled']}</td>{''.join(cells)}"
                f"<td class='paper'>{paper}</td></tr>"
            )
        parts.append(
            "</table><p class='note'>Accuracy and κ against the human labels; consistency: share of "
            "items whose verdicts agree after swapping the two responses (--swap); agreement: accuracy "
            f"on the consistent items (Fennec). Intervals: {esc(ci_method)} bootstrap over items; below "
            f"{MIN_UNITS} items none is given (too few).</p>"
        )
    for title, statistics, rows in numbers.published(run):
        head = "".join(f"<th>{esc(s)}</th>" for s in statistics)
        body = "".join(
            f"<tr><th>{esc(name)}</th>" + "".join(f"<td>{fmt(v)}</td>" for v in values) + "</tr>"
            for name, values in rows
        )
        parts.append(
            f"<details class='published'><summary>the paper's numbers, not this run: {esc(title)}"
            f"</summary><table class='kv paper'><tr><th></th>{head}</tr>{body}</table></details>"
        )
    return "".join(parts)
