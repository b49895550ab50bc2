"""The paired comparison (``--compare``) on issue 22's constructed cases, its counts, McNemar and --missing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from analysis_factories import group, rec
from constructed_cases import copy_and_abstain, identical_plus_constant, small_gain

from debate_eval.tasks.analysis.bootstrap import SEED, percentile_interval
from debate_eval.tasks.analysis.compare import compare_runs, mcnemar
from debate_eval.tasks.analysis.correlations import by_group, correlations, pairs


def _difference(comparison: Any, statistic: str) -> Any:
    return next(d for d in comparison.differences if d.statistic == statistic)


def _unpaired_group_bootstrap(run_a: list[dict], run_b: list[dict], n: int = 1000) -> tuple[float, list[float]]:
    """The comparison before issue 22, written out independently: per group each run's own correlation (None
    where undefined), each side averaging only its defined groups, groups resampled together."""
    b_by_id = {r["item_id"]: r for r in run_b}
    units = []
    for records in by_group(run_a).values():
        mine = correlations(pairs(records))
        theirs = correlations(pairs([b_by_id[r["item_id"]] for r in records]))
        units.append((mine and mine["spearman"], theirs and theirs["spearman"]))

    def average(sample: list[tuple[Any, Any]], side: int) -> float:
        values = [unit[side] for unit in sample if unit[side] is not None]
        return sum(values) / len(values)

    deltas = [
        average([units[i] for i in row], 1) - average([units[i] for i in row], 0)
        for row in np.random.default_rng(SEED).integers(0, len(units), size=(n, len(units)))
    ]
    return average(units, 1) - average(units, 0), percentile_interval(deltas)


def test_copy_and_abstain_is_never_better() -> None:
    run_a, run_b = copy_and_abstain()
    (wrong,) = compare_runs(run_a, run_b)  # default: a missing verdict counts as wrong
    accuracy = _difference(wrong, "accuracy")
    assert (accuracy.a, accuracy.b, accuracy.delta) == (0.75, 0.75, 0.0)  # before issue 22: B 1.000, delta +0.250
    assert accuracy.ci95 == [0.0, 0.0] and accuracy.p_value == 1.0
    assert (wrong.n_shared, wrong.n_used, wrong.missing_counted_wrong) == (80, 80, {"a": 0, "b": 20})
    assert _difference(wrong, "kappa").delta is None  # kappa needs a class for every verdict: --missing drop
    assert (wrong.mcnemar.a_only, wrong.mcnemar.b_only, wrong.mcnemar.p_value) == (0, 0, 1.0)
    (drop,) = compare_runs(run_a, run_b, missing="drop")
    assert (drop.n_used, drop.dropped) == (60, {"no_verdict_b": 20})
    for statistic in ("accuracy", "kappa", "macro_f1"):
        assert _difference(drop, statistic).delta == 0.0, statistic


def test_identical_plus_constant_groups_differ_by_zero() -> None:
    run_a, run_b = identical_plus_constant()
    before, _ = _unpaired_group_bootstrap(run_a, run_b)
    assert before > 0.1  # the unpaired comparison found B better (+0.116 on these files)
    (comparison,) = compare_runs(run_a, run_b)
    assert comparison.level == "group" and comparison.unit == "groups"
    assert (comparison.n_shared, comparison.n_used, comparison.items_used) == (1600, 67, 1072)
    assert comparison.dropped == {"groups_undefined_b": 33}
    for statistic in ("spearman", "kendall", "pearson"):
        difference = _difference(comparison, statistic)
        assert (difference.delta, difference.ci95, difference.p_value) == (0.0, [0.0, 0.0], 1.0), statistic


def test_small_gain_keeps_the_same_delta_and_interval() -> None:
    run_a, run_b = small_gain()
    before_delta, before_ci = _unpaired_group_bootstrap(run_a, run_b)
    (comparison,) = compare_runs(run_a, run_b)
    spearman = _difference(comparison, "spearman")
    assert comparison.n_used == 100 and comparison.dropped == {}
    assert spearman.delta == pytest.approx(before_delta, abs=1e-12)
    assert spearman.ci95 == pytest.approx(before_ci, abs=1e-12)
    # as printed before issue 22: 0.018 [0.004, 0.037], p 0.020; p is now 2 (k + 1) / (B + 1)
    assert (round(spearman.delta, 3), [round(v, 3) for v in spearman.ci95]) == (0.018, [0.004, 0.037])
    assert spearman.p_value == pytest.approx(2 * 11 / 1001)


def test_items_inside_a_group_are_paired_and_drops_counted_per_reason() -> None:
    humans = [1, 2, 3, 4, 5]
    run_a = [r for d in range(12) for r in group(f"d{d}", humans, [1, 2, 3, 5, 4])]
    run_b = [r for d in range(12) for r in group(f"d{d}", humans, [1, 2, 3, 4, 5])]
    run_a[0]["score"] = None  # d0: A has no score for one summary, B does
    run_b[6]["score"] = None  # d1: B has none
    run_a[11]["score"] = run_b[11]["score"] = None  # d2: neither
    run_a[12]["human_score"] = run_b[12]["human_score"] = None  # d2: no human score
    run_a.append(rec("extra", "d99", 1, 1))  # only in A
    (comparison,) = compare_runs(run_a, run_b, n=200)
    assert (comparison.n_shared, comparison.only_a, comparison.only_b) == (60, 1, 0)
    assert comparison.dropped == {"no_score_a": 1, "no_score_b": 1, "no_score_both": 1, "no_human": 1}
    assert (comparison.n_used, comparison.items_used) == (12, 56)
    # both runs on the same items of each group: A's rho is 0.8 on d0 and d1 (4 shared summaries each), 0.5 on
    # d2 (3), 0.9 on the 9 complete documents; unpaired, A would keep all 5 summaries of d1 (0.9)
    spearman = _difference(comparison, "spearman")
    assert spearman.a == pytest.approx((0.8 + 0.8 + 0.5 + 9 * 0.9) / 12) and spearman.b == pytest.approx(1.0)


def test_below_ten_groups_the_comparison_gives_no_interval_or_p() -> None:
    run_a = [r for d in range(2) for r in group(f"d{d}", [1, 2, 3, 4], [1, 3, 2, 4])]
    run_b = [r for d in range(2) for r in group(f"d{d}", [1, 2, 3, 4], [1, 2, 3, 4])]
    (comparison,) = compare_runs(run_a, run_b)
    for difference in comparison.differences:
        assert difference.delta is not None
        assert (difference.ci95, difference.p_value) == ("too few groups (n=2)", "too few groups (n=2)")


def test_mcnemar_is_an_exact_binomial_test_on_the_discordant_items() -> None:
    units = [("first", "second", "first")] * 2 + [("second", "first", "first")] * 10 + [("first", "first", "first")] * 8
    result = mcnemar(units)
    assert (result.a_only, result.b_only) == (2, 10)
    # two-sided exact: 2 * P(X <= 2), X ~ Binomial(12, 1/2) = 2 * (1 + 12 + 66) / 4096
    assert result.p_value == pytest.approx(2 * 79 / 4096)
    assert mcnemar(units[:5]).p_value == "too few items (n=5)"


def test_bca_comparison_reports_its_method() -> None:
    run_a, run_b = small_gain()
    (comparison,) = compare_runs(run_a, run_b, n=300, ci_method="bca")
    spearman = _difference(comparison, "spearman")
    assert comparison.ci_method == spearman.ci_method == "bca"
    low, high = spearman.ci95
    assert low < spearman.delta < high
