"""The server-rendered parts of the page: run overviews, meta-evaluation tables and plots, the comparison of
runs over shared items. Everything that comes from a run is escaped here (``esc``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from debate_eval.tasks.analysis.report import numbers, plots
from debate_eval.tasks.analysis.report.gather import Run, compare_key, is_pairwise, item_key, number
from debate_eval.tasks.analysis.report.plots import esc

SECTION_KEYS = ("template", "models", "dataset", "aspect", "protocol", "method")
LONG_TEXT = 90
DECODING = ("temperature", "top_p", "seed", "max_tokens")
DEBATE_METHODS = ("debate", "multiagent", "tiebreaker", "both")
TASK_NAMES = {"single": "single-score", "pairwise": "pairwise"}
PAIRWISE_METRICS = ("accuracy", "kappa", "consistency", "agreement")


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


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


def overview(run: Run, index: int, expanded: bool = True) -> str:
    """One run's card: what was run, on what, with what, what it cost, and how it meta-evaluates (closed
    unless ``expanded``: with several runs the table at a glance comes first)."""
    totals = numbers.totals(run)
    datasets = sorted({str(r.get("dataset")) for r in run.records})
    aspects = sorted({str(r.get("aspect")) for r in run.records})
    facts = [
        ("run folder", str(run.path)),
        ("dataset", ", ".join(datasets)),
        ("aspect", ", ".join(aspects)),
        ("method", run.method),
        ("template", _template(run)),
        ("task", run.task_type),
        ("items", f"{totals['items']} ({totals['parsed']} with a score or verdict, {totals['failed']} failed)"),
        ("model calls", f"{totals['llm_calls']} to the model, {totals['cached_calls']} from the cache"),
        ("tokens", f"{totals['prompt_tokens']:,} prompt + {totals['completion_tokens']:,} completion"),
        ("estimated cost", "unknown (no price for a model)" if totals["cost"] is None else f"${totals['cost']:.4f}"),
    ]
    colour = plots.PALETTE[index % len(plots.PALETTE)]
    swatch = f'<svg class="swatch" width="12" height="12"><rect width="12" height="12" fill="{colour}"/></svg>'
    html = [
        f'<details class="card run-card" id="run-{index}"{" open" if expanded else ""}><summary><h3>{swatch}'
        f"{esc(run.label)}</h3></summary><div class='cols'><dl>"
    ]
    html += [f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts]
    html.append("</dl><div>")
    models = _models(run)
    if models:
        html.append("<h4>models</h4><table class='kv'>")
        html += [f"<tr><th>{esc(role)}</th><td>{esc(text)}</td></tr>" for role, text in models]
        html.append("</table>")
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
        html.append("<details class='settings'><summary>method settings (config.json)</summary><table class='kv'>")
        html += [f"<tr><th>{esc(k)}</th><td>{_value_html(v)}</td></tr>" for k, v in settings]
        html.append("</table></details>")
    html.append(meta_table(run))
    html.append("</details>")
    return "".join(html)


def meta_table(run: Run) -> str:
    """The meta-evaluation of a run (correlations with 95 % intervals beside the paper's, or pairwise
    accuracy/κ/consistency)."""
    parts = []
    rows = numbers.meta_eval_rows(run)
    if rows:
        parts.append(
            "<table class='meta'><tr><th>dataset/aspect</th><th>items</th><th>no score</th>"
            "<th>groups used/skipped</th><th>this run (95% CI over groups)</th><th>paper's Table 1</th></tr>"
        )
        for row in rows:
            groups = "item level" if row["level"] == "item" else f"{row['n_groups']}/{row['n_skipped']}"
            mine = "<br>".join(
                f"{esc(c['symbol'])} {_fmt(c['value'])}"
                + (f" <span class='ci'>[{_fmt(c['ci'][0])}, {_fmt(c['ci'][1])}]</span>" if c["ci"] else "")
                for c in row["cells"]
            )
            paper = (
                "<br>".join(f"{esc(c['symbol'])} {_fmt(c['paper'])}" for c in row["cells"])
                + f"<br><span class='paperlabel'>the paper's GPT-4 {esc(row['paper_row'])} row, not this run</span>"
                if row["paper_row"] and any(c["paper"] is not None for c in row["cells"])
                else "<span class='paperlabel'>no paper number for this method</span>"
            )
            parts.append(
                f"<tr><td>{esc(row['dataset'])}/{esc(row['aspect'])}</td><td>{row['n_items']}</td>"
                f"<td>{row['n_missing']}</td><td>{groups}</td><td>{mine}</td>"
                f"<td class='paper'>{paper}</td></tr>"
            )
        parts.append(
            "</table><p class='note'>As <code>debate-eval meta-eval</code>: group level = correlations "
            "per document/context averaged (Appendix E.5; a group whose scores are all equal is skipped), "
            "item level = over all items. Intervals: percentile bootstrap over groups (items at item "
            "level).</p>"
        )
    pairwise = numbers.pairwise_rows(run)
    if pairwise:
        parts.append(
            "<table class='meta'><tr><th>dataset/aspect</th><th>items</th><th>no verdict</th>"
            "<th>no human label</th>" + "".join(f"<th>{esc(m)} (95% CI)</th>" for m in PAIRWISE_METRICS) + "</tr>"
        )
        for row in pairwise:
            cells = []
            for metric in PAIRWISE_METRICS:
                ci = (row.get("ci95") or {}).get(metric)
                extra = f" <span class='ci'>[{_fmt(ci[0])}, {_fmt(ci[1])}]</span>" if ci else ""
                cells.append(f"<td>{_fmt(row.get(metric))}{extra}</td>")
            parts.append(
                f"<tr><td>{esc(row['dataset'])}/{esc(row['aspect'])}</td><td>{row['n_items']}</td>"
                f"<td>{row['n_missing']}</td><td>{row['n_unlabelled']}</td>{''.join(cells)}</tr>"
            )
        parts.append(
            "</table><p class='note'>Accuracy and κ against the human labels; consistency: share of "
            "items whose verdicts agree after swapping the two responses (--swap); agreement: accuracy "
            "on the consistent items (Fennec). Intervals: percentile bootstrap over items.</p>"
        )
    for title, statistics, rows in numbers.published(run):
        head = "".join(f"<th>{esc(s)}</th>" for s in statistics)
        body = "".join(
            f"<tr><th>{esc(name)}</th>" + "".join(f"<td>{_fmt(v)}</td>" for v in values) + "</tr>"
            for name, values in rows
        )
        parts.append(
            f"<details class='published'><summary>the paper's numbers, not this run: {esc(title)}"
            f"</summary><table class='kv paper'><tr><th></th>{head}</tr>{body}</table></details>"
        )
    return "".join(parts)


def _scale(records: Sequence[dict[str, Any]]) -> tuple[float, float]:
    values = [v for r in records for k in ("score", "human_score") if (v := number(r.get(k))) is not None]
    if not values:
        return 1.0, 5.0
    return float(math.floor(min(values))), float(math.ceil(max(values)))


def _score_plots(runs: Sequence[Run]) -> list[str]:
    """Per dataset/aspect (scales differ): a scatter per run and the distributions of humans and runs."""
    figures = []
    parts = sorted({(str(r.get("dataset")), str(r.get("aspect"))) for run in runs for r in run.records
                    if not is_pairwise(r)})  # fmt: skip
    for dataset, aspect in parts:
        suffix = f" · {dataset}/{aspect}" if len(parts) > 1 else ""
        subsets = [
            (index, run, [r for r in run.records if not is_pairwise(r) and (r.get("dataset"), r.get("aspect")) ==
                          (dataset, aspect)])
            for index, run in enumerate(runs)
        ]  # fmt: skip
        subsets = [(index, run, records) for index, run, records in subsets if records]
        low, high = _scale([r for _, _, records in subsets for r in records])
        for index, run, records in subsets:
            points = [
                (h, s, f"{index}|{item_key(r)}", f"{r.get('item_id')}: human {h:g}, {run.label} {s:g}")
                for r in records
                if (h := number(r.get("human_score"))) is not None and (s := number(r.get("score"))) is not None
            ]
            colour = plots.PALETTE[index % len(plots.PALETTE)]
            figures.append(plots.scatter(f"{run.label}: predicted vs human{suffix}", points, low, high, colour))
        humans = {item_key(r): r for _, _, records in subsets for r in records}
        dists = {"humans": numbers.score_distribution(humans.values(), "human_score")}
        dists |= {run.label: numbers.score_distribution(records, "score") for _, run, records in subsets}
        bins = sorted({b for d in dists.values() for b in d})
        series = {name: [100 * d.get(b, 0) / (sum(d.values()) or 1) for b in bins] for name, d in dists.items()}
        colours = [plots.HUMAN_COLOUR] + [plots.PALETTE[index % len(plots.PALETTE)] for index, _, _ in subsets]
        figures.append(plots.grouped_bars(f"score distribution (% of scores){suffix}", bins, series, colours))
    return figures


def plots_section(runs: Sequence[Run]) -> str:
    """Scatter per run, distributions of humans vs runs, Scorer moves per round, pairwise confusion."""
    figures = _score_plots(runs)
    for run in runs:
        if run.method in DEBATE_METHODS:
            moves = numbers.scorer_moves(r for r in run.records if not is_pairwise(r))
            if any(kind != "no score" for stack in moves for kind in stack):
                figures.append(
                    plots.stacked_bars(
                        f"{run.label}: the Scorer after each Critic round",
                        [f"round {i + 1}" for i in range(len(moves))],
                        moves,
                    )
                )
        pairwise = [r for r in run.records if is_pairwise(r)]
        if pairwise:
            figures.append(
                plots.confusion(
                    f"{run.label}: verdicts vs human labels",
                    numbers.VERDICTS,
                    [*numbers.VERDICTS, "none"],
                    numbers.confusion(pairwise),
                )
            )
            orders = numbers.order_agreement(pairwise)
            if orders is not None:
                figures.append(
                    plots.confusion(
                        f"{run.label}: position consistency (--swap)",
                        [*numbers.VERDICTS, "none"],
                        [*numbers.VERDICTS, "none"],
                        orders,
                        row_name="A first",
                        column_name="B first (mapped back)",
                    )
                )
    return "<div class='plots'>" + "".join(f"<figure>{f}</figure>" for f in figures) + "</div>"


def _error(record: dict[str, Any]) -> float | None:
    """|score − human| of a single-score record; 0 or 1 (verdict right or wrong) of a pairwise one."""
    if is_pairwise(record):
        verdict, label = record.get("verdict"), record.get("human_label")
        known = verdict in numbers.VERDICTS and label in numbers.VERDICTS
        return float(verdict != label) if known else None
    score, human = number(record.get("score")), number(record.get("human_score"))
    return None if score is None or human is None else abs(score - human)


def comparison(runs: Sequence[Run]) -> str:
    """With several runs of the same items: which run was closer to the humans, item by item."""
    parts = []
    for task in ("single", "pairwise"):
        group = [run for run in runs if run.task_type == task]
        if len(group) < 2:
            continue
        by_run = [{compare_key(r): r for r in run.records} for run in group]
        shared = sorted(set.intersection(*(set(m) for m in by_run)))
        extra = ["tie", "no score"] if task == "single" else ["tie", "all wrong", "no verdict"]
        closer = dict.fromkeys([run.label for run in group] + extra, 0)
        errors: dict[str, list[float]] = {run.label: [] for run in group}
        for key in shared:
            errs = [_error(records[key]) for records in by_run]
            for run, error in zip(group, errs, strict=True):
                if error is not None:
                    errors[run.label].append(error)
            known = [e for e in errs if e is not None]
            if len(known) < len(errs):
                closer[extra[-1]] += 1
            elif task == "pairwise" and min(known) > 0:
                closer["all wrong"] += 1
            else:
                best = [run.label for run, e in zip(group, errs, strict=True) if e == min(known)]
                closer[best[0] if len(best) == 1 else "tie"] += 1
        what = "|score − human| smallest" if task == "single" else "the verdict equals the human label"
        mean_of = "Mean |score − human|" if task == "single" else "Share of wrong verdicts"
        head = "".join(f"<th>{esc(label)}</th>" for label in closer)
        cells = "".join(f"<td>{n}</td>" for n in closer.values())
        means = "".join(f"<td>{_fmt(sum(e) / len(e) if e else None, 2)}</td>" for e in errors.values())
        parts.append(
            f"<p>{len(shared)} items are in all {len(group)} {TASK_NAMES[task]} runs. Closest to the humans per item "
            f"({esc(what)}; a tie when several are equally close; an item that a run left without a result is "
            f"counted apart):</p><table class='meta'><tr>{head}</tr><tr>{cells}"
            f"</tr></table><p>{mean_of} on those items:</p><table class='meta'><tr>"
            + "".join(f"<th>{esc(run.label)}</th>" for run in group)
            + f"</tr><tr>{means}</tr></table>"
        )
    return "".join(parts)


def _cell(cell: dict[str, Any]) -> str:
    text = f"{esc(cell['symbol'])} {_fmt(cell['value'])}"
    if cell.get("ci"):
        text += f" <span class='ci'>[{_fmt(cell['ci'][0])}, {_fmt(cell['ci'][1])}]</span>"
    if cell.get("paper") is not None:
        text += f" <span class='paperlabel'>(paper {_fmt(cell['paper'])})</span>"
    return text


def glance(runs: Sequence[Run]) -> str:
    """With several runs: one line each (method, data, items, the dataset's statistics, tokens, cost)."""
    if len(runs) < 2:
        return ""
    lines = []
    for index, run in enumerate(runs):
        totals = numbers.totals(run)
        stats = [
            f"{esc(row['aspect'])}: " + ", ".join(_cell(c) for c in row["cells"]) for row in numbers.meta_eval_rows(run)
        ] + [
            f"{esc(row['aspect'])}: "
            + ", ".join(
                _cell({"symbol": name, "value": row.get(key), "ci": (row.get("ci95") or {}).get(key)})
                for key, name in (("accuracy", "acc"), ("kappa", "κ"), ("consistency", "consistency"))
            )
            for row in numbers.pairwise_rows(run)
        ]
        cost = "–" if totals["cost"] is None else f"${totals['cost']:.4f}"
        data = ", ".join(sorted({f"{r.get('dataset')}/{r.get('aspect')}" for r in run.records}))
        lines.append(
            f"<tr><td><a href='#run-{index}'>{esc(run.label)}</a></td><td>{esc(run.method)}</td><td>{esc(data)}</td>"
            f"<td>{totals['items']}</td><td>{totals['parsed']}</td><td>{'<br>'.join(stats) or '–'}</td>"
            f"<td>{totals['prompt_tokens'] + totals['completion_tokens']:,}</td><td>{esc(cost)}</td></tr>"
        )
    return (
        "<table class='meta glance'><tr><th>run</th><th>method</th><th>data</th><th>items</th><th>scored</th>"
        "<th>meta-evaluation (95% CI; the paper's GPT-4 number for the method, not this run)</th><th>tokens</th>"
        "<th>cost</th></tr>" + "".join(lines) + "</table><p class='note'>Open a run below for its settings, "
        "models, tokens per role and the papers' tables.</p>"
    )
