"""meta_evaluate's levels and intervals, and compare_runs' paired bootstrap."""

from __future__ import annotations

import random

import pytest
from analysis_factories import group, rec, spearman

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.meta_eval import compare_runs, meta_evaluate


def test_group_bootstrap_resamples_groups() -> None:
    # two groups with rho +1 and -1: resampling the two groups gives means -1, 0, +1 -> the interval spans both
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("d2", [1, 2, 3], [3, 2, 1])
    entry = meta_evaluate(records, bootstrap=1000, min_units=2)["summeval"]["coherence"]
    assert entry.level == "group"
    assert entry.spearman == pytest.approx(0.0)
    assert entry.ci95["spearman"] == pytest.approx([-1.0, 1.0])
    assert entry.ci95["kendall"] == pytest.approx([-1.0, 1.0])


def test_two_groups_give_no_numeric_interval() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("d2", [1, 2, 3], [3, 2, 1])
    entry = meta_evaluate(records, bootstrap=1000)["summeval"]["coherence"]
    assert entry.spearman == pytest.approx(0.0)  # the figure is still given
    assert entry.ci95 == "too few groups (n=2)"
    # ten groups are enough; a skipped (constant) group does not count towards them
    many = [r for d in range(10) for r in group(f"d{d}", [1, 2, 3], [1, 2, 3] if d % 2 else [3, 2, 1])]
    many += group("flat", [1, 2, 3], [2, 2, 2])
    entry = meta_evaluate(many, bootstrap=200)["summeval"]["coherence"]
    assert (entry.n_groups, entry.n_skipped) == (10, 1) and isinstance(entry.ci95["spearman"], list)
    fewer = [r for r in many if not r["group_id"].startswith("d9")]
    assert meta_evaluate(fewer, bootstrap=200)["summeval"]["coherence"].ci95 == "too few groups (n=9)"


def test_records_without_a_human_score_are_counted() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + [rec("x1", "d1", None, 2), rec("x2", "d1", None, None)]
    entry = meta_evaluate(records)["summeval"]["coherence"]
    assert (entry.n_items, entry.n_missing, entry.n_unrated) == (5, 1, 2)
    assert entry.spearman == pytest.approx(1.0)  # the unrated records are left out, not imputed


def test_no_bootstrap_no_interval() -> None:
    assert meta_evaluate(group("d1", [1, 2, 3], [1, 2, 3]))["summeval"]["coherence"].ci95 is None


def test_fed_is_item_level_over_all_items() -> None:
    humans, scores = [0, 1, 2, 1, 2, 0], [1, 1, 2, 0, 2, 0]
    records = [
        rec(f"t{i}", f"dialogue-{i % 2}", h, s, dataset="fed_turn", aspect="interesting")
        for i, (h, s) in enumerate(zip(humans, scores, strict=True))
    ]
    entry = meta_evaluate(records, bootstrap=300, min_units=2)["fed_turn"]["interesting"]
    assert entry.level == "item"
    assert entry.spearman == pytest.approx(spearman(scores, humans))
    assert entry.spearman == entry.pooled_spearman
    assert (entry.n_groups, entry.n_skipped) == (0, 0)
    low, high = entry.ci95["spearman"]
    assert -1.0 <= low <= high <= 1.0


def test_own_data_without_groups_is_item_level() -> None:
    records = [rec(f"r{i}", None, h, s, dataset="my_file") for i, (h, s) in enumerate([(1, 1), (2, 3), (3, 2), (4, 4)])]
    for record in records:
        del record["group_id"]
    entry = meta_evaluate(records)["my_file"]["coherence"]
    assert entry.level == "item"
    assert entry.spearman == pytest.approx(0.8)  # ranks 1,3,2,4 vs 1,2,3,4: 1 - 6*2/(4*15)
    for record in records:  # the data layer makes each item its own group when the file has no group column
        record["group_id"] = record["item_id"]
    assert meta_evaluate(records)["my_file"]["coherence"].spearman == pytest.approx(0.8)


def test_own_data_with_groups_is_group_level() -> None:
    records = group("g1", [1, 2, 3], [1, 2, 3], dataset="/tmp/mine.csv") + group(
        "g2", [1, 2, 3], [3, 2, 1], dataset="/tmp/mine.csv"
    )
    entry = meta_evaluate(records, bootstrap=200, min_units=2)["/tmp/mine.csv"]["coherence"]
    assert (entry.level, entry.n_groups, entry.spearman) == ("group", 2, pytest.approx(0.0))
    assert entry.ci95["spearman"] == pytest.approx([-1.0, 1.0])


def _noisy_run(seed: int, noise: float) -> list[dict]:
    rng = random.Random(seed)
    records = []
    for doc in range(12):
        humans = [1, 2, 3, 4, 5]
        scores = [h + rng.gauss(0, noise) for h in humans]
        records += group(f"d{doc}", humans, scores, protocol=None)
    return records


def test_compare_identical_runs() -> None:
    run = _noisy_run(1, 1.0)
    (comparison,) = compare_runs(run, run, n=300)
    assert comparison.n_shared == 60
    assert comparison.level == "group"
    spearman_diff = next(d for d in comparison.differences if d.statistic == "spearman")
    assert (spearman_diff.delta, spearman_diff.ci95, spearman_diff.p_value) == (0.0, [0.0, 0.0], 1.0)


def test_compare_finds_the_better_run_on_shared_items_only() -> None:
    worse, better = _noisy_run(2, 3.0), _noisy_run(3, 0.1)
    better = better[5:] + [rec("extra", "dX", 1, 1)]  # items only one run holds are left out
    (comparison,) = compare_runs(worse, better, n=500)
    assert (comparison.n_shared, comparison.only_a, comparison.only_b) == (55, 5, 1)
    diff = next(d for d in comparison.differences if d.statistic == "spearman")
    assert diff.delta == pytest.approx(diff.b - diff.a)
    assert diff.delta > 0.3
    assert diff.ci95[0] > 0.0
    assert diff.p_value < 0.01


def test_compare_pairwise_accuracy() -> None:
    labels = ["first", "second", "tie", "first", "second", "first", "second", "second"]

    def pairwise(verdicts: list[str]) -> list[dict]:
        return [
            {
                "item_id": f"p{i}",
                "dataset": "faireval",
                "aspect": "preference",
                "task_type": "pairwise",
                "verdict": v,
                "human_label": h,
            }
            for i, (v, h) in enumerate(zip(verdicts, labels, strict=True))
        ]

    (comparison,) = compare_runs(pairwise(["first"] * 8), pairwise(labels), n=300)
    assert comparison.level == "pairwise"
    accuracy = next(d for d in comparison.differences if d.statistic == "accuracy")
    assert (accuracy.a, accuracy.b) == (pytest.approx(3 / 8), 1.0)
    assert accuracy.delta == pytest.approx(5 / 8)


def test_compare_refuses_two_protocols_in_one_run() -> None:
    mixed = group("d1", [1, 2, 3], [1, 2, 3]) + group("d1", [1, 2, 3], [1, 2, 3], protocol="geval")
    with pytest.raises(UserError, match="two protocols"):
        compare_runs(mixed, mixed)
