"""The paired comparison (``--compare``) on the audit's constructed cases, its counts, McNemar and --missing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from analysis_factories import assert_same_figures, group, rec, shuffled
from constructed_cases import copy_and_abstain, identical_plus_constant, small_gain

from debate_eval.tasks.analysis.bootstrap import SEED, percentile_interval
from debate_eval.tasks.analysis.compare import compare_runs, mcnemar
from debate_eval.tasks.analysis.correlations import by_group, correlations, pairs


def _difference(comparison: Any, statistic: str) -> Any:
    return next(d for d in comparison.differences if d.statistic == statistic)


def _unpaired_group_bootstrap(run_a: list[dict], run_b: list[dict], n: int = 1000) -> tuple[float, list[float]]:
    """The comparison as it was first defined, written out independently: per group each run's own correlation (None
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
    assert (accuracy.a, accuracy.b, accuracy.delta) == (0.75, 0.75, 0.0)  # as first defined: B 1.000, delta +0.250
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
    # as first printed: 0.018 [0.004, 0.037], p 0.020; p is now 2 (k + 1) / (B + 1)
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


def test_holm_adjusts_step_down_and_stays_monotone() -> None:
    from debate_eval.tasks.analysis.compare import holm

    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, max(1*0.04, 0.06)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0] and holm([]) == []


def _topical(seed: int, noise: float, contexts: int = 30) -> list[dict]:
    """Topical-Chat-like records: ``contexts`` contexts of 6 responses, 2 aspects, scores = humans + noise."""
    rng = np.random.default_rng(seed)
    humans = np.round(np.random.default_rng(0).integers(1, 4, size=(2, contexts, 6, 3)).mean(axis=3), 4)
    records = []
    for a, aspect in enumerate(("naturalness", "coherence")):
        for c in range(contexts):
            for r in range(6):
                score = float(np.clip(np.round(humans[a, c, r] + rng.normal(0, noise)), 1, 3))
                records.append(rec(f"c{c:02d}-r{r}", f"c{c:02d}", float(humans[a, c, r]), score,
                                   dataset="topical_chat", aspect=aspect, protocol="chateval"))  # fmt: skip
    return records


def test_the_paired_t_test_is_scipys_on_the_per_group_differences() -> None:
    from scipy import stats

    run_a, run_b = _topical(1, 0.9), _topical(2, 0.5)
    comparisons = compare_runs(run_a, run_b, n=200)
    for comparison in comparisons:
        b_by_id = {r["item_id"]: r for r in run_b if r["aspect"] == comparison.aspect}
        per_a, per_b = [], []
        for records in by_group([r for r in run_a if r["aspect"] == comparison.aspect]).values():
            mine = correlations(pairs(records))
            theirs = correlations(pairs([b_by_id[r["item_id"]] for r in records]))
            if mine and theirs:
                per_a.append(mine["spearman"])
                per_b.append(theirs["spearman"])
        spearman = _difference(comparison, "spearman")
        assert spearman.n_units == len(per_a) >= 10
        assert spearman.p_ttest == pytest.approx(float(stats.ttest_rel(per_b, per_a).pvalue))
        assert spearman.p_reported == spearman.p_ttest  # the group-level comparison reports the t-test's p


def test_pooled_definition_is_compared_for_topical_chat() -> None:
    from debate_eval.tasks.analysis.meta_eval import meta_evaluate

    run_a, run_b = _topical(1, 0.9), _topical(2, 0.5)
    comparisons = compare_runs(run_a, run_b, n=300)
    report_a, report_b = meta_evaluate(run_a)["topical_chat"], meta_evaluate(run_b)["topical_chat"]
    for comparison in comparisons:
        names = [d.statistic for d in comparison.differences]
        assert names == ["spearman", "kendall", "pearson", "pooled_spearman", "pooled_kendall", "pooled_pearson"]
        pooled = _difference(comparison, "pooled_spearman")
        a, b = report_a[comparison.aspect].pooled_spearman, report_b[comparison.aspect].pooled_spearman
        assert (pooled.a, pooled.b) == (pytest.approx(a), pytest.approx(b))
        assert pooled.delta == pytest.approx(b - a) and pooled.n_units == 30 and pooled.p_ttest is None
        assert pooled.ci95[0] < pooled.delta < pooled.ci95[1]
    # the same run against itself: every difference 0, p 1
    for comparison in compare_runs(run_a, run_a, n=100):
        for difference in comparison.differences:
            assert (difference.delta, difference.p_reported, difference.p_holm) == (0.0, 1.0, 1.0)
    # not Topical-Chat: no pooled rows
    run = [r for d in range(12) for r in group(f"d{d}", [1, 2, 3, 4], [1, 3, 2, 4])]
    assert [d.statistic for d in compare_runs(run, run, n=50)[0].differences] == ["spearman", "kendall", "pearson"]


def test_the_family_of_printed_p_values_is_holm_adjusted() -> None:
    from debate_eval.tasks.analysis.compare import holm

    run_a, run_b = _topical(1, 0.9), _topical(2, 0.5)
    comparisons = compare_runs(run_a, run_b, n=300)
    differences = [d for c in comparisons for d in c.differences]
    assert all(c.family_size == 12 for c in comparisons)  # 2 aspects x (3 per-context + 3 pooled)
    assert [d.p_holm for d in differences] == pytest.approx(holm([d.p_reported for d in differences]))
    assert all(d.p_holm >= d.p_reported for d in differences)
    # pairwise: McNemar joins the family
    run_a, run_b = copy_and_abstain()
    (comparison,) = compare_runs(run_a, run_b, n=200)
    reported = [d.p_reported for d in comparison.differences if isinstance(d.p_reported, float)]
    assert comparison.family_size == len(reported) + 1
    assert comparison.mcnemar.p_holm == pytest.approx(holm([*reported, comparison.mcnemar.p_value])[-1])
    # below the minimum units the Holm column holds the same text, never a number
    two = [r for d in range(2) for r in group(f"d{d}", [1, 2, 3, 4], [1, 3, 2, 4])]
    (small,) = compare_runs(two, two)
    assert {d.p_holm for d in small.differences} == {"too few groups (n=2)"} and small.family_size == 0


def test_small_p_values_are_printed_in_scientific_form() -> None:
    from debate_eval.tasks.analysis.formatting import fmt_pvalue

    assert [fmt_pvalue(p) for p in (0.5, 0.0123, 0.001, 6.1e-05, 4.2e-9, 0.0, None)] == [
        "0.500", "0.012", "0.001", "6.1e-05", "4.2e-09", "<1e-15", "-"
    ]  # fmt: skip
    assert fmt_pvalue("too few items (n=5)") == "too few items (n=5)"


def test_intervals_do_not_depend_on_the_order_of_the_records() -> None:
    """The shared items are resampled by group, then item id, not in the order either run's records came in."""
    for run_a, run_b in (small_gain(), copy_and_abstain()):
        (before,) = compare_runs(run_a, run_b, n=300)
        (after,) = compare_runs(shuffled(run_a, 1), shuffled(run_b, 2), n=300)
        for old, new in zip(before.differences, after.differences, strict=True):
            assert (new.statistic, new.ci95, new.p_value) == (old.statistic, old.ci95, old.p_value)
            assert_same_figures(new.to_dict(), old.to_dict())  # A, B, Δ and the t-test: to the rounding
