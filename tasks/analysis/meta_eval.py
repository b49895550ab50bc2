"""Meta-evaluation of result records: the public entry points (``debate-eval meta-eval`` prints them).

- :func:`meta_evaluate`: per dataset → aspect key, an :class:`AspectReport` (correlations with the human
  scores, see :mod:`correlations`) for single-text records, or a :class:`PairwiseReport` (accuracy, κ,
  macro-F1, consistency, agreement, see :mod:`pairwise_metrics`) for pairwise ones; with ``bootstrap`` > 0,
  each carries ``ci95``.
- :func:`compare_runs`: run B minus run A on what both runs scored, by a paired bootstrap (:mod:`compare`).

Report keys: dataset → aspect. When the records hold more than one protocol (e.g. ``debate`` and ``geval``
runs given together), the aspects of every protocol other than ``debate`` are keyed ``f"{aspect}[{protocol}]"``,
e.g. ``"coherence[geval]"``; ``debate`` keeps the plain aspect name.

The pieces live in :mod:`records` (loading, validation), :mod:`correlations`, :mod:`pairwise_metrics`,
:mod:`bootstrap`, :mod:`compare`, :mod:`paper_tables`, :mod:`references`, :mod:`gates`, :mod:`distribution`
and :mod:`formatting`; the names other modules used from this one before the split are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable

from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, MIN_UNITS
from debate_eval.tasks.analysis.compare import Comparison, compare_runs
from debate_eval.tasks.analysis.correlations import AspectReport, evaluate_aspect
from debate_eval.tasks.analysis.distribution import score_bin
from debate_eval.tasks.analysis.judgebench import judgebench_figures
from debate_eval.tasks.analysis.pairwise_metrics import PairwiseReport, evaluate_pairwise
from debate_eval.tasks.analysis.paper_tables import paper_value
from debate_eval.tasks.analysis.records import RecordLike, keyed_parts, load_results
from debate_eval.tasks.analysis.references import is_imported
from debate_eval.tasks.analysis.systems import compare_systems, system_level, win_rates

__all__ = [
    "AspectReport",
    "Comparison",
    "PairwiseReport",
    "compare_runs",
    "load_results",
    "meta_evaluate",
    "paper_value",
    "score_bin",
]

Report = dict[str, dict[str, "AspectReport | PairwiseReport"]]


def meta_evaluate(
    records: Iterable[RecordLike], bootstrap: int = 0, ci_method: str = DEFAULT_CI_METHOD, min_units: int = MIN_UNITS
) -> Report:
    """dataset → aspect key → report, with ``bootstrap`` resamples for ``ci95`` (0: no intervals).

    A dataset/aspect/protocol whose records are pairwise gets a :class:`PairwiseReport`, else an
    :class:`AspectReport`; ``imported`` is set when its records came from ``debate-eval import``.
    ``ci_method`` (``percentile`` or ``bca``) and ``min_units`` are the bootstrap's (see :mod:`bootstrap`).
    Records of several systems (:mod:`systems`) add ``system_level`` (the systems' mean scores correlated with
    their mean human scores) and ``systems`` (per system: mean, interval, PPI estimate; pairs: paired
    difference, p, wins/ties/losses) to an :class:`AspectReport`, and ``systems`` (win rates) to a
    :class:`PairwiseReport`.
    """
    report: Report = {}
    for dataset, aspects in keyed_parts(records).items():
        for key, ((_, aspect, protocol), part) in aspects.items():
            evaluate = evaluate_pairwise if any(row.pairwise for row in part) else evaluate_aspect
            entry = evaluate(dataset, aspect, protocol, part, bootstrap, ci_method=ci_method, min_units=min_units)
            entry.imported = is_imported(part)
            options = {"bootstrap": bootstrap, "ci_method": ci_method, "min_units": min_units}
            if isinstance(entry, PairwiseReport):
                entry.systems = win_rates(part, **options)
                entry.judgebench = judgebench_figures(part)
            else:
                entry.system_level = system_level(part, **options)
                entry.systems = compare_systems(part, **options, family=f"{dataset}/{key}")
            report.setdefault(dataset, {})[key] = entry
    return report
