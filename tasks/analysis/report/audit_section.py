"""The report page of an audit folder (``render_audit``; ``debate-eval audit`` writes it as ``OUT/report.html``):
the judge card as its first section, then every sub-run as a run of the page (overview, plots, items and
transcripts), so each figure's link can show the items behind it.

A table of every facet's figures, one column per judge, each with its interval, n, baseline and a link to the
items behind it (the link filters the page's items table to those records; the audit's sub-runs are the
page's runs); then per facet how it was computed, why it does not apply where it does not, and its plots
(values with intervals, and a facet's own picture: scatter, distribution, per-variant bars), whose points
open their items. Everything from a run or a card is escaped (``esc``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from debate_eval.tasks.analysis.audit.card import FACETS, Card, baseline_text, figure_labels, fmt, fmt_ci
from debate_eval.tasks.analysis.audit.facet import OK, Facet, Figure, ItemLink
from debate_eval.tasks.analysis.report import plots
from debate_eval.tasks.analysis.report.gather import Run, attach_inputs, item_key, load_run
from debate_eval.tasks.analysis.report.page import render
from debate_eval.tasks.analysis.report.plots import HUMAN_COLOUR, esc, intervals_chart, run_colour, xy_scatter
from debate_eval.tasks.engine.rundir import RunDir

# (judge label, sub-run, item id) -> "RUN_INDEX|ITEM_KEY" of the page's items table, or None
KeyOf = Callable[[str, str, str], str | None]
HEADLINE = {  # the figure each facet's chart shows, its axis and reference line
    "agreement": (("spearman", "accuracy"), (-1.0, 1.0), 0.0, "0"),
    "stability": (("alpha",), (-1.0, 1.0), 1.0, "1 = always the same"),
    "position": (("first_position_rate",), (0.0, 1.0), 0.5, "0.5 = no preference"),
    "verbosity": (("residual_spearman", "longer_preference_difference", "spearman"), (-1.0, 1.0), 0.0, "0"),
    "scale": (("emd", "modal_share"), None, 0.0, "0 = same distribution"),
    "robustness": (("mean_abs_change",), None, 0.0, "0 = unchanged"),
    "injection": (("susceptibility",), (-1.0, 1.0), 0.0, "0 = no move beyond the control"),
    "alt_test": (("advantage_probability",), (0.0, 1.0), 0.5, "0.5"),
    "self_preference": (("self_preference",), (-2.0, 2.0), 0.0, "0 = no self-preference"),
}


def _links(judge: str, links: Sequence[ItemLink], key_of: KeyOf) -> str:
    """One link that filters the items table to the records behind a figure (every link of the figure)."""
    keys = [key for link in links for item in link.item_ids if (key := key_of(judge, link.run, item)) is not None]
    if not keys:
        return ""
    what = "; ".join(f"{link.what} ({link.run})" for link in links)
    count = max(len(link.item_ids) for link in links)  # one link per sub-run of the same items
    return (
        f" <a href='#items' class='items-link' data-items='{esc(json.dumps(keys))}' data-what='{esc(what)}'>"
        f"{count} items</a>"
    )


def _cell(judge: str, facet: Facet | None, figure: Figure | None, key_of: KeyOf) -> str:
    if facet is None:
        return "<td>–</td>"
    if facet.status != OK:
        return f"<td class='note'>{esc(facet.status)}: {esc(facet.reason)}</td>"
    if figure is None:
        return "<td>–</td>"
    ci = figure.ci95
    few = " few" if isinstance(ci, str) else ""
    text = f"<b>{esc(fmt(figure.value))}</b> <span class='ci{few}'>{esc(fmt_ci(ci))}</span>"
    if not few:
        text += f" <span class='note'>n={facet.n} {esc(facet.unit)}</span>"
    if figure.baseline is not None or figure.baseline_label:
        text += f"<br><span class='note'>{esc(figure.baseline_label)}: {esc(baseline_text(figure))}</span>"
    return f"<td>{text}{_links(judge, figure.items, key_of)}</td>"


def card_table(card: Card, key_of: KeyOf) -> str:
    """Every figure of every facet, one column per judge."""
    head = "".join(
        f"<th>{esc(judge.label)}<br><span class='note'>{esc(judge.method)}</span></th>" for judge in card.judges
    )
    rows = []
    for name in FACETS:
        facets = [judge.facets.get(name) for judge in card.judges]
        present = [f for f in facets if f is not None]
        if not present:
            continue
        title = present[0].title
        labels = figure_labels(present)
        rows.append(
            f"<tr><th colspan='{len(card.judges) + 1}' class='facet-head'><a href='#facet-{name}'>{esc(title)}</a>"
            "</th></tr>"
        )
        for label in labels or [""]:
            cells = "".join(
                _cell(
                    judge.label,
                    facet,
                    next((f for f in facet.figures if f.label == label), None) if facet else None,
                    key_of,
                )
                for judge, facet in zip(card.judges, facets, strict=True)
            )
            rows.append(f"<tr><td>{esc(label) or '–'}</td>{cells}</tr>")
    return f"<table class='meta audit'><tr><th>figure</th>{head}</tr>{''.join(rows)}</table>"


def _headline_chart(name: str, card: Card) -> str:
    keys, axis, reference, reference_label = HEADLINE[name]
    rows: list[tuple[str, float | None, Sequence[float] | None, str]] = []
    title = ""
    for index, judge in enumerate(card.judges):
        facet = judge.facets.get(name)
        if facet is None or facet.status != OK:
            continue
        figure = next((f for key in keys for f in facet.figures if f.key == key), None)
        if figure is None:
            continue
        title = figure.label
        ci = figure.ci95 if isinstance(figure.ci95, list) else None
        rows.append((judge.label, figure.value, ci, run_colour(index)))
        if figure.baseline is not None and figure.baseline_label.startswith("humans"):
            base_ci = figure.baseline_ci95 if isinstance(figure.baseline_ci95, list) else None
            rows.append((f"humans ({judge.label})", figure.baseline, base_ci, HUMAN_COLOUR))
    if not rows:
        return ""
    values = [v for _, value, ci, _ in rows for v in [value, *(ci or [])] if v is not None]
    low, high = axis or (0.0, max([1e-9, *values]) * 1.15)
    return intervals_chart(f"{title} (95% CI)", rows, low, high, reference, reference_label)


def _facet_plots(name: str, card: Card, key_of: KeyOf) -> list[str]:
    """The facet's own pictures (per judge where they are per item)."""
    figures = []
    ok = [
        (i, judge, judge.facets[name])
        for i, judge in enumerate(card.judges)
        if judge.facets.get(name) and judge.facets[name].status == OK
    ]
    for index, judge, facet in ok:
        points = facet.plot.get("points") or []
        if name in ("agreement", "verbosity", "robustness") and points:
            x_label, y_label, diagonal = {
                "agreement": ("human", "judge", True),
                "verbosity": ("length (words)", "judge's score", False),
                "robustness": ("score of the original", "mean score of its rewrites", True),
            }[name]
            shown = [
                (float(x), float(y), key, f"{item}: {x_label} {x:g}, {y_label} {y:g}")
                for x, y, item in points
                if (key := key_of(judge.label, "base", str(item))) is not None
            ]
            figures.append(
                xy_scatter(
                    f"{judge.label}: {y_label} vs {x_label}",
                    shown,
                    x_label,
                    y_label,
                    run_colour(index),
                    diagonal,
                    jitter=0.015,
                )
            )
        spread = facet.plot.get("spread")
        if name == "stability" and spread:
            bins = sorted({round(s, 2) for s in spread})
            counts = [100.0 * sum(1 for s in spread if round(s, 2) == b) / len(spread) for b in bins]
            figures.append(
                plots.grouped_bars(
                    f"{judge.label}: spread over the runs",
                    bins,
                    {judge.label: counts},
                    [run_colour(index)],
                    x_label="max − min of an item's scores (% of items)",
                )
            )
    if name == "scale" and ok:
        first = ok[0][2].plot.get("distribution") or {}
        bins = list(first.get("bins") or [])
        series: dict[str, list[float]] = {}
        colours = []
        if first.get("human"):
            series["humans"], colours = list(first["human"]), [HUMAN_COLOUR]
        for index, judge, facet in ok:
            dist = facet.plot.get("distribution") or {}
            lookup = dict(zip(dist.get("bins") or [], dist.get("judge") or [], strict=False))
            series[judge.label] = [lookup.get(b, 0.0) for b in bins]
            colours.append(run_colour(index))
        if bins:
            label = "verdict (% of items)" if card.task_type == "pairwise" else "score, rounded half up (% of items)"
            figures.append(plots.grouped_bars("judgments and human ratings", bins, series, colours, x_label=label))
    if name == "injection" and ok:
        variants = sorted({v for _, _, facet in ok for v in facet.plot.get("variants") or {}})
        series = {}
        for _, judge, facet in ok:
            per = facet.plot.get("variants") or {}
            for kind, what in (("moved", "injected"), ("control_moved", "neutral control")):
                series[f"{judge.label}: {what}"] = [
                    100.0 * per[v].get(kind, 0) / per[v]["items"] if per.get(v, {}).get("items") else 0.0
                    for v in variants
                ]
        if variants:
            figures.append(
                plots.grouped_bars(
                    "moved towards the planted value: injected texts and their controls",
                    variants,
                    series,
                    x_label="variant (% of its items that moved)",
                )
            )
    return figures


def facet_block(name: str, card: Card, key_of: KeyOf) -> str:
    """One facet: how it was computed, what does not apply, its plots."""
    facets = [(judge, judge.facets.get(name)) for judge in card.judges]
    present = [(judge, facet) for judge, facet in facets if facet is not None]
    if not present:
        return ""
    title = present[0][1].title
    done = [(judge, facet) for judge, facet in present if facet.status == OK]
    parts = [f"<details class='facet' id='facet-{name}' open><summary><h3>{esc(title)}</h3></summary>"]
    if done:
        parts.append(f"<p class='note'>How: {esc(done[0][1].method)}</p>")
    for judge, facet in present:
        if facet.status != OK:
            parts.append(f"<p class='note'>{esc(judge.label)}: {esc(facet.status)}: {esc(facet.reason)}</p>")
        for note in facet.notes:
            parts.append(f"<p class='note'>{esc(judge.label)}: {esc(note)}</p>")
    pictures = ([_headline_chart(name, card)] if done else []) + (_facet_plots(name, card, key_of) if done else [])
    pictures = [p for p in pictures if p]
    if pictures:
        parts.append("<div class='plots'>" + "".join(f"<figure>{p}</figure>" for p in pictures) + "</div>")
    parts.append("</details>")
    return "".join(parts)


def audit_section(card: Card, key_of: KeyOf) -> str:
    """The whole card section."""
    banner = (
        "<p class='note warn'><b>Scripted run:</b> the judges are the scripted test server with planted behaviours, "
        "not models; the numbers show how the card works, not how good any model is.</p>"
        if card.scripted
        else ""
    )
    selection = ", ".join(f"{k} {v}" for k, v in card.selection.items() if v is not None) or "all items"
    b = card.bootstrap
    intervals = (
        f"95% intervals: {b.get('ci_method', 'percentile')} bootstrap, {b.get('n')} resamples; below "
        f"{b.get('min_units', 10)} units no interval (the text says why)"
        if b.get("n")
        else "no intervals (bootstrap 0)"
    )
    lead = (
        f"<p>{esc(card.dataset)} / {esc(card.aspect)}: {card.items} items ({esc(card.task_type)}; {esc(selection)}). "
        f"{esc(intervals)}. A link under a figure shows the items behind it in the table below; a point opens its "
        "item.</p>"
    )
    commands = "".join(f"<code>{esc(command)}</code><br>" for command in card.commands)
    blocks = "".join(facet_block(name, card, key_of) for name in FACETS)
    return (
        f"<section id='audit' class='card'><h2>Judge card</h2>{banner}{lead}{card_table(card, key_of)}"
        f"{blocks}<p class='note'>Made by: {commands}</p></section>"
    )


def key_resolver(runs: Sequence[Run], index_of: Mapping[tuple[str, str], int]) -> KeyOf:
    """``key_of`` for the page: the run index of (judge, sub-run) and the item key of its record."""
    keys: dict[tuple[int, str], str] = {}
    for index, run in enumerate(runs):
        for item in run.items:
            keys[(index, str(item.item_id))] = item_key(item)

    def key_of(judge: str, run: str, item: str) -> str | None:
        index = index_of.get((judge, run))
        if index is None or (index, item) not in keys:
            return None
        return f"{index}|{keys[(index, item)]}"

    return key_of


def audit_runs(card: Card, out: Path) -> tuple[list[Run], dict[tuple[str, str], int]]:
    """The sub-runs of every judge that have results, labelled ``JUDGE · RUN``, and their indexes."""
    runs: list[Run] = []
    index_of: dict[tuple[str, str], int] = {}
    for judge in card.judges:
        for name, folder in judge.runs.items():
            path = out / folder
            if not RunDir(path).results_path.is_file():
                continue
            run = load_run(path)
            run.label = f"{judge.label} · {name}"
            index_of[(judge.label, name)] = len(runs)
            runs.append(run)
    return runs, index_of


def register_derived_sets(card: Card, runs: list[Run], out: Path) -> None:
    """Register the audit's own files again (the user's data file, the injected and paraphrased texts) so the page
    can show each record's judged texts; a file that cannot be read only costs the texts (attach_inputs says so)."""
    from debate_eval.tasks.data.own_file import restore_dataset
    from debate_eval.tasks.engine.injections import CONTROL_ITEMS_FILE, CONTROL_SUFFIX, ITEMS_FILE
    from debate_eval.tasks.engine.paraphrases import SUFFIX
    from debate_eval.tasks.engine.variants import register_variant_file

    for run in runs:
        with contextlib.suppress(Exception):
            restore_dataset(run.config.get("result_config") or {})
    derived = (("injected", ITEMS_FILE), (CONTROL_SUFFIX, CONTROL_ITEMS_FILE), (SUFFIX, "paraphrased_items.jsonl"))
    for suffix, name in derived:
        if (out / name).is_file():
            with contextlib.suppress(Exception):
                register_variant_file(card.dataset, out / name, suffix, f"audit: {suffix} texts")


def render_audit(card: Card, out: Path, with_texts: bool = True) -> str:
    """The page: the card section, then the sub-runs."""
    runs, index_of = audit_runs(card, out)
    if with_texts and runs:
        register_derived_sets(card, runs, out)
    notes = attach_inputs(runs) if with_texts and runs else []
    section = audit_section(card, key_resolver(runs, index_of))
    title = f"Judge card: {card.dataset} / {card.aspect}" + (" (scripted judges, not models)" if card.scripted else "")
    return render(runs, title, notes, lead=section)
