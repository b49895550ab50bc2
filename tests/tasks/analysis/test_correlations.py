"""Correlations (group and item level) against hand-computed values (no scipy in the expected values)."""

from __future__ import annotations

import json
import math

import pytest
from analysis_factories import assert_same_figures, group, kendall_tau_b, only, pearson, shuffled, spearman

from debate_eval.tasks.analysis.formatting import format_json
from debate_eval.tasks.analysis.meta_eval import meta_evaluate


def test_reference_formulas_on_hand_computed_examples() -> None:
    # human 1..5, prediction 2,1,4,3,5: sum d^2 = 4 -> rho = 1 - 6*4/(5*24) = 0.8; 8 concordant,
    # 2 discordant pairs -> tau = 6/10; deviations give r = 8/10.
    assert spearman([2, 1, 4, 3, 5], [1, 2, 3, 4, 5]) == pytest.approx(0.8)
    assert kendall_tau_b([2, 1, 4, 3, 5], [1, 2, 3, 4, 5]) == pytest.approx(0.6)
    assert pearson([2, 1, 4, 3, 5], [1, 2, 3, 4, 5]) == pytest.approx(0.8)
    # with a tie in the predictions: tau-b = 5 / sqrt(6 * 5)
    assert kendall_tau_b([1, 2, 2, 5], [1, 2, 3, 4]) == pytest.approx(5 / math.sqrt(30))


def test_perfect_agreement_is_one() -> None:
    entry = only(meta_evaluate(group("d1", [1, 2, 3, 4], [2, 3, 4, 5])))
    assert (entry.spearman, entry.kendall, entry.pearson) == (
        pytest.approx(1.0),
        pytest.approx(1.0),
        pytest.approx(1.0),
    )
    assert (entry.n_items, entry.n_missing, entry.n_groups, entry.n_skipped) == (4, 0, 1, 0)


def test_reversed_order_is_minus_one() -> None:
    entry = only(meta_evaluate(group("d1", [1, 2, 3, 4], [5, 4, 3, 2])))
    assert entry.spearman == pytest.approx(-1.0)
    assert entry.kendall == pytest.approx(-1.0)
    assert entry.pearson == pytest.approx(-1.0)


def test_group_average_over_documents() -> None:
    records = group("d1", [1, 2, 3, 4], [2, 3, 4, 5]) + group("d2", [1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    entry = only(meta_evaluate(records))
    # d1: 1, 1, 1; d2: rho 0.8, tau 0.6, r 0.8 (hand-computed above)
    assert entry.spearman == pytest.approx(0.9)
    assert entry.kendall == pytest.approx(0.8)
    assert entry.pearson == pytest.approx(0.9)
    assert entry.n_groups == 2
    # global: all 9 items pooled, by the independent formulas
    predicted = [2, 3, 4, 5, 2, 1, 4, 3, 5]
    human = [1, 2, 3, 4, 1, 2, 3, 4, 5]
    assert entry.pooled_spearman == pytest.approx(spearman(predicted, human))
    assert entry.pooled_kendall == pytest.approx(kendall_tau_b(predicted, human))
    assert entry.pooled_pearson == pytest.approx(pearson(predicted, human))


def test_group_with_constant_human_scores_is_skipped_and_counted() -> None:
    records = group("d1", [1, 2, 3, 4], [2, 3, 4, 5]) + group("d2", [3, 3, 3], [1, 2, 3])
    entry = only(meta_evaluate(records))
    assert entry.spearman == pytest.approx(1.0)  # d2 would pull the mean down if it were used
    assert (entry.n_groups, entry.n_skipped, entry.n_items) == (1, 1, 7)


def test_group_with_constant_predictions_is_skipped_and_counted() -> None:
    records = group("d1", [1, 2, 3, 4], [5, 4, 3, 2]) + group("d2", [1, 2, 3], [4, 4, 4])
    entry = only(meta_evaluate(records))
    assert entry.spearman == pytest.approx(-1.0)
    assert (entry.n_groups, entry.n_skipped) == (1, 1)


def test_only_constant_groups_give_none_not_nan() -> None:
    report = meta_evaluate(group("d1", [2, 2, 2], [1, 2, 3]))
    entry = only(report)
    assert (entry.spearman, entry.kendall, entry.pearson) == (None, None, None)
    assert entry.pooled_spearman is None
    assert (entry.n_groups, entry.n_skipped) == (0, 1)
    assert "NaN" not in format_json(report)
    assert json.loads(format_json(report))["summeval"]["coherence"]["spearman"] is None


def test_missing_predictions_are_excluded_and_counted() -> None:
    # d1 keeps 3 of 4 items: (4,1), (2,3), (1,4) -> exactly reversed. Imputing the null would change that.
    records = group("d1", [1, 2, 3, 4], [4, None, 2, 1]) + group("d2", [1, 2, 3], [None, None, 3])
    entry = only(meta_evaluate(records))
    assert entry.spearman == pytest.approx(-1.0)
    assert entry.kendall == pytest.approx(-1.0)
    assert entry.n_items == 7
    assert entry.n_missing == 3
    assert (entry.n_groups, entry.n_skipped) == (1, 1)  # d2 has a single prediction left


def test_topical_chat_pearson_and_spearman() -> None:
    human, predicted = [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 2.0, 5.0]
    records = group("ctx1", human, predicted, dataset="topical_chat", aspect="naturalness")
    entry = only(meta_evaluate(records), "topical_chat")
    # r = 6 / sqrt(5 * 9); rho (tied ranks 2.5, 2.5) = 4.5 / sqrt(4.5 * 5)
    assert entry.pearson == pytest.approx(6 / math.sqrt(45))
    assert entry.pearson == pytest.approx(0.894427191)
    assert entry.spearman == pytest.approx(4.5 / math.sqrt(22.5))
    assert entry.kendall == pytest.approx(kendall_tau_b(predicted, human))


def test_aspects_and_datasets_are_separate() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("d1", [1, 2, 3], [3, 2, 1], aspect="fluency")
    records += group("c1", [1, 2, 3], [1, 3, 2], dataset="topical_chat", aspect="coherence")
    report = meta_evaluate(records)
    assert set(report) == {"summeval", "topical_chat"}
    assert report["summeval"]["coherence"].spearman == pytest.approx(1.0)
    assert report["summeval"]["fluency"].spearman == pytest.approx(-1.0)
    assert report["topical_chat"]["coherence"].spearman == pytest.approx(0.5)


def test_several_protocols_are_keyed_apart() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("d1", [1, 2, 3], [3, 2, 1], protocol="geval")
    report = meta_evaluate(records)
    assert set(report["summeval"]) == {"coherence", "coherence[geval]"}
    assert report["summeval"]["coherence[geval]"].protocol == "geval"
    assert report["summeval"]["coherence[geval]"].aspect == "coherence"
    assert report["summeval"]["coherence[geval]"].spearman == pytest.approx(-1.0)


def test_single_non_debate_protocol_keeps_plain_aspect() -> None:
    report = meta_evaluate(group("d1", [1, 2, 3], [1, 2, 3], protocol="geval"))
    assert set(report["summeval"]) == {"coherence"}
    assert report["summeval"]["coherence"].protocol == "geval"


def test_intervals_do_not_depend_on_the_order_of_the_records() -> None:
    """A run's results.jsonl is in the order its items finished; the groups and items are resampled in the order
    of their ids: the same intervals bit for bit (group level with the pooled definition, and item level)."""
    from constructed_cases import small_gain, topical_chat

    for records in (small_gain()[0], topical_chat()):
        before = json.loads(format_json(meta_evaluate(records, bootstrap=300)))
        after = json.loads(format_json(meta_evaluate(shuffled(records), bootstrap=300)))
        assert_same_figures(after, before)
        for dataset, aspects in before.items():
            for aspect, report in aspects.items():
                for key in ("ci95", "pooled_ci95"):
                    assert after[dataset][aspect][key] == report[key], (dataset, aspect, key)
