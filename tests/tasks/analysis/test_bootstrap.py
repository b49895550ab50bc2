"""Bootstrap intervals on known-answer cases."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats

from debate_eval.tasks.analysis.bootstrap import (
    MIN_UNITS,
    SEED,
    bootstrap_ci,
    paired_bootstrap,
    percentile_interval,
    too_few_units,
    two_sided_p,
)


def mean_of(sample: list[float]) -> dict[str, float]:
    return {"mean": sum(sample) / len(sample)}


def test_percentile_interval_interpolates_linearly() -> None:
    # 1..100: the 2.5th percentile sits at position 0.025 * 99 = 2.475 -> 3.475; the 97.5th at 96.525 -> 97.525
    assert percentile_interval(list(range(1, 101))) == pytest.approx([3.475, 97.525])
    assert percentile_interval([]) is None


def test_constant_units_give_a_point_interval() -> None:
    assert bootstrap_ci([0.4] * 10, mean_of, ["mean"]) == {"mean": pytest.approx([0.4, 0.4])}
    assert bootstrap_ci([0.4] * 10, mean_of, ["mean"], method="bca") == {"mean": None}  # scipy: degenerate


def test_two_units_cover_both_ends() -> None:
    # resampling {0, 1} twice gives means 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4: both 2.5 % tails reach the ends
    assert bootstrap_ci([0.0, 1.0], mean_of, ["mean"], n=1000, min_units=2) == {"mean": [0.0, 1.0]}


def test_minimum_units_rule_withholds_the_interval() -> None:
    assert MIN_UNITS == 10
    assert too_few_units(2) == "too few groups (n=2)" and too_few_units(9, "items") == "too few items (n=9)"
    assert too_few_units(10) is None
    assert bootstrap_ci([0.0, 1.0], mean_of, ["mean"], n=1000) == "too few groups (n=2)"
    assert bootstrap_ci([float(v) for v in range(9)], mean_of, ["mean"], unit="items") == "too few items (n=9)"
    assert isinstance(bootstrap_ci([float(v) for v in range(10)], mean_of, ["mean"])["mean"], list)
    assert bootstrap_ci([0.0, 1.0], mean_of, ["mean"], n=0) is None  # no bootstrap asked: nothing at all


def test_interval_of_a_mean_matches_the_normal_approximation() -> None:
    rng = random.Random(7)
    values = [rng.gauss(10.0, 2.0) for _ in range(400)]
    mean = sum(values) / len(values)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))
    half = 1.96 * sd / math.sqrt(len(values))  # about 0.196
    low, high = bootstrap_ci(values, mean_of, ["mean"], n=2000)["mean"]
    assert low == pytest.approx(mean - half, abs=0.04)
    assert high == pytest.approx(mean + half, abs=0.04)


def test_fixed_seed_repeats_and_other_seed_differs() -> None:
    values = [float(v) for v in range(30)]
    first = bootstrap_ci(values, mean_of, ["mean"], n=200)
    assert bootstrap_ci(values, mean_of, ["mean"], n=200) == first
    assert bootstrap_ci(values, mean_of, ["mean"], n=200, seed=1) != first


def test_no_resamples_or_one_unit_give_none() -> None:
    assert bootstrap_ci([1.0, 2.0], mean_of, ["mean"], n=0) is None
    assert bootstrap_ci([1.0], mean_of, ["mean"], min_units=1) is None


def test_mostly_undefined_statistic_gives_none() -> None:
    def defined_on_full_only(sample: list[int]) -> dict[str, float | None]:
        return {"x": 1.0 if sorted(sample) == list(range(12)) else None}

    assert bootstrap_ci(list(range(12)), defined_on_full_only, ["x"], n=100) == {"x": None}


def test_two_sided_p_is_never_zero() -> None:
    assert two_sided_p([1.0, 2.0, 3.0, -1.0]) == pytest.approx(2 * 2 / 5)  # 1 of 4 at or below 0: 2 (1 + 1) / (4 + 1)
    assert two_sided_p([0.0, 0.0]) == 1.0
    assert two_sided_p([]) is None
    assert two_sided_p([0.5] * 999) == pytest.approx(2 / 1000)  # no resample crosses 0: the bound, about 2/B, not 0
    assert two_sided_p([0.5] * 999 + [-0.1]) == pytest.approx(4 / 1001)


def test_bca_is_scipys_interval_on_the_same_units() -> None:
    rng = np.random.default_rng(3)
    values = list(rng.exponential(size=40))  # skewed: BCa and percentile differ
    ours = bootstrap_ci(values, mean_of, ["mean"], n=2000, method="bca")["mean"]
    theirs = stats.bootstrap(
        (np.arange(40),),
        lambda i: np.array([np.mean(np.asarray(values)[i])]),
        vectorized=False,
        n_resamples=2000,
        method="BCa",
        rng=np.random.default_rng(SEED),
    ).confidence_interval
    assert ours == pytest.approx([theirs.low[0], theirs.high[0]])
    assert ours != pytest.approx(bootstrap_ci(values, mean_of, ["mean"], n=2000)["mean"], abs=1e-4)
    with pytest.raises(ValueError, match="ci method"):
        bootstrap_ci(values, mean_of, ["mean"], method="normal")


def test_paired_identical_runs_differ_by_zero() -> None:
    units = [(v, v) for v in (1.0, 2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0, 55.0, 89.0)]
    (diff,) = paired_bootstrap(
        units, lambda s: mean_of([a for a, _ in s]), lambda s: mean_of([b for _, b in s]), ["mean"], n=300
    )
    assert (diff.delta, diff.ci95, diff.p_value) == (0.0, [0.0, 0.0], 1.0)


def test_paired_below_the_minimum_withholds_interval_and_p() -> None:
    units = [(v, v + 1.0) for v in (1.0, 2.0, 3.0, 5.0)]
    (diff,) = paired_bootstrap(
        units, lambda s: mean_of([a for a, _ in s]), lambda s: mean_of([b for _, b in s]), ["mean"], n=300
    )
    assert diff.delta == pytest.approx(1.0)  # the point difference is still given
    assert (diff.ci95, diff.p_value) == ("too few groups (n=4)", "too few groups (n=4)")
    assert diff.n_resamples == 0


def test_paired_bca_uses_scipy_and_its_resamples_for_p() -> None:
    rng = np.random.default_rng(5)
    pairs = zip(rng.normal(size=30), rng.exponential(0.5, size=30), strict=True)
    units = [(float(a), float(a) + float(d)) for a, d in pairs]
    (diff,) = paired_bootstrap(
        units,
        lambda s: mean_of([a for a, _ in s]),
        lambda s: mean_of([b for _, b in s]),
        ["mean"],
        n=500,
        method="bca",
        unit="items",
    )
    low, high = diff.ci95
    assert 0.0 < low < diff.delta < high and diff.ci_method == "bca"
    assert diff.p_value == pytest.approx(2 / 501) and diff.p_at_floor  # every resampled difference is positive


def test_paired_shift_is_found_and_pairing_cancels_unit_spread() -> None:
    # B = A + 1 on every unit, with a unit spread (0..99) far larger than the shift: the paired interval is exact
    units = [(float(v), float(v) + 1.0) for v in range(100)]
    (diff,) = paired_bootstrap(
        units, lambda s: mean_of([a for a, _ in s]), lambda s: mean_of([b for _, b in s]), ["mean"], n=500
    )
    assert diff.delta == pytest.approx(1.0)
    assert diff.ci95 == pytest.approx([1.0, 1.0])
    assert diff.p_value == pytest.approx(2 / 501) and diff.p_at_floor  # no resample crossed 0: about 1/B, not 0
    assert (diff.n_units, diff.n_resamples) == (100, 500)


@pytest.mark.parametrize("n_units", [1, 3, 7, 40])
def test_resampling_a_block_at_a_time_draws_what_one_draw_gives(n_units: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_eval.tasks.analysis import bootstrap

    monkeypatch.setattr(bootstrap, "BLOCK_INDEXES", 10)  # blocks of a few rows, the last one shorter
    whole = bootstrap._resamples(n_units, 13, 5)
    blocks = list(bootstrap.resample_blocks(n_units, 13, 5))
    assert len(blocks) > 1 and np.array_equal(np.vstack(blocks), whole)
    assert np.array_equal(np.array(list(bootstrap.resample_rows(n_units, 13, 5))), whole)
    values = np.arange(n_units, dtype=float) ** 2
    assert np.array_equal(bootstrap.resampled_means(values, 13, 5), values[whole].mean(axis=1))


def test_check_resamples_takes_0_to_the_bound_and_names_the_flag() -> None:
    from debate_eval.agents.errors import UserError
    from debate_eval.tasks.analysis.bootstrap import MAX_RESAMPLES, check_resamples

    assert MAX_RESAMPLES == 100 * 1000  # 100 times the default of 1000 resamples
    for n in (0, 1, MAX_RESAMPLES):
        check_resamples(n)
    with pytest.raises(UserError, match=r"^--bootstrap 100001: give at most 100,000 resamples$"):
        check_resamples(MAX_RESAMPLES + 1)
    with pytest.raises(UserError, match=r"^bootstrap -1: give a number of resamples >= 0$"):
        check_resamples(-1, "bootstrap")
