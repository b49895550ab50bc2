"""The alt-test on constructed data: a judge as good as the annotators passes, a worse one fails; the
per-annotator p-values are scipy's one-sided paired t-test, the FDR correction statsmodels' Benjamini–Yekutieli."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from debate_eval.tasks.analysis.audit.alt_test import alt_test, benjamini_yekutieli

ANNOTATORS = ("ann1", "ann2", "ann3")


def _data(judge_shift: float, judge_noise: float, n: int = 200, seed: int = 0) -> tuple[dict, dict]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n)

    def rate(shift: float, noise: float) -> np.ndarray:
        return np.clip(np.round(truth + shift + rng.normal(0, noise, n)), 1, 5)

    annotations = {name: {f"i{k}": float(v) for k, v in enumerate(rate(0, 0.7))} for name in ANNOTATORS}
    judge = {f"i{k}": float(v) for k, v in enumerate(rate(judge_shift, judge_noise))}
    return judge, annotations


def _wins_by_hand(judge: dict, annotations: dict, annotator: str) -> tuple[np.ndarray, np.ndarray]:
    w_f, w_h = [], []
    for item, own in annotations[annotator].items():
        others = [annotations[a][item] for a in ANNOTATORS if a != annotator]
        s_f = -math.sqrt(np.mean([(judge[item] - o) ** 2 for o in others]))
        s_h = -math.sqrt(np.mean([(own - o) ** 2 for o in others]))
        w_f.append(float(s_f >= s_h))
        w_h.append(float(s_h >= s_f))
    return np.array(w_f), np.array(w_h)


def test_a_judge_as_good_as_the_annotators_passes() -> None:
    judge, annotations = _data(0.0, 0.7)
    result = alt_test(judge, annotations, epsilon=0.2)
    assert result.passed and result.winning_rate == 1.0
    # ties (equal alignment) count for both: on a 1-5 scale about half the items; a hand count:
    w_f = np.concatenate([_wins_by_hand(judge, annotations, a)[0] for a in ANNOTATORS])
    assert result.advantage_probability == pytest.approx(w_f.mean())


def test_a_worse_judge_fails() -> None:
    judge, annotations = _data(1.0, 1.2)
    result = alt_test(judge, annotations, epsilon=0.2)
    assert not result.passed and result.winning_rate == 0.0
    good = alt_test(*_data(0.0, 0.7), epsilon=0.2)
    assert result.advantage_probability < good.advantage_probability - 0.1


def test_p_values_are_scipys_one_sided_paired_t_test_and_the_fdr_statsmodels() -> None:
    from statsmodels.stats.multitest import multipletests

    judge, annotations = _data(0.3, 0.9, n=120, seed=4)
    result = alt_test(judge, annotations, epsilon=0.15)
    expected = []
    for entry in result.annotators:
        w_f, w_h = _wins_by_hand(judge, annotations, entry.annotator)
        assert (entry.judge_wins, entry.annotator_wins) == pytest.approx((w_f.mean(), w_h.mean()))
        expected.append(stats.ttest_rel(w_h, w_f + 0.15, alternative="less").pvalue)
        assert entry.p == pytest.approx(expected[-1], rel=1e-9)
    assert [e.rejected for e in result.annotators] == list(multipletests(expected, alpha=0.05, method="fdr_by")[0])
    p = [0.001, 0.01, 0.02, 0.2, 0.011]
    assert benjamini_yekutieli(p) == list(multipletests(p, alpha=0.05, method="fdr_by")[0])


def test_annotators_with_too_few_items_are_skipped() -> None:
    judge, annotations = _data(0.0, 0.7, n=20)
    result = alt_test(judge, annotations)
    assert result.skipped == list(ANNOTATORS) and result.winning_rate is None and not result.passed


def test_a_float_sum_ties_with_the_rating_it_stands_for() -> None:
    """A G-Eval score of 2.9999999999999996 (a float sum of probabilities) ties with a rating of 3: both win."""
    annotations = {name: {f"i{k}": 3.0 for k in range(30)} for name in ANNOTATORS}
    judge = {f"i{k}": 2.9999999999999996 for k in range(30)}
    assert judge["i0"] != 3.0
    result = alt_test(judge, annotations)
    assert all((a.judge_wins, a.annotator_wins) == (1.0, 1.0) for a in result.annotators)


def test_a_winning_rate_of_fewer_than_three_annotators_does_not_pass() -> None:
    """Two annotators, or three of whom only two rated 30 items with another: ω may be 1, but it stands on too
    little to pass (of two annotators, one alone makes ω 0.5); the card says why."""
    from debate_eval.tasks.analysis.audit.alt_test import alt_test_facet

    judge, annotations = _data(0.0, 0.7)
    two = {name: annotations[name] for name in ANNOTATORS[:2]}
    few = {**two, ANNOTATORS[2]: dict(list(annotations[ANNOTATORS[2]].items())[:20])}
    for given, skipped in ((two, []), (few, [ANNOTATORS[2]])):
        result = alt_test(judge, given, epsilon=0.2)
        assert len(result.tested) == 2 and result.skipped == skipped
        assert result.winning_rate == 1.0 and not result.passed
        facet = alt_test_facet(judge, given, 0.2)
        assert facet.notes[0] == (
            "does not pass: ω = 1.00 with ε = 0.2 over 2 annotator(s) tested; passing needs at least 3"
        )
    assert alt_test(judge, annotations, epsilon=0.2).passed  # the same judge beside three annotators
