"""Pairwise metrics on hand-computed cases: accuracy, Cohen's kappa, macro-F1, consistency and agreement."""

from __future__ import annotations

from typing import Any

import pytest

from debate_eval.tasks.analysis.meta_eval import meta_evaluate
from debate_eval.tasks.analysis.pairwise_metrics import PairwiseReport, cohen_kappa, macro_f1, metrics

HUMAN = ["first", "first", "second", "second", "tie", "first"]
VERDICT = ["first", "second", "second", "tie", "tie", "first"]
CONSISTENT = [True, False, True, True, False, True]


def pw(i: int, verdict: str | None, human: str | None, consistent: bool | None = None, **extra: Any) -> dict:
    record = {
        "item_id": f"p{i}",
        "dataset": "pandalm",
        "aspect": "preference",
        "protocol": "geval",
        "task_type": "pairwise",
        "verdict": verdict,
        "human_label": human,
        **extra,
    }
    if consistent is not None:
        record["consistent"] = consistent
    return record


def test_hand_computed_accuracy_kappa_f1() -> None:
    values = metrics(list(zip(VERDICT, HUMAN, [None] * 6, strict=True)))
    # matches on items 1, 3, 5, 6 -> 4/6
    assert values["accuracy"] == pytest.approx(4 / 6)
    # verdicts 2/2/2, labels 3/2/1 per class: p_e = (2*3 + 2*2 + 2*1) / 36 = 1/3; kappa = (2/3 - 1/3) / (2/3)
    assert values["kappa"] == pytest.approx(0.5)
    # F1 first = 4/5 (tp 2, fp 0, fn 1); second = 2/4 (tp 1, fp 1, fn 1); tie = 2/3 (tp 1, fp 1, fn 0)
    assert values["macro_f1"] == pytest.approx((0.8 + 0.5 + 2 / 3) / 3)
    assert values["consistency"] is None
    assert values["agreement"] is None


def test_kappa_of_a_constant_judge_is_zero_and_perfect_is_one() -> None:
    always_first = [("first", h) for h in HUMAN]
    assert cohen_kappa(always_first) == pytest.approx(0.0)
    assert cohen_kappa([(h, h) for h in HUMAN]) == pytest.approx(1.0)
    assert cohen_kappa([("tie", "tie")] * 3) is None  # p_e = 1: undefined, not NaN
    assert macro_f1([(h, h) for h in HUMAN]) == pytest.approx(1.0)


def test_consistency_and_agreement() -> None:
    values = metrics(list(zip(VERDICT, HUMAN, CONSISTENT, strict=True)))
    assert values["consistency"] == pytest.approx(4 / 6)
    # consistent items 1, 3, 4, 6: right, right, wrong, right
    assert values["agreement"] == pytest.approx(3 / 4)


def test_report_counts_missing_and_unlabelled_without_imputing() -> None:
    records = [pw(i, v, h, c) for i, (v, h, c) in enumerate(zip(VERDICT, HUMAN, CONSISTENT, strict=True))]
    records += [pw(10, None, "first", False), pw(11, "first", None, True)]
    entry = meta_evaluate(records)["pandalm"]["preference"]
    assert isinstance(entry, PairwiseReport)
    assert entry.accuracy == pytest.approx(4 / 6)  # the two extra items count in neither direction
    assert (entry.n_items, entry.n_missing, entry.n_unlabelled) == (8, 1, 1)
    assert (entry.n_swapped, entry.n_consistent) == (8, 5)
    assert entry.consistency == pytest.approx(5 / 8)
    assert entry.agreement == pytest.approx(3 / 4)


def test_always_first_accuracy_equals_share_of_first_labels() -> None:
    records = [pw(i, "first", h) for i, h in enumerate(HUMAN * 2)]
    entry = meta_evaluate(records, bootstrap=200)["pandalm"]["preference"]
    assert entry.accuracy == pytest.approx(HUMAN.count("first") / len(HUMAN))
    assert entry.kappa == pytest.approx(0.0)
    low, high = entry.ci95["accuracy"]
    assert 0.0 <= low <= entry.accuracy <= high <= 1.0
    assert entry.ci95["consistency"] is None
    few = meta_evaluate(records[:6], bootstrap=200)["pandalm"]["preference"]
    assert few.accuracy == entry.accuracy and few.ci95 == "too few items (n=6)"


def test_minimum_units_count_items_with_a_verdict_and_a_label() -> None:
    records = [pw(i, "first", h) for i, h in enumerate(HUMAN)]  # 6 judged and labelled
    records += [pw(10 + i, None, "first") for i in range(4)] + [pw(20 + i, "first", None) for i in range(4)]
    entry = meta_evaluate(records, bootstrap=100)["pandalm"]["preference"]
    assert entry.n_items == 14 and entry.ci95 == "too few items (n=6)"


def test_swap_all_ties_gives_zero_consistency() -> None:
    records = [pw(i, "tie", h, False, verdicts=["first", "first"]) for i, h in enumerate(HUMAN)]
    entry = meta_evaluate(records)["pandalm"]["preference"]
    assert entry.consistency == 0.0
    assert entry.agreement is None


def test_intervals_do_not_depend_on_the_order_of_the_records() -> None:
    """The items are resampled in the order of their ids, not the order the records came in."""
    from analysis_factories import shuffled
    from constructed_cases import copy_and_abstain

    records = copy_and_abstain()[0]
    (before,) = meta_evaluate(records, bootstrap=300)["faireval"].values()
    (after,) = meta_evaluate(shuffled(records), bootstrap=300)["faireval"].values()
    assert isinstance(before, PairwiseReport) and after.ci95 == before.ci95
    assert after.accuracy == before.accuracy and after.kappa == before.kappa
