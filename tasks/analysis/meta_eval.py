"""Meta-evaluation of result records: the public entry points (``debate-eval meta-eval`` prints them).

- :func:`meta_evaluate`: per dataset → aspect key, an :class:`AspectReport` (correlations with the human
  scores, see :mod:`correlations`) for single-text records, or a :class:`PairwiseReport` (accuracy, κ,
  macro-F1, consistency, agreement, see :mod:`pairwise_metrics`) for pairwise ones; with ``bootstrap`` > 0,
  each carries ``ci95``.
- :func:`compare_runs`: run B minus run A on the items both share, by a paired bootstrap (:mod:`bootstrap`).

Report keys: dataset → aspect. When the records hold more than one protocol (e.g. ``debate`` and ``geval``
runs given together), the aspects of every protocol other than ``debate`` are keyed ``f"{aspect}[{protocol}]"``,
e.g. ``"coherence[geval]"``; ``debate`` keeps the plain aspect name.

The pieces live in :mod:`records` (loading, validation), :mod:`correlations`, :mod:`pairwise_metrics`,
:mod:`bootstrap`, :mod:`paper_tables`, :mod:`distribution` and :mod:`formatting`; the names other modules
used from this one before the split are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import PairedDifference, paired_bootstrap
from debate_eval.tasks.analysis.correlations import (
    ITEM,
    STATISTICS,
    AspectReport,
    average_of_groups,
    by_group,
    correlation_level,
    correlations,
    evaluate_aspect,
)
from debate_eval.tasks.analysis.distribution import format_distribution, score_bin, score_distribution
from debate_eval.tasks.analysis.pairwise_metrics import METRICS, PairwiseReport, evaluate_pairwise, metrics
from debate_eval.tasks.analysis.paper_tables import PAPER_STATISTICS, PAPER_TABLE1, paper_value
from debate_eval.tasks.analysis.records import (
    DEFAULT_PROTOCOL,
    Record,
    aspect_key,
    is_pairwise,
    keyed_parts,
    load_results,
    number,
    protocol_of,
    record_key,
)

__all__ = [
    "DEFAULT_PROTOCOL",
    "PAPER_STATISTICS",
    "PAPER_TABLE1",
    "AspectReport",
    "Comparison",
    "PairwiseReport",
    "aspect_key",
    "compare_runs",
    "evaluate_aspect",
    "format_distribution",
    "load_results",
    "meta_evaluate",
    "paper_value",
    "protocol_of",
    "record_key",
    "score_bin",
    "score_distribution",
]

Report = dict[str, dict[str, "AspectReport | PairwiseReport"]]


def meta_evaluate(records: Iterable[Record], bootstrap: int = 0) -> Report:
    """dataset → aspect key → report, with ``bootstrap`` resamples for ``ci95`` (0: no intervals).

    A dataset/aspect/protocol whose records are pairwise gets a :class:`PairwiseReport`, else an
    :class:`AspectReport`.
    """
    report: Report = {}
    for dataset, aspects in keyed_parts(records).items():
        for key, ((_, aspect, protocol), part) in aspects.items():
            evaluate = evaluate_pairwise if any(is_pairwise(r) for r in part) else evaluate_aspect
            report.setdefault(dataset, {})[key] = evaluate(dataset, aspect, protocol, part, bootstrap)
    return report


@dataclass
class Comparison:
    """Run B against run A on one dataset/aspect: the paired differences of its statistics."""

    dataset: str
    aspect: str
    protocol_a: str
    protocol_b: str
    level: str  # "group", "item" or "pairwise": what the bootstrap resamples
    n_shared: int
    only_a: int
    only_b: int
    differences: list[PairedDifference] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out = dict(self.__dict__)
        out["differences"] = {d.statistic: d.to_dict() for d in self.differences}
        return out


def _by_item(records: Iterable[Record], label: str) -> dict[tuple[str, str], dict[str, Record]]:
    """(dataset, aspect) → item id → record; a run with two protocols on one dataset/aspect is refused."""
    out: dict[tuple[str, str], dict[str, Record]] = {}
    protocols: dict[tuple[str, str], str] = {}
    for record in records:
        key = (str(record["dataset"]), str(record["aspect"]))
        protocol = protocol_of(record)
        if protocols.setdefault(key, protocol) != protocol:
            raise UserError(
                f"{label} holds {key[0]}/{key[1]} from two protocols ({protocols[key]}, {protocol}); "
                "--compare needs one protocol per run"
            )
        out.setdefault(key, {})[str(record["item_id"])] = record
    return out


def _single_units(shared: list[tuple[Record, Record]], dataset: str) -> tuple[str, list[Any], Any, Any]:
    """Resampling units and the two statistics for a correlation comparison."""
    usable = [
        (a, b)
        for a, b in shared
        if number(a.get("score")) is not None
        and number(b.get("score")) is not None
        and number(a.get("human_score")) is not None
    ]
    level = correlation_level(dataset, [a for a, _ in usable])
    if level == ITEM:
        units = [(number(a["score"]), number(b["score"]), number(a["human_score"])) for a, b in usable]

        def item_stat(side: int) -> Any:
            return lambda sample: correlations([(u[side], u[2]) for u in sample])

        return level, units, item_stat(0), item_stat(1)
    # a group's correlation does not depend on the other groups: compute it once per run, resample the results
    units = []
    for group in by_group([{**a, "_b": b} for a, b in usable]).values():
        humans = [number(r["human_score"]) for r in group]
        scores_a = [number(r["score"]) for r in group]
        scores_b = [number(r["_b"]["score"]) for r in group]
        pairs_a, pairs_b = list(zip(scores_a, humans, strict=True)), list(zip(scores_b, humans, strict=True))
        units.append((correlations(pairs_a), correlations(pairs_b)))

    def group_stat(side: int) -> Any:
        def statistic(sample: list[Any]) -> Any:
            used = [unit[side] for unit in sample if unit[side] is not None]
            return average_of_groups(used) if used else None

        return statistic

    return level, units, group_stat(0), group_stat(1)


def _pairwise_units(shared: list[tuple[Record, Record]]) -> tuple[list[Any], Any, Any]:
    """Resampling units (items) and the two statistics for a pairwise comparison."""
    units = [
        (a.get("verdict"), b.get("verdict"), a.get("human_label"), a.get("consistent"), b.get("consistent"))
        for a, b in shared
    ]

    def stat_a(sample: list[Any]) -> Any:
        return metrics([(u[0], u[2], u[3]) for u in sample])

    def stat_b(sample: list[Any]) -> Any:
        return metrics([(u[1], u[2], u[4]) for u in sample])

    return units, stat_a, stat_b


def compare_runs(records_a: Sequence[Record], records_b: Sequence[Record], n: int = 1000) -> list[Comparison]:
    """Paired bootstrap of B − A per dataset/aspect both runs hold, on the items both judged.

    Correlations resample groups (or items at item level) of the shared items; pairwise metrics resample items.
    """
    by_a, by_b = _by_item(records_a, "RUN_A"), _by_item(records_b, "RUN_B")
    comparisons = []
    for key in [k for k in by_a if k in by_b]:
        items_a, items_b = by_a[key], by_b[key]
        shared_ids = [item for item in items_a if item in items_b]
        shared = [(items_a[i], items_b[i]) for i in shared_ids]
        pairwise = any(is_pairwise(a) for a, _ in shared)
        if pairwise:
            level, names, (units, stat_a, stat_b) = "pairwise", METRICS, _pairwise_units(shared)
        else:
            names = STATISTICS
            level, units, stat_a, stat_b = _single_units(shared, key[0])
        comparisons.append(
            Comparison(
                dataset=key[0],
                aspect=key[1],
                protocol_a=protocol_of(shared[0][0]) if shared else "-",
                protocol_b=protocol_of(shared[0][1]) if shared else "-",
                level=level,
                n_shared=len(shared),
                only_a=len(items_a) - len(shared),
                only_b=len(items_b) - len(shared),
                differences=paired_bootstrap(units, stat_a, stat_b, names, n) if shared else [],
            )
        )
    return comparisons
