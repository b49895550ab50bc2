"""Run B against run A on the same data: a truly paired comparison (``debate-eval meta-eval A B --compare``).

Per dataset/aspect that both runs hold, only what *both* runs scored is compared, and the counts say what
was left out and why:

- **Correlations, group level** (SummEval documents, Topical-Chat contexts): the items of a group that both
  runs scored and humans rated; a group counts when both runs' correlations are defined on those items
  (not constant, at least 2); the paired bootstrap resamples those groups. Dropped groups are counted per
  reason (A undefined, B undefined, both).
- **Correlations, item level** (FED, own data without groups): the items both runs scored and humans rated.
- **Pairwise**: the items with a human label. ``missing="wrong"`` (the default) counts a missing verdict
  as a wrong one, so abstaining costs a run what a wrong answer costs (accuracy, agreement, consistency; κ and
  macro-F1 need a class for every verdict and are compared with ``missing="drop"`` only, as a "no verdict"
  class would let abstaining raise κ); ``missing="drop"`` compares the runs only on the items where both gave
  a verdict (every metric). Beside the bootstrap, an exact McNemar test of the paired accuracy (a two-sided
  binomial test on the items exactly one run got right).

- **Pooled** (Topical-Chat, the definition G-Eval and ChatEval report): beside the per-context statistics,
  ``pooled_spearman``/``pooled_kendall``/``pooled_pearson`` over every item both runs scored and humans rated,
  the paired bootstrap resampling the contexts that hold such items.

**p-values.** Each statistic gets the paired bootstrap's p (``p_value``); at group level also the paired t-test
on the per-group differences (``p_ttest``: the reported Δ is their mean), which holds the nominal rate on few
groups where the bootstrap's runs high (``benchmarks/equal_judges.md``). The *reported* p is the t-test's where
there is one, else the bootstrap's; McNemar's for pairwise accuracy besides. **Family**: every reported p and
McNemar p the command prints (all statistics of all dataset/aspects compared) is Holm-adjusted together
(``p_holm``, ``family_size``): read ``p_holm`` when asking whether *any* of the printed differences is real.

Item drop reasons: ``no_human`` (no human score or label), ``no_score_a``, ``no_score_b``, ``no_score_both``
(pairwise: no verdict, with ``missing="drop"``). Below ``MIN_UNITS`` units the interval and every p-value
are the minimum-units text (``"too few groups (n=2)"``), never numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import (
    DEFAULT_CI_METHOD,
    DEFAULT_RESAMPLES,
    MIN_UNITS,
    PairedDifference,
    paired_bootstrap,
    too_few_units,
)
from debate_eval.tasks.analysis.correlations import (
    GROUP,
    ITEM,
    POOLED_DATASETS,
    STATISTICS,
    average_of_groups,
    correlation_level,
    correlations,
)
from debate_eval.tasks.analysis.pairwise_metrics import METRICS, NO_VERDICT, judged, metrics
from debate_eval.tasks.analysis.records import RecordLike, ScoreRow, group_of, number, resampling_key, score_row
from debate_eval.tasks.analysis.system_pairs import holm

POOLED_PREFIX = "pooled_"
MISSING_POLICIES = ("wrong", "drop")
DEFAULT_MISSING = "wrong"
CLASS_METRICS = ("kappa", "macro_f1")  # need a class for every verdict: compared with --missing drop only


@dataclass
class McNemar:
    """Exact McNemar test of paired accuracy: ``a_only`` items only A got right, ``b_only`` only B."""

    a_only: int
    b_only: int
    p_value: float | str | None
    p_holm: float | str | None = None  # Holm-adjusted over the comparison's family

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


@dataclass
class Comparison:
    """Run B against run A on one dataset/aspect: the paired differences of its statistics and the counts.

    ``n_shared``: items both runs hold; ``n_used``: units compared (``unit``: groups or items);
    ``items_used``: items inside them; ``dropped``: reason → count (items, and groups at group level).
    """

    dataset: str
    aspect: str
    protocol_a: str
    protocol_b: str
    level: str  # "group", "item" or "pairwise": what the bootstrap resamples
    n_shared: int
    only_a: int
    only_b: int
    n_used: int = 0
    unit: str = "items"
    items_used: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    missing: str | None = None  # pairwise: "wrong" or "drop"
    missing_counted_wrong: dict[str, int] = field(default_factory=dict)  # pairwise "wrong": per run
    mcnemar: McNemar | None = None
    ci_method: str = DEFAULT_CI_METHOD
    differences: list[PairedDifference] = field(default_factory=list)
    family_size: int = 0  # how many p-values the Holm adjustment ran over (every comparison of the command)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        out = dict(self.__dict__)
        out["differences"] = {d.statistic: d.to_dict() for d in self.differences}
        out["mcnemar"] = self.mcnemar.to_dict() if self.mcnemar else None
        return out


def by_item(records: Iterable[RecordLike], label: str) -> dict[tuple[str, str], dict[str, ScoreRow]]:
    """(dataset, aspect) → item id → record; a run with two protocols on one dataset/aspect is refused."""
    out: dict[tuple[str, str], dict[str, ScoreRow]] = {}
    protocols: dict[tuple[str, str], str] = {}
    for record in records:
        row = score_row(record)
        key = (str(row.dataset), str(row.aspect))
        protocol = row.method
        if protocols.setdefault(key, protocol) != protocol:
            raise UserError(
                f"{label} holds {key[0]}/{key[1]} from two protocols ({protocols[key]}, {protocol}); "
                "--compare needs one protocol per run"
            )
        out.setdefault(key, {})[row.key] = row
    return out


def _score_reason(a: ScoreRow, b: ScoreRow) -> str | None:
    """Why a shared item is left out of a paired comparison of scores, or None when both runs scored it."""
    if number(a.human_score) is None:
        return "no_human"
    missing_a, missing_b = number(a.score) is None, number(b.score) is None
    if missing_a and missing_b:
        return "no_score_both"
    if missing_a:
        return "no_score_a"
    return "no_score_b" if missing_b else None


def _single_units(comparison: Comparison, shared: list[tuple[ScoreRow, ScoreRow]]) -> tuple[list[Any], Any, Any]:
    """Resampling units and the two statistics of a correlation comparison; fills the counts."""
    dropped: Counter[str] = Counter()
    usable = []
    for a, b in shared:
        reason = _score_reason(a, b)
        if reason:
            dropped[reason] += 1
        else:
            usable.append((a, b))
    level = correlation_level(comparison.dataset, [a for a, _ in usable] or [a for a, _ in shared])
    comparison.level = level
    units: list[Any] = []
    if level == ITEM:  # a unit: (score A, score B, human); the statistic: the correlations over the items
        units = [(number(a.score), number(b.score), number(a.human_score)) for a, b in usable]
        comparison.unit, comparison.items_used = "items", len(units)
    else:  # a unit: (A's correlations, B's correlations, items) of a group; the statistic: their average
        groups: dict[str, list[tuple[ScoreRow, ScoreRow]]] = {}
        for a, b in usable:
            groups.setdefault(group_of(a), []).append((a, b))
        for group in groups.values():
            corr_a = correlations([(number(a.score), number(a.human_score)) for a, _ in group])
            corr_b = correlations([(number(b.score), number(a.human_score)) for a, b in group])
            if corr_a is None and corr_b is None:
                dropped["groups_undefined_both"] += 1
            elif corr_a is None:
                dropped["groups_undefined_a"] += 1
            elif corr_b is None:
                dropped["groups_undefined_b"] += 1
            else:
                units.append((corr_a, corr_b, len(group)))
        comparison.unit, comparison.items_used = "groups", sum(size for *_, size in units)
    comparison.n_used, comparison.dropped = len(units), dict(dropped)

    def statistic(side: int) -> Any:
        if level == ITEM:
            return lambda sample: correlations([(u[side], u[2]) for u in sample])
        return lambda sample: average_of_groups([unit[side] for unit in sample])

    return units, statistic(0), statistic(1)


def _pooled_units(shared: list[tuple[ScoreRow, ScoreRow]]) -> list[list[tuple[float, float, float]]]:
    """Per group, (score A, score B, human) of the items both runs scored and humans rated: the units of the
    pooled definition's paired bootstrap (every group with such items, defined per-group correlation or not)."""
    groups: dict[str, list[tuple[float, float, float]]] = {}
    for a, b in shared:
        if _score_reason(a, b) is None:
            groups.setdefault(group_of(a), []).append((number(a.score), number(b.score), number(a.human_score)))  # type: ignore[arg-type]
    return list(groups.values())


def _pooled_stat(side: int) -> Any:
    def values(sample: list[list[tuple[float, float, float]]]) -> dict[str, float] | None:
        found = correlations([(unit[side], unit[2]) for group in sample for unit in group])
        return {f"{POOLED_PREFIX}{name}": value for name, value in found.items()} if found else None

    return values


def paired_t_p(differences: Sequence[float]) -> float | None:
    """Two-sided p of the paired t-test of "mean difference 0" on per-unit differences (scipy's one-sample t
    test); 1 when every difference is 0, 0 when they are all the same other value; None below 2 units."""
    import numpy as np
    from scipy import stats

    if len(differences) < 2:
        return None
    array = np.asarray(differences, dtype=float)
    if np.allclose(array, array[0], rtol=0.0, atol=1e-12):
        return 1.0 if abs(array[0]) <= 1e-12 else 0.0
    return float(stats.ttest_1samp(array, 0.0).pvalue)


def _with_t_tests(differences: list[PairedDifference], units: Sequence[Any], min_units: int) -> list[PairedDifference]:
    """The group-level differences with ``p_ttest``: the paired t-test on the per-group differences B − A of
    each statistic (the reported Δ is their mean); the minimum-units text below ``min_units`` groups."""
    withheld = too_few_units(len(units), "groups", min_units)
    return [
        replace(d, p_ttest=withheld or paired_t_p([b[d.statistic] - a[d.statistic] for a, b, _ in units]))
        for d in differences
    ]


def _verdict(value: Any, missing: str) -> str | None:
    if value is not None:
        return str(value)
    return NO_VERDICT if missing == "wrong" else None


def _pairwise_units(
    comparison: Comparison, shared: list[tuple[ScoreRow, ScoreRow]], missing: str
) -> tuple[list[Any], Any, Any]:
    """Resampling units (items) and the two statistics of a pairwise comparison; fills the counts."""
    dropped: Counter[str] = Counter()
    counted_wrong: Counter[str] = Counter()
    units = []
    for a, b in shared:
        (verdict_a, label, consistent_a), (verdict_b, _, consistent_b) = judged(a), judged(b)
        if label is None:
            dropped["no_human"] += 1
            continue
        if missing == "drop" and (verdict_a is None or verdict_b is None):
            both = verdict_a is None and verdict_b is None
            dropped["no_verdict_both" if both else "no_verdict_a" if verdict_a is None else "no_verdict_b"] += 1
            continue
        counted_wrong["a"] += verdict_a is None
        counted_wrong["b"] += verdict_b is None
        units.append((_verdict(verdict_a, missing), _verdict(verdict_b, missing), label, consistent_a, consistent_b))
    comparison.unit, comparison.n_used, comparison.items_used = "items", len(units), len(units)
    comparison.dropped = dict(dropped)
    comparison.missing = missing
    comparison.missing_counted_wrong = {"a": counted_wrong["a"], "b": counted_wrong["b"]} if missing == "wrong" else {}

    def statistic(side: int) -> Any:
        def values(sample: list[Any]) -> Any:
            out = metrics([(u[side], u[2], u[3 + side]) for u in sample])
            if missing == "wrong":  # a missing verdict has no class: kappa and macro-F1 are not defined
                out.update({name: None for name in CLASS_METRICS})
            return out

        return values

    return units, statistic(0), statistic(1)


def mcnemar(units: Sequence[tuple[Any, ...]], min_units: int = MIN_UNITS) -> McNemar:
    """Exact McNemar test on pairwise units ``(verdict_a, verdict_b, label, ...)``: a two-sided binomial test
    (p = 1/2) on the items exactly one run got right; p 1 when there are none; the minimum-units text below
    ``min_units`` items."""
    from scipy import stats

    a_only = sum(1 for va, vb, label, *_ in units if va == label and vb != label)
    b_only = sum(1 for va, vb, label, *_ in units if vb == label and va != label)
    withheld = too_few_units(len(units), "items", min_units)
    if withheld:
        return McNemar(a_only, b_only, withheld)
    discordant = a_only + b_only
    p = float(stats.binomtest(a_only, discordant, 0.5).pvalue) if discordant else 1.0
    return McNemar(a_only, b_only, min(1.0, p))


def compare_runs(
    records_a: Sequence[RecordLike],
    records_b: Sequence[RecordLike],
    n: int = DEFAULT_RESAMPLES,
    missing: str = DEFAULT_MISSING,
    ci_method: str = DEFAULT_CI_METHOD,
    min_units: int = MIN_UNITS,
) -> list[Comparison]:
    """Paired comparison of B − A per dataset/aspect both runs hold, on what both scored (module docstring).

    ``n`` bootstrap resamples (0: differences only); ``missing`` (pairwise): ``wrong`` or ``drop``;
    ``ci_method``: ``percentile`` or ``bca``; ``min_units``: the minimum-units rule's threshold.
    """
    if missing not in MISSING_POLICIES:
        raise UserError(f"--missing {missing}: choose one of {', '.join(MISSING_POLICIES)}")
    by_a, by_b = by_item(records_a, "RUN_A"), by_item(records_b, "RUN_B")
    comparisons = []
    for key in [k for k in by_a if k in by_b]:
        items_a, items_b = by_a[key], by_b[key]
        shared = [(items_a[i], items_b[i]) for i in items_a if i in items_b]
        comparison = Comparison(
            dataset=key[0],
            aspect=key[1],
            protocol_a=shared[0][0].method if shared else "-",
            protocol_b=shared[0][1].method if shared else "-",
            level="pairwise",
            n_shared=len(shared),
            only_a=len(items_a) - len(shared),
            only_b=len(items_b) - len(shared),
            ci_method=ci_method,
        )
        # the resamples are drawn from the units of the pairs in the canonical order (by group, then item id)
        ordered = sorted(shared, key=lambda pair: resampling_key(pair[0])) if n > 0 else shared
        if any(a.pairwise for a, _ in shared):
            names: Sequence[str] = METRICS
            resampled = _pairwise_units(comparison, ordered, missing)[0]
            units, stat_a, stat_b = _pairwise_units(comparison, shared, missing)
            comparison.mcnemar = mcnemar(units, min_units)
        else:
            names = STATISTICS
            resampled = _single_units(comparison, ordered)[0]
            units, stat_a, stat_b = _single_units(comparison, shared)
        options = {"method": ci_method, "min_units": min_units}
        if units:
            comparison.differences = paired_bootstrap(
                units, stat_a, stat_b, names, n, unit=comparison.unit, resampled=resampled, **options
            )
            if comparison.level == GROUP:
                comparison.differences = _with_t_tests(comparison.differences, units, min_units)
        if comparison.level == GROUP and comparison.dataset in POOLED_DATASETS:
            pooled = _pooled_units(shared)
            if pooled:
                pooled_names = [f"{POOLED_PREFIX}{name}" for name in STATISTICS]
                comparison.differences += paired_bootstrap(
                    pooled,
                    _pooled_stat(0),
                    _pooled_stat(1),
                    pooled_names,
                    n,
                    unit="groups",
                    resampled=_pooled_units(ordered),
                    **options,
                )
        comparisons.append(comparison)
    adjust_family(comparisons)
    return comparisons


def adjust_family(comparisons: Sequence[Comparison]) -> int:
    """Holm-adjust the family of every p-value the comparison prints: one per statistic and dataset/aspect
    (its reported p: the paired t-test's at group level, else the paired bootstrap's) and McNemar's. Sets
    ``p_holm`` (the minimum-units text where the p is withheld, None where there is none) and each comparison's
    ``family_size``; returns the size."""
    slots: list[tuple[Comparison, int | None, float | str | None]] = []
    for comparison in comparisons:
        slots += [(comparison, index, d.p_reported) for index, d in enumerate(comparison.differences)]
        if comparison.mcnemar is not None:
            slots.append((comparison, None, comparison.mcnemar.p_value))
    size = sum(isinstance(p, float) for *_, p in slots)
    for comparison in comparisons:
        comparison.family_size = size
    # holm leaves a withheld (text) or missing p as it is: that is its p_holm
    for (comparison, index, _), value in zip(slots, holm([p for *_, p in slots]), strict=True):
        if index is None:
            comparison.mcnemar.p_holm = value  # type: ignore[union-attr]
        else:
            comparison.differences[index] = replace(comparison.differences[index], p_holm=value)
    return size
