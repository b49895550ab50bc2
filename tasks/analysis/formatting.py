"""Text and JSON forms of meta-evaluation reports, comparisons and the papers' published tables."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.correlations import ITEM, AspectReport, mean
from debate_eval.tasks.analysis.pairwise_metrics import PairwiseReport
from debate_eval.tasks.analysis.paper_tables import (
    PAPER_STATISTICS,
    PAPER_TABLE1,
    SYMBOLS,
    PublishedTable,
    paper_value,
    published_for,
)
from debate_eval.tasks.analysis.records import DEFAULT_PROTOCOL

Report = dict[str, dict[str, "AspectReport | PairwiseReport"]]

JSON_FIELDS = (
    "spearman",
    "kendall",
    "pearson",
    "global_spearman",
    "global_kendall",
    "global_pearson",
    "n_items",
    "n_missing",
    "n_groups",
    "n_skipped",
    "protocol",
    "level",
    "ci95",
)
PAIRWISE_JSON_FIELDS = (
    "task_type",
    "accuracy",
    "kappa",
    "macro_f1",
    "consistency",
    "agreement",
    "n_items",
    "n_missing",
    "n_unlabelled",
    "n_swapped",
    "n_consistent",
    "protocol",
    "ci95",
)


def format_json(report: Report) -> str:
    """The report as JSON: ``{dataset: {aspect: {statistic: value, counts..., "protocol", "ci95"}}}``."""
    payload = {
        dataset: {
            key: {
                name: getattr(entry, name)
                for name in (PAIRWISE_JSON_FIELDS if isinstance(entry, PairwiseReport) else JSON_FIELDS)
            }
            for key, entry in aspects.items()
        }
        for dataset, aspects in report.items()
    }
    return json.dumps(payload, indent=2, allow_nan=False)


def fmt(value: float | None) -> str:
    """Three decimals, or ``-`` for no value."""
    return "-" if value is None else f"{value:.3f}"


def fmt_interval(interval: Sequence[float] | None) -> str:
    """``[lo, hi]`` with three decimals, or empty."""
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""


def _paper_average(reference: str, dataset: str, aspects: Sequence[str], statistic: str) -> str:
    """The paper's average when all its aspects are present, else ``~`` + the mean of those present."""
    table = PAPER_TABLE1.get(reference, {}).get(dataset, {})
    paper_aspects = {name for name in table if name != "average"}
    if paper_aspects and set(aspects) == paper_aspects:
        return fmt(paper_value(reference, dataset, "average", statistic))
    values = [v for a in aspects if (v := paper_value(reference, dataset, a, statistic)) is not None]
    return "~" + fmt(mean(values)) if values else "-"


def _row(label: str, counts: tuple[int, int, str], measured: list[str], paper: list[str], ci: str) -> str:
    n_items, n_missing, groups = counts
    line = (
        f"{label:<34} {n_items:>6} {n_missing:>7} {groups:>9}   "
        f"{measured[0]:>7} {measured[1]:>7}   {paper[0]:>7} {paper[1]:>7}"
    )
    return f"{line}   {ci}" if ci else line


def _table_row(label: str, entry: AspectReport, pair: tuple[str, str], reference: str) -> str:
    measured = [fmt(getattr(entry, name)) for name in pair]
    paper = [fmt(paper_value(reference, entry.dataset, entry.aspect, name)) for name in pair]
    ci = " ".join(fmt_interval((entry.ci95 or {}).get(name)) for name in pair).strip()
    return _row(label, (entry.n_items, entry.n_missing, f"{entry.n_groups}/{entry.n_skipped}"), measured, paper, ci)


def _average_row(dataset: str, entries: list[AspectReport], pair: tuple[str, str], reference: str) -> str:
    measured = [fmt(mean([v for e in entries if (v := getattr(e, n)) is not None])) for n in pair]
    paper = [_paper_average(reference, dataset, [e.aspect for e in entries], name) for name in pair]
    protocol = entries[0].protocol
    label = f"{dataset}/average" + ("" if protocol == DEFAULT_PROTOCOL else f" [{protocol}]")
    groups = f"{sum(e.n_groups for e in entries)}/{sum(e.n_skipped for e in entries)}"
    counts = (sum(e.n_items for e in entries), sum(e.n_missing for e in entries), groups)
    return _row(label, counts, measured, paper, "")


def _dataset_block(dataset: str, aspects: dict[str, AspectReport], reference: str) -> list[str]:
    pair = PAPER_STATISTICS.get(dataset, ("spearman", "kendall"))
    first, second = SYMBOLS[pair[0]], SYMBOLS[pair[1]]
    levels = {entry.level for entry in aspects.values()}
    level = "item-level" if levels == {ITEM} else "group-level, averaged"
    ci = f"   95% CI {first} / {second}" if any(entry.ci95 for entry in aspects.values()) else ""
    title = f"{dataset} ({level})"
    lines = [f"{title:<34} {'':>6} {'':>7} {'':>9}   {first:>7} {second:>7}   {first:>7} {second:>7}{ci}"]
    by_protocol: dict[str, list[AspectReport]] = {}
    for key, entry in aspects.items():
        lines.append(_table_row(f"{dataset}/{key}", entry, pair, reference))
        by_protocol.setdefault(entry.protocol, []).append(entry)
    for entries in by_protocol.values():
        lines.append(_average_row(dataset, entries, pair, reference))
    return lines


def _pairwise_block(dataset: str, aspects: dict[str, PairwiseReport]) -> list[str]:
    lines = [
        f"{dataset + ' (pairwise, item-level)':<34} {'items':>6} {'missing':>7} "
        f"{'acc':>7} {'kappa':>7} {'macroF1':>7} {'consist':>7} {'agree':>7}   95% CI acc / kappa"
    ]
    for key, entry in aspects.items():
        ci = entry.ci95 or {}
        lines.append(
            f"{dataset + '/' + key:<34} {entry.n_items:>6} {entry.n_missing:>7} {fmt(entry.accuracy):>7} "
            f"{fmt(entry.kappa):>7} {fmt(entry.macro_f1):>7} {fmt(entry.consistency):>7} {fmt(entry.agreement):>7}"
            f"   {fmt_interval(ci.get('accuracy'))} {fmt_interval(ci.get('kappa'))}".rstrip()
        )
    return lines


def format_table(report: Report, reference: str = "DEBATE") -> str:
    """A plain-text table: counts, measured statistics and the DEBATE paper's Table 1 numbers for ``reference``.

    SummEval rows show Spearman rho and Kendall tau, Topical-Chat rows Pearson r and Spearman rho (the
    paper's pairs). "used/skip" counts the groups in the averages and those left out (constant scores or
    fewer than 2 predictions). Paper averages marked ``~`` are means over the aspects present only. With
    bootstrap intervals, each row ends with the 95 % intervals of its two statistics. Pairwise datasets get
    their own block (accuracy, κ, macro-F1, consistency, agreement).
    """
    if reference not in PAPER_TABLE1:
        raise UserError(f"unknown reference {reference!r}; choose one of {', '.join(PAPER_TABLE1)}")
    header = (
        f"{'dataset/aspect':<34} {'items':>6} {'missing':>7} {'used/skip':>9}   "
        f"{'this run':^15}   {'paper ' + reference:^15}"
    )
    single = any(isinstance(e, AspectReport) for aspects in report.values() for e in aspects.values())
    lines = [
        f"Meta-evaluation. 'paper {reference}' = GPT-4 numbers from Table 1 of the DEBATE paper, NOT this run."
        if single or not report
        else "Meta-evaluation (pairwise: agreement of the verdicts with the human labels).",
        header,
    ]
    for dataset, aspects in report.items():
        lines.append("-" * len(header))
        single = {k: e for k, e in aspects.items() if isinstance(e, AspectReport)}
        pairwise = {k: e for k, e in aspects.items() if isinstance(e, PairwiseReport)}
        if single:
            lines.extend(_dataset_block(dataset, single, reference))
        if pairwise:
            lines.extend(_pairwise_block(dataset, pairwise))
    if not report:
        lines.append("(no records)")
    return "\n".join(lines)


def _published_block(table: PublishedTable) -> list[str]:
    aspects: list[str] = []
    for row in table.rows.values():
        aspects += [a for a in row if a not in aspects]
    columns = [f"{a[:12]} {SYMBOLS[s]}" for a in aspects for s in table.statistics]
    width = max(len(c) for c in columns) + 2
    lines = [f"[{table.title()}]", f"  {'evaluator':<30}" + "".join(f"{c:>{width}}" for c in columns)]
    for evaluator, row in table.rows.items():
        cells = [
            "-" if (v := row.get(a, {}).get(s)) is None else f"{v:.{d}f}"
            for a in aspects
            for s, d in zip(table.statistics, table.decimals, strict=True)
        ]
        lines.append(f"  {evaluator:<30}" + "".join(f"{cell:>{width}}" for cell in cells))
    return lines


def format_published(datasets: Sequence[str]) -> str:
    """Each paper's own table for the given datasets, labelled with paper, table, dataset and level."""
    lines = ["Published numbers (from the papers, NOT this run):"]
    found = False
    for dataset in datasets:
        for table in published_for(dataset):
            lines.extend(_published_block(table))
            found = True
    if not found:
        lines.append(f"  (no published table for {', '.join(datasets) or 'these datasets'})")
    return "\n".join(lines)


def format_comparison(comparisons: Sequence[Any], label_a: str, label_b: str, n: int) -> str:
    """The paired-bootstrap comparison as text: per dataset/aspect and statistic, A, B, Δ = B − A, CI, p."""
    lines = [
        f"Paired bootstrap: B - A on the items both runs judged ({n} resamples, fixed seed).",
        f"A = {label_a}",
        f"B = {label_b}",
    ]
    for comparison in comparisons:
        what = {"group": "groups", "item": "items", "pairwise": "items"}[comparison.level]
        lines.append(
            f"{comparison.dataset}/{comparison.aspect}  [{comparison.protocol_a} vs {comparison.protocol_b}]  "
            f"{comparison.n_shared} shared items (only A: {comparison.only_a}, only B: {comparison.only_b}); "
            f"resampling {what}"
        )
        lines.append(f"  {'statistic':<12} {'A':>7} {'B':>7} {'delta':>7}   {'95% CI':<18} {'p':>6}")
        for d in comparison.differences:
            if d.a is None and d.b is None:
                continue  # e.g. consistency of runs without --swap
            p = "-" if d.p_value is None else f"{d.p_value:.3f}"
            if d.p_value == 0.0 and d.n_resamples:
                p = f"<{1 / d.n_resamples:.3g}"  # no resample crossed 0: p is below what n resamples can show
            ci = fmt_interval(d.ci95) or "-"
            lines.append(f"  {d.statistic:<12} {fmt(d.a):>7} {fmt(d.b):>7} {fmt(d.delta):>7}   {ci:<18} {p:>6}")
    if not comparisons:
        lines.append("(the two runs share no dataset/aspect)")
    return "\n".join(lines)


def comparison_json(comparisons: Sequence[Any]) -> str:
    """The comparison as JSON: a list of per dataset/aspect objects."""
    return json.dumps([c.to_dict() for c in comparisons], indent=2, allow_nan=False)
