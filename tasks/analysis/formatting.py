"""Text and JSON forms of meta-evaluation reports, comparisons and the papers' published tables.

An interval or p-value withheld by the minimum-units rule (see :mod:`bootstrap`) is printed as its text,
``too few groups (n=2)``, in the table, the comparison and the JSON, never as a number.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import is_withheld
from debate_eval.tasks.analysis.correlations import ITEM, POOLED_DATASETS, STATISTICS, AspectReport, mean
from debate_eval.tasks.analysis.judgebench import judgebench_lines
from debate_eval.tasks.analysis.meta_eval import Report
from debate_eval.tasks.analysis.pairwise_metrics import METRICS, PairwiseReport
from debate_eval.tasks.analysis.paper_tables import (
    DEFINITION_STATISTICS,
    DEFINITIONS,
    ITEM_LEVEL,
    PAIRWISE,
    PAPER_STATISTICS,
    PER_GROUP,
    POOLED,
    SYMBOLS,
    PublishedTable,
    published_for,
)
from debate_eval.tasks.analysis.records import DEFAULT_PROTOCOL
from debate_eval.tasks.analysis.references import REFERENCE_NAMES, Reference, no_reference_reason, reference_for
from debate_eval.tasks.analysis.systems import comparison_lines, system_level_lines, win_rate_lines

SYSTEM_FIELDS = ("system_level", "systems")
# The fields of a part in the JSON, in this order (AspectReport's and PairwiseReport's names).
FIGURES = (*STATISTICS, *(f"pooled_{name}" for name in STATISTICS))
COUNTS = ("n_items", "n_missing", "n_unrated", "n_groups", "n_skipped")
JSON_FIELDS = (*FIGURES, *COUNTS, "protocol", "level", "ci95", "pooled_ci95", *SYSTEM_FIELDS)
PAIRWISE_COLUMNS = METRICS
PAIRWISE_COUNTS = ("n_items", "n_missing", "n_unlabelled", "n_swapped", "n_consistent")
PAIRWISE_JSON_FIELDS = ("task_type", *METRICS, *PAIRWISE_COUNTS, "protocol", "ci95", "systems", "judgebench")
OPTIONAL_FIELDS = (*SYSTEM_FIELDS, "judgebench")  # left out of the JSON when absent
LABEL_WIDTH = 38


def check_reference(reference: str | None) -> None:
    """A ``UserError`` for a reference name that is not one of :data:`references.REFERENCE_NAMES`."""
    if reference is not None and reference not in REFERENCE_NAMES:
        raise UserError(f"unknown reference {reference!r}; choose one of {', '.join(REFERENCE_NAMES)}")


def definitions_of(dataset: str, entry: AspectReport | PairwiseReport) -> list[str]:
    """The definitions a part is reported under: ``pairwise``; ``item``; ``per-group``, and ``pooled`` where a
    paper uses the pooled one for the dataset (Topical-Chat)."""
    if isinstance(entry, PairwiseReport):
        return [PAIRWISE]
    if entry.level == ITEM:
        return [ITEM_LEVEL]
    return [PER_GROUP, POOLED] if dataset in POOLED_DATASETS else [PER_GROUP]


def entry_reference(
    dataset: str, entry: AspectReport | PairwiseReport, definition: str, asked: str | None
) -> Reference | None:
    """The published row beside a part (:func:`references.reference_for`)."""
    return reference_for(entry.protocol, dataset, definition, imported=entry.imported, asked=asked)


def format_json(report: Report, reference: str | None = None) -> str:
    """The report as JSON: ``{dataset: {aspect: {statistic: value, counts..., "protocol", "ci95", "paper"}}}``,
    plus ``system_level`` and ``systems`` when the records name several systems (:mod:`systems`), and
    ``judgebench`` for records of JudgeBench pairs (:mod:`judgebench`).

    ``paper`` maps each definition the part is reported under to the published row beside it (paper, table,
    row, note, values) or null.
    """
    check_reference(reference)
    payload: dict[str, Any] = {}
    for dataset, aspects in report.items():
        for key, entry in aspects.items():
            fields = PAIRWISE_JSON_FIELDS if isinstance(entry, PairwiseReport) else JSON_FIELDS
            out = {name: getattr(entry, name) for name in fields}
            for name in OPTIONAL_FIELDS:  # present when the records name systems (systems.py) or are JudgeBench's
                if out.get(name) is None:
                    out.pop(name, None)
            out["paper"] = {}
            for definition in definitions_of(dataset, entry):
                found = entry_reference(dataset, entry, definition, reference)
                out["paper"][definition] = found.to_dict(entry.aspect) if found else None
            payload.setdefault(dataset, {})[key] = out
    return json.dumps(payload, indent=2, allow_nan=False)


def fmt(value: float | None) -> str:
    """Three decimals, or ``-`` for no value."""
    return "-" if value is None else f"{value:.3f}"


def fmt_interval(interval: Sequence[float] | str | None) -> str:
    """``[lo, hi]`` with three decimals, the minimum-units text as it is, or empty."""
    if is_withheld(interval):
        return str(interval)
    return f"[{interval[0]:.3f}, {interval[1]:.3f}]" if interval else ""  # type: ignore[index]


def _intervals_text(intervals: dict[str, Any] | str | None, names: Sequence[str]) -> str:
    """The intervals of ``names``, or once the minimum-units text."""
    if is_withheld(intervals):
        return str(intervals)
    if not intervals:
        return ""
    return " ".join(fmt_interval((intervals or {}).get(name)) or "-" for name in names).strip()  # type: ignore[union-attr]


def _measured(entry: AspectReport, definition: str, statistic: str) -> float | None:
    return getattr(entry, f"pooled_{statistic}" if definition == POOLED else statistic)


def _row(
    label: str, entries: list[AspectReport], definition: str, measured: list[str], paper: list[str], ci: str
) -> str:
    """One line of the table, its counts summed over ``entries`` (one aspect, or the aspects of an average)."""
    n_groups, n_skipped = sum(e.n_groups for e in entries), sum(e.n_skipped for e in entries)
    line = (
        f"{label:<{LABEL_WIDTH}} {sum(e.n_items for e in entries):>6} {sum(e.n_missing for e in entries):>7} "
        f"{sum(e.n_unrated for e in entries):>7} {f'{n_groups}/{n_skipped}' if definition == PER_GROUP else '-':>9}   "
        f"{measured[0]:>7} {measured[1]:>7}   {paper[0]:>7} {paper[1]:>7}"
    )
    return f"{line}   {ci}" if ci else line


def _table_row(
    label: str, entry: AspectReport, pair: tuple[str, str], definition: str, reference: Reference | None
) -> str:
    measured = [fmt(_measured(entry, definition, name)) for name in pair]
    paper = [fmt(reference.value(entry.aspect, name) if reference else None) for name in pair]
    intervals = entry.pooled_ci95 if definition == POOLED else entry.ci95
    return _row(label, [entry], definition, measured, paper, _intervals_text(intervals, pair))


def _average_cells(
    entries: list[AspectReport], statistic: str, definition: str, reference: Reference | None
) -> tuple[str, str, int]:
    """(measured average, paper average, aspects averaged): both sides over the aspects with a measured value;
    the paper's own average only when those are all of the paper's aspects, else ``~`` + the mean of the
    paper's numbers for them."""
    present = [(e.aspect, v) for e in entries if (v := _measured(e, definition, statistic)) is not None]
    measured = fmt(mean([v for _, v in present]))
    if reference is None or not present:
        return measured, "-", len(present)
    paper_aspects = {a for a in reference.values if a != "average"}
    if {a for a, _ in present} == paper_aspects:
        return measured, fmt(reference.value("average", statistic)), len(present)
    values = [reference.value(a, statistic) for a, _ in present]
    known = [v for v in values if v is not None]
    return measured, ("~" + fmt(mean(known)) if len(known) == len(values) else "-"), len(present)


def _average_row(
    dataset: str, entries: list[AspectReport], pair: tuple[str, str], definition: str, reference: Reference | None
) -> str:
    cells = [_average_cells(entries, name, definition, reference) for name in pair]
    protocol = entries[0].protocol
    label = f"{dataset}/average" + ("" if protocol == DEFAULT_PROTOCOL else f" [{protocol}]")
    counted = min(count for *_, count in cells)
    if counted < len(entries):
        label += f" ({counted} of {len(entries)})"
    return _row(label, entries, definition, [c[0] for c in cells], [c[1] for c in cells], "")


def _reference_lines(
    dataset: str, entries: list[AspectReport | PairwiseReport], definition: str, asked: str | None
) -> list[str]:
    lines = []
    for protocol in dict.fromkeys(e.protocol for e in entries):
        entry = next(e for e in entries if e.protocol == protocol)
        found = entry_reference(dataset, entry, definition, asked)
        if found:
            lines.append(f"  paper for [{protocol}]: {found.label()}, NOT this run")
            if found.note:
                lines.append(f"    note: {found.note}")
        else:
            reason = (
                "not asked (--reference none)"
                if asked == "none"
                else no_reference_reason(protocol, dataset, entry.imported)
            )
            lines.append(f"  paper for [{protocol}]: none ({reason})")
    return lines


def _definition_title(dataset: str, definition: str) -> str:
    if definition == ITEM_LEVEL:
        return f"{dataset}: item level (over all items)"
    return f"{dataset}: " + DEFINITIONS.get(dataset, {}).get(
        definition, "per group, averaged" if definition == PER_GROUP else "pooled over all items"
    )


def _dataset_block(dataset: str, aspects: dict[str, AspectReport], definition: str, asked: str | None) -> list[str]:
    pair = DEFINITION_STATISTICS.get((dataset, definition), PAPER_STATISTICS.get(dataset, ("spearman", "kendall")))
    first, second = SYMBOLS[pair[0]], SYMBOLS[pair[1]]
    entries = list(aspects.values())
    ci = f"   95% CI {first} / {second}" if any(e.ci95 for e in entries) else ""
    lines = [_definition_title(dataset, definition)]
    lines += _reference_lines(dataset, entries, definition, asked)  # type: ignore[arg-type]
    lines.append(
        f"{'':<{LABEL_WIDTH}} {'':>6} {'':>7} {'':>7} {'':>9}   {first:>7} {second:>7}   {first:>7} {second:>7}{ci}"
    )
    suffix = " (pooled)" if definition == POOLED else ""
    by_protocol: dict[str, list[AspectReport]] = {}
    for key, entry in aspects.items():
        reference = entry_reference(dataset, entry, definition, asked)
        lines.append(_table_row(f"{dataset}/{key}{suffix}", entry, pair, definition, reference))
        by_protocol.setdefault(entry.protocol, []).append(entry)
    for group in by_protocol.values():
        reference = entry_reference(dataset, group[0], definition, asked)
        lines.append(_average_row(dataset, group, pair, definition, reference))
    return lines


def _pairwise_block(dataset: str, aspects: dict[str, PairwiseReport], asked: str | None) -> list[str]:
    entries = list(aspects.values())
    lines = [f"{dataset}: pairwise, item level (verdicts against the human labels)"]
    lines += _reference_lines(dataset, entries, PAIRWISE, asked)  # type: ignore[arg-type]
    lines.append(
        f"{'dataset/aspect':<{LABEL_WIDTH}} {'items':>6} {'missing':>7} {'unlab.':>7} "
        f"{'acc':>7} {'kappa':>7} {'macroF1':>7} {'consist':>7} {'agree':>7}   95% CI acc / kappa"
    )
    for key, entry in aspects.items():
        values = " ".join(f"{fmt(getattr(entry, name)):>7}" for name in PAIRWISE_COLUMNS)
        ci = _intervals_text(entry.ci95, ("accuracy", "kappa")) if entry.ci95 else ""
        lines.append(
            f"{dataset + '/' + key:<{LABEL_WIDTH}} {entry.n_items:>6} {entry.n_missing:>7} {entry.n_unlabelled:>7} "
            f"{values}   {ci}".rstrip()
        )
        reference = entry_reference(dataset, entry, PAIRWISE, asked)
        if reference:
            paper = " ".join(f"{fmt(reference.value(entry.aspect, name)):>7}" for name in PAIRWISE_COLUMNS)
            lines.append(f"{'  paper (not this run)':<{LABEL_WIDTH}} {'':>6} {'':>7} {'':>7} {paper}")
        lines += _as_published(dataset, entry)
    return lines


def _as_published(dataset: str, entry: PairwiseReport) -> list[str]:
    """This run's accuracy and kappa again in the units of the paper table that reports them on ``dataset``
    (ChatEval's Table 1 on FairEval: Acc. in %, one decimal; Kap., two decimals)."""
    lines = []
    for table in published_for(dataset, PAIRWISE):
        if table.statistics != ("accuracy", "kappa") or entry.accuracy is None:
            continue
        kappa = "-" if entry.kappa is None else f"{entry.kappa:.{table.decimals[1]}f}"
        lines.append(
            f"  as in {table.paper}, {table.table}: Acc. (%) {100 * entry.accuracy:.{table.decimals[0]}f}, "
            f"Kap. {kappa} (this run, {entry.n_items - entry.n_missing - entry.n_unlabelled} items)"
        )
    return lines


def format_table(report: Report, reference: str | None = None) -> str:
    """A plain-text table: counts, measured statistics and, beside them, a published row chosen per method,
    dataset and definition (:func:`references.reference_for`; ``reference`` asks for one by name).

    Columns: items, missing (no score), unrated (no human score), groups used/skipped, the two statistics of
    the definition (SummEval ρ/τ; Topical-Chat per-context r/ρ, pooled ρ/τ), the paper's two numbers and the
    95 % intervals (or the minimum-units text). Topical-Chat is shown under both definitions. The average
    row averages the aspects with a value and sets beside it the paper's average of the same aspects
    (``~``: the mean of the paper's numbers for them, when they are not all of the paper's aspects).
    Pairwise datasets get their own block (accuracy, κ, macro-F1, consistency, agreement).
    """
    check_reference(reference)
    header = (
        f"{'dataset/aspect':<{LABEL_WIDTH}} {'items':>6} {'missing':>7} {'unrated':>7} {'used/skip':>9}   "
        f"{'this run':^15}   {'paper':^15}"
    )
    lines = [
        "Meta-evaluation: agreement with the human ratings. 'paper' = the published row named in each block, "
        "NOT this run."
    ]
    single_any = any(isinstance(e, AspectReport) for aspects in report.values() for e in aspects.values())
    if single_any:
        lines.append(header)
    for dataset, aspects in report.items():
        single = {k: e for k, e in aspects.items() if isinstance(e, AspectReport)}
        pairwise = {k: e for k, e in aspects.items() if isinstance(e, PairwiseReport)}
        if single:
            for definition in definitions_of(dataset, next(iter(single.values()))):
                lines.append("-" * len(header))
                lines.extend(_dataset_block(dataset, single, definition, reference))
        if pairwise:
            lines.append("-" * len(header))
            lines.extend(_pairwise_block(dataset, pairwise, reference))
    if not report:
        lines.append("(no records)")
    return "\n".join(lines + _systems_and_judgebench_blocks(report))


def _systems_and_judgebench_blocks(report: Report) -> list[str]:
    """The systems' lines (:mod:`systems`: system-level correlation, per-system means and pairs, win rates),
    then JudgeBench's own figures for runs on JudgeBench pairs (:mod:`judgebench`)."""
    systems: list[str] = []
    judgebench: list[str] = []
    for dataset, aspects in report.items():
        for key, entry in aspects.items():
            label = f"{dataset}/{key}"
            if isinstance(entry, PairwiseReport):
                systems += win_rate_lines(label, entry.systems)
                judgebench += judgebench_lines(label, entry.judgebench)
            else:
                systems += system_level_lines(label, entry.system_level)
                systems += comparison_lines(label, entry.systems)
    return (["", "Systems", *systems] if systems else []) + (["", "JudgeBench", *judgebench] if judgebench else [])


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
    """Each paper's own table for the given datasets, grouped by definition (per-group, pooled, pairwise) and
    labelled with paper, table, dataset and level, so each stands beside the matching block of the table."""
    lines = ["Published numbers (from the papers, NOT this run):"]
    found = False
    for dataset in datasets:
        for definition in (PER_GROUP, POOLED, ITEM_LEVEL, PAIRWISE):
            tables = published_for(dataset, definition)
            if not tables:
                continue
            lines.append(_definition_title(dataset, definition) if definition != PAIRWISE else f"{dataset}: pairwise")
            for table in tables:
                lines.extend(_published_block(table))
            found = True
    if not found:
        lines.append(f"  (no published table for {', '.join(datasets) or 'these datasets'})")
    return "\n".join(lines)


def fmt_pvalue(p: float | str | None) -> str:
    """A p-value as text: the minimum-units text as it is, ``-`` for none, three decimals from 0.001, below
    that two significant digits in scientific form (``6.1e-05``), ``<1e-15`` for what is 0 in floating point."""
    if p is None:
        return "-"
    if is_withheld(p):
        return str(p)
    if p >= 0.001:
        return f"{p:.3f}"
    return f"{p:.1e}" if p >= 1e-15 else "<1e-15"


def fmt_p(difference: Any) -> str:
    """The paired bootstrap's p: the minimum-units text, ``<=`` the smallest p the resamples can show, or as
    :func:`fmt_pvalue`."""
    p = difference.p_value
    if isinstance(p, float) and getattr(difference, "p_at_floor", False):
        return f"<={p:.3g}"
    return fmt_pvalue(p)


def _dropped_text(comparison: Any) -> str:
    names = {
        "no_human": "no human rating",
        "no_score_a": "no score in A",
        "no_score_b": "no score in B",
        "no_score_both": "no score in either",
        "no_verdict_a": "no verdict in A",
        "no_verdict_b": "no verdict in B",
        "no_verdict_both": "no verdict in either",
        "groups_undefined_a": "groups where A's correlation is undefined",
        "groups_undefined_b": "groups where B's correlation is undefined",
        "groups_undefined_both": "groups where both are undefined",
    }
    parts = [f"{names.get(k, k)} {v}" for k, v in comparison.dropped.items() if v]
    return "; ".join(parts) or "nothing"


def format_comparison(comparisons: Sequence[Any], label_a: str, label_b: str, n: int) -> str:
    """The paired comparison as text: per dataset/aspect the counts (shared, used, dropped per reason) and per
    statistic A, B, Δ = B − A, the 95 % interval and p (or the minimum-units text); McNemar for pairwise."""
    method = comparisons[0].ci_method if comparisons else "percentile"
    lines = [
        f"Paired comparison: B - A on what both runs scored ({n} bootstrap resamples, {method} interval, fixed seed).",
        f"A = {label_a}",
        f"B = {label_b}",
    ]
    for comparison in comparisons:
        lines.append(
            f"{comparison.dataset}/{comparison.aspect}  [{comparison.protocol_a} vs {comparison.protocol_b}]  "
            f"{comparison.n_shared} items in both runs (only A: {comparison.only_a}, only B: {comparison.only_b})"
        )
        used = f"{comparison.n_used} {comparison.unit}"
        if comparison.unit == "groups":
            used += f" ({comparison.items_used} items)"
        lines.append(f"  used: {used}; left out: {_dropped_text(comparison)}; resampling {comparison.unit}")
        if comparison.missing == "wrong":
            wrong = comparison.missing_counted_wrong
            counts = f"A: {wrong.get('a', 0)}, B: {wrong.get('b', 0)}"
            lines.append(
                f"  --missing wrong: a missing verdict counts as wrong ({counts}); kappa and macro-F1 only with "
                "--missing drop"
            )
        elif comparison.missing == "drop":
            lines.append("  --missing drop: items without a verdict in either run are left out")
        lines.append(
            f"  {'statistic':<12} {'A':>7} {'B':>7} {'delta':>7}   {'95% CI':<22} {'p boot':>9} {'p t':>9} "
            f"{'p Holm':>9}"
        )
        pooled_heading = False
        for d in comparison.differences:
            if d.a is None and d.b is None:
                continue  # e.g. consistency of runs without --swap
            name = d.statistic
            if name.startswith("pooled_"):
                name = name.removeprefix("pooled_")
                if not pooled_heading:
                    lines.append(
                        f"  pooled over all items (as G-Eval and ChatEval report; resampling {d.n_units} groups):"
                    )
                    pooled_heading = True
            ci = fmt_interval(d.ci95) or "-"
            lines.append(
                f"  {name:<12} {fmt(d.a):>7} {fmt(d.b):>7} {fmt(d.delta):>7}   {ci:<22} {fmt_p(d):>9} "
                f"{fmt_pvalue(d.p_ttest):>9} {fmt_pvalue(d.p_holm):>9}"
            )
        if comparison.mcnemar is not None:
            m = comparison.mcnemar
            lines.append(
                f"  McNemar (exact, paired accuracy): only A right {m.a_only}, only B right {m.b_only}, "
                f"p {fmt_pvalue(m.p_value)}, Holm {fmt_pvalue(m.p_holm)}"
            )
        if not comparison.differences:
            lines.append("  (nothing both runs scored)")
    if not comparisons:
        lines.append("(the two runs share no dataset/aspect)")
    else:
        size = comparisons[0].family_size
        lines.append(
            f"p boot: paired bootstrap; p t: paired t-test on the per-group differences (group level; the reported "
            f"p where given, else p boot). p Holm: the reported p (and McNemar's), Holm-adjusted over the family of "
            f"all {size} printed above: read it when asking whether any of these differences is real."
        )
    return "\n".join(lines)


def comparison_json(comparisons: Sequence[Any]) -> str:
    """The comparison as JSON: a list of per dataset/aspect objects."""
    return json.dumps([c.to_dict() for c in comparisons], indent=2, allow_nan=False)
