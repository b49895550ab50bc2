"""Correlation of predicted with human scores, at the level each dataset is meta-evaluated (Appendix E.5).

- **Group level** (SummEval "summary level", Topical-Chat per context): records are grouped by ``group_id``;
  for every group Spearman ρ, Kendall τ (tau-b) and Pearson r are computed between the predicted and the human
  scores of its items, and each statistic is averaged over the groups. A group is skipped (``n_skipped``)
  when it has fewer than 2 predicted items or when its human or predicted scores are all equal.
  ``n_groups + n_skipped`` is the number of groups.
- **Item level** (FED and xDial-Eval's FED, as the dialogue-evaluation literature does; the user's own data
  without groups): the three statistics over all items with a prediction. ``n_groups``/``n_skipped`` are 0.
- A record whose ``score`` is null is excluded, never imputed, and counted in ``n_missing``. A record without
  a human score is excluded as well and counted in ``n_unrated``. ``n_scored`` counts the items with both.
  A statistic that is undefined is ``None``; the output never holds NaN.
- ``pooled_*`` are always the item-level values over all items, ignoring the groups: the **pooled** definition
  (UniEval's ``correlation.py``, which G-Eval and ChatEval follow for Topical-Chat "turn level"), beside the
  **per-group** one (DEBATE, Appendix E.5: per context / per document, averaged).
- ``ci95`` (when a bootstrap is asked for): 95 % intervals of the reported statistics, resampling groups
  (group level) or items (item level); ``pooled_ci95`` the same for the pooled statistics, resampling groups
  (the items of a context are not independent), for the datasets where a paper reports the pooled numbers
  (Topical-Chat; ``POOLED_DATASETS``), else None. Below the minimum number of units (see :mod:`bootstrap`)
  each holds the text ``"too few groups (n=2)"`` instead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, MIN_UNITS, Intervals, bootstrap_ci
from debate_eval.tasks.analysis.records import (
    RecordLike,
    ScoreRow,
    group_of,
    number,
    resampling_key,
    score_row,
    score_rows,
)

STATISTICS = ("spearman", "kendall", "pearson")
GROUP, ITEM = "group", "item"
# Datasets whose pooled (item-level over all items) correlation a paper reports: they get ``pooled_ci95``.
POOLED_DATASETS = frozenset({"topical_chat"})
# Datasets correlated item by item over all items of a level (the registry's ``level`` says it first).
ITEM_LEVEL_DATASETS = frozenset({"fed_turn", "fed_dialogue", "xdial_fed_turn", "xdial_fed_dialogue"})

Pairs = list[tuple[float, float]]


@dataclass
class AspectReport:
    """Correlation of one dataset/aspect/protocol's predictions with the human scores."""

    dataset: str
    aspect: str
    protocol: str
    spearman: float | None
    kendall: float | None
    pearson: float | None
    pooled_spearman: float | None
    pooled_kendall: float | None
    pooled_pearson: float | None
    n_items: int
    n_missing: int
    n_groups: int
    n_skipped: int
    level: str = GROUP
    ci95: Intervals = field(default=None)
    n_unrated: int = 0
    pooled_ci95: Intervals = field(default=None)
    imported: bool = False  # the records came from ``debate-eval import`` (no paper row unless asked)
    n_scored: int = 0  # items with both a score and a human score: what the figures stand on
    # the systems' mean scores correlated (``systems.system_level``) and compared (``systems.compare_systems``)
    system_level: dict[str, Any] | None = None
    systems: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        """All fields as a plain dict (JSON-serialisable: no NaN)."""
        return asdict(self)


def correlation_level(dataset: str, records: Sequence[RecordLike]) -> str:
    """The level the dataset registry declares (``level``: SummEval/Topical-Chat group, FED item level); for a
    name the registry does not know (the user's own file), ``"item"`` when no group holds two items (records
    without ``group_id``, or each item its own group), else ``"group"``."""
    from debate_eval.tasks.data.registry import all_datasets

    specs = all_datasets()
    spec = specs.get(dataset) or specs.get(dataset.split("-", 1)[0])  # "xdial_fed_turn-german" is a variant
    declared = getattr(spec, "level", None)
    if declared in (GROUP, ITEM):
        return str(declared)
    if dataset in ITEM_LEVEL_DATASETS:
        return ITEM
    if records and all(len(group) == 1 for group in by_group(records).values()):
        return ITEM  # no group holds two items (the user's own file without a group column)
    return GROUP


def pairs(records: Iterable[RecordLike]) -> Pairs:
    """(predicted, human) for the records that have both."""
    both = ((number(row.score), number(row.human_score)) for row in map(score_row, records))
    return [(predicted, human) for predicted, human in both if predicted is not None and human is not None]


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks with ties given their average rank (as ``scipy.stats.rankdata``)."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse]


def _pearson(x: np.ndarray, y: np.ndarray) -> float:
    dx, dy = x - x.mean(), y - y.mean()
    return float((dx * dy).sum() / np.sqrt((dx * dx).sum() * (dy * dy).sum()))


def correlations(values: Pairs) -> dict[str, float] | None:
    """Spearman, Kendall tau-b and Pearson of the pairs, or None where undefined (constant or < 2).

    Pearson and Spearman (Pearson of the average ranks) are computed here with numpy, Kendall's tau-b with
    scipy; the tests check all three against independent formulas.
    """
    if len(values) < 2:
        return None
    array = np.asarray(values, dtype=float)
    predicted, human = array[:, 0], array[:, 1]
    if np.all(predicted == predicted[0]) or np.all(human == human[0]):
        return None
    result = {
        "spearman": _pearson(_average_ranks(predicted), _average_ranks(human)),
        "kendall": float(stats.kendalltau(predicted, human)[0]),
        "pearson": _pearson(predicted, human),
    }
    return result if all(math.isfinite(v) for v in result.values()) else None


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean, or None for no values."""
    return sum(values) / len(values) if values else None


def by_group(records: Iterable[RecordLike]) -> dict[str, list[RecordLike]]:
    """The records per group (see :func:`records.group_of`), in first-seen order."""
    groups: dict[str, list[RecordLike]] = {}
    for record in records:
        groups.setdefault(group_of(record), []).append(record)
    return groups


def average_of_groups(per_group: Sequence[dict[str, float]]) -> dict[str, float | None]:
    """The mean of each statistic over groups with a defined correlation."""
    return {name: mean([values[name] for values in per_group]) for name in STATISTICS}


def _pooled(groups: Sequence[Pairs]) -> dict[str, float] | None:
    """The item-level statistics over every pair of the given groups."""
    return correlations([pair for group in groups for pair in group])


def evaluate_aspect(
    dataset: str,
    aspect: str,
    protocol: str,
    records: Sequence[RecordLike],
    bootstrap: int = 0,
    ci_method: str = DEFAULT_CI_METHOD,
    min_units: int = MIN_UNITS,
) -> AspectReport:
    """The report for one dataset/aspect/protocol's records, with ``bootstrap`` resamples for ``ci95`` (0: none).

    ``ci_method`` (``percentile`` or ``bca``) and ``min_units`` are passed to :func:`bootstrap.bootstrap_ci`.
    """
    rows: list[ScoreRow] = score_rows(records)
    level = correlation_level(dataset, rows)
    item_pairs = pairs(rows)
    overall = correlations(item_pairs) or {}
    options = {"n": bootstrap, "method": ci_method, "min_units": min_units}
    ordered = sorted(rows, key=resampling_key)  # what the resamples are drawn from (the records' order does not matter)
    if level == ITEM:
        ci95 = bootstrap_ci(pairs(ordered), correlations, STATISTICS, unit="items", **options) if bootstrap else None
        figures: dict[str, float | None] = dict(overall)
        counts: dict[str, Any] = dict(n_groups=0, n_skipped=0, ci95=ci95, pooled_ci95=ci95, n_scored=len(item_pairs))
    else:
        group_pairs = [pairs(group) for group in by_group(rows).values()]
        per_group = [correlations(group) for group in group_pairs]
        used = [values for values in per_group if values is not None]
        figures = average_of_groups(used)
        ordered_pairs = [pairs(group) for group in by_group(ordered).values()] if bootstrap else []
        pooled_ci95: Intervals = None
        if bootstrap and dataset in POOLED_DATASETS:
            scored_groups = [group for group in ordered_pairs if group]
            pooled_ci95 = bootstrap_ci(scored_groups, _pooled, STATISTICS, unit="groups", **options)
        resampled = [values for values in map(correlations, ordered_pairs) if values is not None]
        counts = {
            "n_groups": len(used),
            "n_skipped": len(per_group) - len(used),
            "ci95": bootstrap_ci(resampled, average_of_groups, STATISTICS, unit="groups", **options)
            if bootstrap
            else None,
            "pooled_ci95": pooled_ci95,
            "n_scored": sum(len(group) for group in group_pairs),
        }
    return AspectReport(
        dataset,
        aspect,
        protocol,
        *(figures.get(name) for name in STATISTICS),
        *(overall.get(name) for name in STATISTICS),
        n_items=len(rows),
        n_missing=sum(1 for row in rows if number(row.score) is None),
        n_unrated=sum(1 for row in rows if number(row.human_score) is None),
        level=level,
        **counts,
    )
