"""Bootstrap intervals on known-answer cases."""

from __future__ import annotations

import math
import random

import pytest

from debate_eval.tasks.analysis.bootstrap import bootstrap_ci, paired_bootstrap, percentile_interval, two_sided_p


def mean_of(sample: list[float]) -> dict[str, float]:
    return {"mean": sum(sample) / len(sample)}


def test_percentile_interval_interpolates_linearly() -> None:
    # 1..100: the 2.5th percentile sits at position 0.025 * 99 = 2.475 -> 3.475; the 97.5th at 96.525 -> 97.525
    assert percentile_interval(list(range(1, 101))) == pytest.approx([3.475, 97.525])
    assert percentile_interval([]) is None


def test_constant_units_give_a_point_interval() -> None:
    assert bootstrap_ci([0.4] * 10, mean_of, ["mean"]) == {"mean": pytest.approx([0.4, 0.4])}


def test_two_units_cover_both_ends() -> None:
    # resampling {0, 1} twice gives means 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4: both 2.5 % tails reach the ends
    assert bootstrap_ci([0.0, 1.0], mean_of, ["mean"], n=1000) == {"mean": [0.0, 1.0]}


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
    assert bootstrap_ci([1.0], mean_of, ["mean"]) is None


def test_mostly_undefined_statistic_gives_none() -> None:
    def defined_on_full_only(sample: list[int]) -> dict[str, float | None]:
        return {"x": 1.0 if sorted(sample) == [0, 1, 2, 3, 4, 5, 6, 7] else None}

    assert bootstrap_ci(list(range(8)), defined_on_full_only, ["x"], n=100) == {"x": None}


def test_two_sided_p() -> None:
    assert two_sided_p([1.0, 2.0, 3.0, -1.0]) == pytest.approx(0.5)  # 1 of 4 at or below 0, doubled
    assert two_sided_p([0.0, 0.0]) == 1.0
    assert two_sided_p([]) is None


def test_paired_identical_runs_differ_by_zero() -> None:
    units = [(v, v) for v in (1.0, 2.0, 3.0, 5.0)]
    (diff,) = paired_bootstrap(
        units, lambda s: mean_of([a for a, _ in s]), lambda s: mean_of([b for _, b in s]), ["mean"], n=300
    )
    assert (diff.delta, diff.ci95, diff.p_value) == (0.0, [0.0, 0.0], 1.0)


def test_paired_shift_is_found_and_pairing_cancels_unit_spread() -> None:
    # B = A + 1 on every unit, with a unit spread (0..99) far larger than the shift: the paired interval is exact
    units = [(float(v), float(v) + 1.0) for v in range(100)]
    (diff,) = paired_bootstrap(
        units, lambda s: mean_of([a for a, _ in s]), lambda s: mean_of([b for _, b in s]), ["mean"], n=500
    )
    assert diff.delta == pytest.approx(1.0)
    assert diff.ci95 == pytest.approx([1.0, 1.0])
    assert diff.p_value == 0.0
    assert (diff.n_units, diff.n_resamples) == (100, 500)
