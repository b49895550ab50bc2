"""The server-rendered parts of the page besides the run cards (``run_card.py``): the table at a glance, the
plots, the comparison of runs over shared items. Everything that comes from a run is escaped here (``esc``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, MIN_UNITS
from debate_eval.tasks.analysis.calibration import MonotoneMap, reliability_points
from debate_eval.tasks.analysis.report import numbers, plots
from debate_eval.tasks.analysis.report.gather import Item, Run, compare_key, is_pairwise, item_key, number
from debate_eval.tasks.analysis.report.plots import esc
from debate_eval.tasks.analysis.report.run_card import ci_html, fmt

TASK_NAMES = {"single": "single-score", "pairwise": "pairwise"}


def _scale(records: Sequence[Item]) -> tuple[float, float]:
    values = [v for r in records for k in ("score", "human_score") if (v := number(getattr(r, k))) is not None]
    if not values:
        return 1.0, 5.0
    return float(math.floor(min(values))), float(math.ceil(max(values)))


def _score_plots(runs: Sequence[Run]) -> list[str]:
    """Per dataset/aspect (scales differ): a scatter per run and the distributions of humans and runs."""
    figures = []
    parts = sorted({(str(r.dataset), str(r.aspect)) for run in runs for r in run.items
                    if not is_pairwise(r)})  # fmt: skip
    for dataset, aspect in parts:
        suffix = f" · {dataset}/{aspect}" if len(parts) > 1 else ""
        subsets = [
            (index, run, [r for r in run.items if not is_pairwise(r) and (r.dataset, r.aspect) ==
                          (dataset, aspect)])
            for index, run in enumerate(runs)
        ]  # fmt: skip
        subsets = [(index, run, records) for index, run, records in subsets if records]
        low, high = _scale([r for _, _, records in subsets for r in records])
        rated = numbers.has_human_ratings(r for _, _, records in subsets for r in records)
        for index, run, records in subsets if rated else ():  # no human ratings: no scatter against them
            points = [
                (h, s, f"{index}|{item_key(r)}", f"{r.item_id}: human {h:g}, {run.label} {s:g}")
                for r in records
                if (h := number(r.human_score)) is not None and (s := number(r.score)) is not None
            ]
            colour = plots.run_colour(index)
            figures.append(plots.scatter(f"{run.label}: predicted vs human{suffix}", points, low, high, colour))
            diagram = _reliability(run, records, suffix, colour)
            if diagram:
                figures.append(diagram)
        humans = {item_key(r): r for _, _, records in subsets for r in records}
        dists = {"humans": numbers.score_distribution(humans.values(), "human_score")} if rated else {}
        dists |= {run.label: numbers.score_distribution(records, "score") for _, run, records in subsets}
        bins = sorted({b for d in dists.values() for b in d})
        series = {name: [100 * d.get(b, 0) / (sum(d.values()) or 1) for b in bins] for name, d in dists.items()}
        colours = [plots.HUMAN_COLOUR] * rated + [plots.run_colour(index) for index, _, _ in subsets]
        figures.append(plots.grouped_bars(f"score distribution (% of scores){suffix}", bins, series, colours))
    return figures


def _reliability(run: Run, records: Sequence[Item], suffix: str, colour: str) -> str:
    """The run's reliability diagram with its isotonic map (``debate-eval calibrate``), from at least
    ``MIN_UNITS`` items with a score and a human rating."""
    pairs = [(s, h) for r in records if (s := number(r.score)) is not None and (h := number(r.human_score)) is not None]
    if len(pairs) < MIN_UNITS:
        return ""
    scores, ratings = np.array([s for s, _ in pairs]), np.array([h for _, h in pairs])
    fitted = MonotoneMap.fit(scores, ratings)
    points = [(x, y, int(n)) for x, y, n in reliability_points(scores, ratings)["points"]]
    judge_range = (float(math.floor(scores.min())), float(math.ceil(scores.max())))
    human_range = (float(math.floor(ratings.min())), float(math.ceil(ratings.max())))
    if judge_range[0] <= human_range[1] and human_range[0] <= judge_range[1]:  # overlapping scales: one range
        judge_range = human_range = (min(judge_range[0], human_range[0]), max(judge_range[1], human_range[1]))
    curve = list(zip(fitted.knots, fitted.values, strict=True))
    title = f"{run.label}: reliability and the isotonic map{suffix}"
    return plots.reliability(title, points, curve, judge_range, human_range, colour)


def plots_section(runs: Sequence[Run]) -> str:
    """Scatter per run, distributions of humans vs runs, Scorer moves per round, pairwise confusion."""
    figures = _score_plots(runs)
    for run in runs:
        debated = [r for r in run.items if r.scorer is not None]
        if debated:
            moves = numbers.scorer_moves(debated)
            if any(kind != "no score" for stack in moves for kind in stack):
                figures.append(
                    plots.stacked_bars(
                        f"{run.label}: the Scorer after each Critic round",
                        [f"round {i + 1}" for i in range(len(moves))],
                        moves,
                    )
                )
        pairwise = [r for r in run.items if is_pairwise(r)]
        if pairwise and not numbers.has_human_ratings(pairwise):  # unlabelled pairs: how the verdicts fell
            counts = numbers.verdict_counts(pairwise)
            kinds = [*numbers.VERDICTS, "none"]
            figures.append(
                plots.grouped_bars(
                    f"{run.label}: verdicts (no human labels)",
                    kinds,
                    {run.label: [100 * counts[kind] / len(pairwise) for kind in kinds]},
                    [plots.run_colour(runs.index(run))],
                    x_label="verdict",
                )
            )
        elif pairwise:
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


def item_error(record: Item) -> float | None:
    """|score − human| of a single-score record; 0 or 1 (verdict right or wrong) of a pairwise one."""
    if is_pairwise(record):
        verdict, label = record.verdict, record.human_label
        known = verdict in numbers.VERDICTS and label in numbers.VERDICTS
        return float(verdict != label) if known else None
    score, human = number(record.score), number(record.human_score)
    return None if score is None or human is None else abs(score - human)


def comparison(runs: Sequence[Run]) -> str:
    """With several runs of the same items: which run was closer to the humans, item by item."""
    parts = []
    for task in ("single", "pairwise"):
        group = [run for run in runs if run.task_type == task]
        if len(group) < 2:
            continue
        if not numbers.has_human_ratings(r for run in group for r in run.items):
            continue  # closest to the humans: there are none
        by_run = [{compare_key(r): r for r in run.items} for run in group]
        shared = sorted(set.intersection(*(set(m) for m in by_run)))
        extra = ["tie", "no score"] if task == "single" else ["tie", "all wrong", "no verdict"]
        closer = dict.fromkeys([run.label for run in group] + extra, 0)
        errors: dict[str, list[float]] = {run.label: [] for run in group}
        for key in shared:
            errs = [item_error(records[key]) for records in by_run]
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
        means = "".join(f"<td>{fmt(sum(e) / len(e) if e else None, 2)}</td>" for e in errors.values())
        parts.append(
            f"<p>{len(shared)} items are in all {len(group)} {TASK_NAMES[task]} runs. Closest to the humans per item "
            f"({esc(what)}; a tie when several are equally close; an item that a run left without a result is "
            f"counted apart):</p><table class='meta'><tr>{head}</tr><tr>{cells}"
            f"</tr></table><p>{mean_of} on those items:</p><table class='meta'><tr>"
            + "".join(f"<th>{esc(run.label)}</th>" for run in group)
            + f"</tr><tr>{means}</tr></table>"
        )
    return "".join(parts)


def _cell(symbol: str, value: float | None, ci: Any, paper: float | None) -> str:
    text = f"{esc(symbol)} {fmt(value)}" + ci_html(ci)
    if paper is not None:
        text += f" <span class='paperlabel'>(paper {fmt(paper)})</span>"
    return text


def glance(runs: Sequence[Run], ci_method: str = DEFAULT_CI_METHOD) -> str:
    """With several runs: one line each (method, data, items, the dataset's statistics with ``ci_method``
    bootstrap intervals, tokens, cost)."""
    if len(runs) < 2:
        return ""
    lines = []
    for index, run in enumerate(runs):
        totals = numbers.totals(run)
        stats = [
            f"{esc(row['aspect'])} ({esc(row['definition_name'])}): "
            + ", ".join(_cell(c["symbol"], c["value"], c.get("ci"), c.get("paper")) for c in row["cells"])
            for row in numbers.meta_eval_rows(run, ci_method=ci_method)
        ] + [
            f"{esc(row['aspect'])}: "
            + ", ".join(
                _cell(
                    name,
                    row.get(key),
                    row["ci95"] if isinstance(row.get("ci95"), str) else (row.get("ci95") or {}).get(key),
                    (row.get("paper") or {}).get(key),
                )
                for key, name in (("accuracy", "acc"), ("kappa", "κ"), ("consistency", "consistency"))
            )
            for row in numbers.pairwise_rows(run, ci_method=ci_method)
        ]
        if not numbers.has_human_ratings(run.items):
            stats = ["no human ratings"]
        cost = "–" if totals["cost"] is None else f"${totals['cost']:.4f}"
        data = ", ".join(sorted({f"{r.dataset}/{r.aspect}" for r in run.items}))
        lines.append(
            f"<tr><td><a href='#run-{index}'>{esc(run.label)}</a></td><td>{esc(run.method)}</td><td>{esc(data)}</td>"
            f"<td>{totals['items']}</td><td>{totals['parsed']}</td><td>{'<br>'.join(stats) or '–'}</td>"
            f"<td>{totals['prompt_tokens'] + totals['completion_tokens']:,}</td><td>{esc(cost)}</td></tr>"
        )
    return (
        "<table class='meta glance'><tr><th>run</th><th>method</th><th>data</th><th>items</th><th>scored</th>"
        f"<th>meta-evaluation (95% CI, {esc(ci_method)} bootstrap; in brackets the published number meta-eval "
        "shows for the method, not this run)</th><th>tokens</th>"
        "<th>cost</th></tr>" + "".join(lines) + "</table><p class='note'>Open a run below for its settings, "
        "models, tokens per role and the papers' tables.</p>"
    )


def _ci(ci: Any) -> str:
    """A systems figure's interval (``ci_html`` in a class of its own: the meta-evaluation's intervals stay the
    page's ``ci`` spans)."""
    return ci_html(ci).replace("<span class='ci'>", "<span class='ci sys'>")


def _p(value: Any) -> str:
    """A p-value, the minimum-units text as it is, or an en dash."""
    if isinstance(value, str):
        return f"<span class='ci few'>{esc(value)}</span>"
    return "–" if value is None else f"{value:.3g}"


def _system_level(level: dict[str, Any]) -> str:
    ci95 = level.get("ci95")
    cells = []
    for name in ("kendall", "spearman", "pearson"):
        interval = ci95 if isinstance(ci95, str) else (ci95 or {}).get(name)
        cells.append(f"{numbers.GREEK[name]} {fmt(level.get(name))}{_ci(interval)}")
    return (
        f"<p>System level ({level['n_systems']} systems' mean scores against their mean human scores, over "
        f"{level['n_groups']} groups): {', '.join(cells)}</p>"
    )


def _compared(block: dict[str, Any]) -> str:
    """Per system its mean with interval (and PPI rows), then every pair of systems on shared inputs."""
    ppi = any("ppi" in entry for entry in block["systems"].values())
    ranks, ppi_ranks = block.get("ranks") or {}, block.get("ppi_ranks") or {}
    head = "<th>system</th><th>items</th><th>scored</th><th>mean judge score (95% CI)</th>"
    head += "<th>rank (ranks it can hold)</th>" if ranks else ""
    head += "<th>human scale: PPI</th><th>human only</th><th>judge only</th>" if ppi else ""
    head += "<th>PPI rank (ranks it can hold)</th>" if ppi_ranks else ""
    rows = []
    for name, entry in block["systems"].items():
        mean = fmt(entry["mean"]) + _ci(entry["ci95"])
        cells = f"<td>{entry['n_items']}</td><td>{entry['n_scored']}</td><td>{mean}</td>"
        if ranks:
            cells += f"<td>{_rank(ranks.get(name))}</td>"
        estimate = entry.get("ppi")
        if estimate:
            cells += "".join(
                f"<td>{fmt(estimate[kind]['mean'])}{_ci(estimate[kind]['ci95'])}</td>"
                for kind in ("ppi", "human_only", "judge_only")
            )
        elif ppi:
            cells += "<td>–</td><td>–</td><td>–</td>"
        if ppi_ranks:
            cells += f"<td>{_rank(ppi_ranks.get(name))}</td>"
        rows.append(f"<tr><th>{esc(name)}</th>{cells}</tr>")
    html = _ranking_figure(block) + f"<table class='meta systems'><tr>{head}</tr>{''.join(rows)}</table>"
    if ranks:
        html += (
            f"<p class='note'>Rank: by mean judge score (1 = highest). The ranks a system can hold: 1 + the systems "
            f"significantly above it, to n − the systems significantly below it, by the pairs' Holm p &lt; 0.05 over "
            f"{esc(block.get('family', 'all the pairs'))} (all the rank sets hold together at 95%).</p>"
        )
    if ppi:
        html += (
            "<p class='note'>Human scale: where only part of a system's outputs carry a human rating, its mean on "
            "the human scale by prediction-powered inference (PPI++: the rated outputs correct the judge's scores "
            "of all of them), beside the mean of the rated outputs alone and of the judge's scores alone.</p>"
        )
    pairs = block["pairs"]
    if pairs:
        with_ppi = any("ppi" in pair for pair in pairs)
        lines = "".join(
            f"<tr><th>{esc(pair['first'])} − {esc(pair['second'])}</th><td>{pair['n_inputs']}</td>"
            f"<td>{esc(pair.get('test', ''))}</td>"
            f"<td>{pair['difference']:+.3f}{_ci(pair['ci95'])}</td><td>{_p(pair['p_value'])}</td>"
            f"<td>{_p(pair.get('p_holm'))}</td><td>{_p(pair.get('p_bh'))}</td><td>{_counts(pair)}</td>"
            + (f"<td>{_ppi_difference(pair.get('ppi'))}</td>" if with_ppi else "")
            + "</tr>"
            for pair in pairs
        )
        html += (
            "<table class='meta systems pairs'><tr><th>first − second</th><th>inputs</th><th>test</th>"
            "<th>difference of means (95% CI)</th><th>p</th><th>Holm p</th><th>BH p</th>"
            "<th>first's wins/ties/losses</th>"
            + ("<th>human scale: PPI difference (95% CI), Holm p</th>" if with_ppi else "")
            + f"</tr>{lines}</table>"
        )
    return html


def _rank(entry: dict[str, Any] | None) -> str:
    if not entry:
        return "–"
    low, high = entry["rank_set"]
    return f"{entry['rank']} ({low})" if low == high else f"{entry['rank']} ({low}–{high})"


def _counts(pair: dict[str, Any]) -> str:
    return "–" if pair.get("wins") is None else f"{pair['wins']}/{pair['ties']}/{pair['losses']}"


def _ppi_difference(found: dict[str, Any] | None) -> str:
    if not found or found.get("difference") is None:
        return "–" if not found else _p(found.get("ci95"))
    return f"{found['difference']:+.3f}{_ci(found['ci95'])}, {_p(found.get('p_holm'))}"


def _ranking_figure(block: dict[str, Any]) -> str:
    """The systems from best to worst with their intervals and rank sets (none below two ranked systems); beside
    it, where the systems' PPI means are ranked, the same figure on the human scale when every ranked system has
    at least ``MIN_UNITS`` rated outputs with a judge score (the reliability diagram's rule), else a note why."""
    ranks, ppi_ranks = block.get("ranks") or {}, block.get("ppi_ranks") or {}
    estimates = {name: block["systems"][name]["ppi"] for name in ppi_ranks}
    few = [name for name, found in estimates.items() if found["n_rated"] < MIN_UNITS or _interval(found) is None]
    corrected = len(ppi_ranks) >= 2 and not few
    figures = []
    if len(ranks) >= 2:
        title = "systems by mean judge score: 95% CI and ranks"
        intervals = {name: block["systems"].get(name, {}).get("ci95") for name in ranks}
        rows = _ranking_rows(ranks, {name: ranks[name]["mean"] for name in ranks}, intervals)
        figures.append(plots.ranking(f"judge only: {title}" if corrected else title, rows))
    if corrected:
        n_labels = sum(found["n_rated"] for found in estimates.values())
        rows = _ranking_rows(
            ppi_ranks,
            {name: found["ppi"]["mean"] for name, found in estimates.items()},
            {name: _interval(found) for name, found in estimates.items()},
        )
        title = f"corrected with {n_labels} human labels (PPI): systems by PPI mean, 95% CI and ranks"
        figures.append(plots.ranking(title, rows, colour=plots.HUMAN_COLOUR))
    html = "<div class='plots'>" + "".join(figures) + "</div>" if figures else ""
    if len(ppi_ranks) >= 2 and few:
        counts = []
        for name in few:
            text = estimates[name]["ppi"]["ci95"]
            counts.append(
                f"{esc(name)} {estimates[name]['n_rated']}" + (f" ({esc(text)})" if isinstance(text, str) else "")
            )
        html += (
            f"<p class='note'>No corrected (PPI) ranking figure: it needs a PPI interval from at least {MIN_UNITS} "
            f"rated outputs with a judge score for each system; rated outputs here: {', '.join(counts)}.</p>"
        )
    return html


def _interval(found: dict[str, Any]) -> list[float] | None:
    """A system's PPI interval, None where it is withheld (the minimum-units or missing-extra text)."""
    ci95 = found["ppi"]["ci95"]
    return ci95 if isinstance(ci95, list) else None


def _ranking_rows(
    ranks: dict[str, Any], means: dict[str, float], intervals: dict[str, Any]
) -> list[tuple[str, float, list[float] | None, list[int]]]:
    """The figure's rows, best rank first: (system, mean, interval or None, rank set)."""
    order = sorted(ranks, key=lambda name: (ranks[name]["rank"], name))
    return [
        (name, means[name], intervals[name] if isinstance(intervals[name], list) else None, ranks[name]["rank_set"])
        for name in order
    ]


def _win_rates(block: dict[str, Any]) -> str:
    """Each system's win rate in pairwise comparisons (ties count half), with interval and counts."""
    rows = "".join(
        f"<tr><th>{esc(name)}</th><td>{entry['comparisons']}</td><td>{fmt(entry['win_rate'])}{_ci(entry['ci95'])}"
        f"</td><td>{entry['wins']}/{entry['ties']}/{entry['losses']}</td></tr>"
        for name, entry in block["systems"].items()
    )
    return (
        "<table class='meta systems'><tr><th>system</th><th>comparisons</th><th>win rate (95% CI; ties count half)"
        f"</th><th>wins/ties/losses</th></tr>{rows}</table>"
    )


def systems_section(runs: Sequence[Run], ci_method: str = DEFAULT_CI_METHOD) -> str:
    """The runs' systems (records naming which system produced each output), as ``meta-eval --bootstrap``
    computes them (``numbers.systems_rows``): empty when no run names several systems."""
    parts = []
    for run in runs:
        for row in numbers.systems_rows(run, ci_method=ci_method):
            title = f"<h3>{esc(run.label)}: {esc(row['dataset'])}/{esc(row['aspect'])}</h3>"
            if row.get("too_many"):
                parts.append(
                    f"{title}<p class='note'>{row['too_many']:,} systems: too many to compare pair by pair here; "
                    "<code>debate-eval meta-eval --bootstrap 1000 --json</code> gives every pair.</p>"
                )
                continue
            body = _system_level(row["system_level"]) if row["system_level"] else ""
            block = row["systems"]
            if block:
                body += _win_rates(block) if row["pairwise"] else _compared(block)
            parts.append(title + body)
    if not parts:
        return ""
    return (
        "<section id='systems' class='card'><h2>Systems</h2><p class='note'>As <code>debate-eval meta-eval "
        f"--bootstrap</code> computes them: 95% intervals of the means by {esc(ci_method)} bootstrap (items per "
        "system), of the system level by Fisher's z over the systems; below the minimum number of units the text "
        "says why; "
        "pairs: the paired t-test on shared inputs (Welch's where they share none), p two-sided, Holm p "
        "(family-wise) and BH p (Benjamini–Hochberg, false discovery rate) adjusted over every pair of a table."
        "</p>" + "".join(parts) + "</section>"
    )
