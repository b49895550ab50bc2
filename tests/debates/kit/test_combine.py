"""Combining samples: mean and majority of scores (ties: the mean of the tied scores), majority of verdicts
(split: a tie) and their mean preference; samples without a score or verdict do not vote."""

from __future__ import annotations

import pytest

from debate_eval.debates.kit.combine import combine_scores, combine_verdicts
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict


def score(value: float | None) -> ParsedScore:
    if value is None:
        return ParsedScore(None, "no_score", "none", "nothing")
    return ParsedScore(value, "parsed", "labelled", "Score: ...")


def verdict(value: str | None) -> ParsedVerdict:
    return ParsedVerdict(value, "parsed", "bracket", "[[...]]") if value else no_verdict("nothing")


def test_mean_of_the_scored_samples() -> None:
    combined = combine_scores([score(2), score(None), score(5)], "mean")
    assert combined.value == pytest.approx(3.5) and combined.method == "sample_mean"
    assert combined.reason.startswith("2/3 samples scored")


@pytest.mark.parametrize(
    ("values", "expected"),
    [([4, 2, 4], 4), ([2, 4, 4, 2], 3), ([1, 2, 5], pytest.approx(8 / 3)), ([None, 3, None], 3)],
)
def test_majority_of_scores_with_ties_as_the_mean_of_the_tied(values: list[float | None], expected: float) -> None:
    combined = combine_scores([score(v) for v in values], "majority")
    assert combined.value == expected and combined.status == "parsed" and combined.method == "sample_majority"


def test_no_score_when_no_sample_scored() -> None:
    for how in ("mean", "majority"):
        combined = combine_scores([score(None), score(None)], how)
        assert combined.value is None and combined.status == "no_score" and "0/2" in combined.reason


@pytest.mark.parametrize(
    ("values", "majority", "mean"),
    [
        (["first", "second", "first"], "first", "first"),
        (["first", "second"], "tie", "tie"),
        (["first", "tie", "tie"], "tie", "first"),
        (["second", None, "second", "first"], "second", "second"),
        (["first", "first", "second", "second", "tie"], "tie", "tie"),
    ],
)
def test_verdicts_by_majority_and_by_mean_preference(values: list[str | None], majority: str, mean: str) -> None:
    assert combine_verdicts([verdict(v) for v in values], "majority").value == majority
    assert combine_verdicts([verdict(v) for v in values], "mean").value == mean


def test_no_verdict_when_no_sample_has_one() -> None:
    combined = combine_verdicts([verdict(None)], "majority")
    assert not combined.ok and "0/1 samples" in combined.reason
