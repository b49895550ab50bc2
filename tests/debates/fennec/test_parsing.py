"""Fennec's criteria-list parser and merge rules, on hand-written answers."""

from __future__ import annotations

import pytest

from debate_eval.debates.fennec.criteria import merge_criteria, parse_criteria
from debate_eval.debates.fennec.merge import merge_scores, merge_verdicts
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict

CRITERIA_CASES = [
    (
        "numbered",
        "1. Accuracy: facts match\n2. Clarity: easy to read\n3. Focus: on topic",
        3,
        ["Accuracy: facts match", "Clarity: easy to read", "Focus: on topic"],
    ),
    ("parenthesis and colon", "1) Accuracy\n(2) Clarity\n3: Focus", 3, ["Accuracy", "Clarity", "Focus"]),
    ("bullets", "- Accuracy\n* Clarity\n• Focus\n+ Depth", 4, ["Accuracy", "Clarity", "Focus", "Depth"]),
    ("take the first k", "1. A one\n2. B two\n3. C three\n4. D four", 2, ["A one", "B two"]),
    (
        "preamble and closing remark",
        "Here are the criteria:\n\n1. Accuracy\n2. Clarity\n\nHope this helps.",
        3,
        ["Accuracy", "Clarity"],
    ),
    (
        "markdown bold",
        "**1. Accuracy**: facts match\n**2. Clarity**: easy to read",
        2,
        ["Accuracy: facts match", "Clarity: easy to read"],
    ),
    ("criterion labels", "Criterion 1: Accuracy\nCriterion 2: Clarity", 2, ["Accuracy", "Clarity"]),
    (
        "continued lines",
        "1. Accuracy: the facts\n   match the article\n2. Clarity",
        2,
        ["Accuracy: the facts match the article", "Clarity"],
    ),
    ("duplicates counted once", "1. Accuracy\n2. accuracy\n3. Clarity", 3, ["Accuracy", "Clarity"]),
    ("no list", "The summary should be accurate and clear.\nScore: 3", 3, []),
    ("empty", "", 3, []),
]


@pytest.mark.parametrize(("case", "text", "k", "expected"), CRITERIA_CASES, ids=[c[0] for c in CRITERIA_CASES])
def test_criteria_parser(case: str, text: str, k: int, expected: list[str]) -> None:
    assert list(parse_criteria(text, k).criteria) == expected


def test_found_counts_every_item_before_taking_k() -> None:
    parsed = parse_criteria("1. a\n2. b\n3. c\n4. d\n5. e", 3)
    assert parsed.found == 5 and len(parsed.criteria) == 3


def test_reask_keeps_the_answer_with_more_criteria() -> None:
    first, second = parse_criteria("1. a\n2. b", 3), parse_criteria("1. x", 3)
    assert merge_criteria(first, second, 3).criteria == ("a", "b")
    assert merge_criteria(second, first, 3).criteria == ("a", "b")


def score(value: float | None) -> ParsedScore:
    if value is None:
        return ParsedScore(None, "no_score", "none", "none")
    return ParsedScore(value, "parsed", "label", "x")


def test_merge_scores_is_the_mean_of_parsed_branches() -> None:
    merged = merge_scores([score(2), score(5), score(None), score(4)])
    assert merged.value == pytest.approx(11 / 3)
    assert merged.method == "branch_mean" and "no score in branch 3" in merged.reason


def test_merge_scores_without_any_score_is_no_score() -> None:
    merged = merge_scores([score(None), score(None)])
    assert merged.value is None and merged.status == "no_score"


def verdict(value: str | None) -> ParsedVerdict:
    return ParsedVerdict(value, "parsed", "bracket", "x") if value else no_verdict("none")


@pytest.mark.parametrize(
    ("votes", "expected"),
    [
        (["first", "first", "second"], "first"),
        (["second", "tie", "tie"], "second"),
        (["first", "second"], "tie"),
        (["tie", "tie", "tie"], "tie"),
        (["first", None, "second", "second"], "second"),
        ([None, "first"], "first"),
        ([None, None], None),
    ],
)
def test_merge_verdicts_sums_preferences(votes: list[str | None], expected: str | None) -> None:
    assert merge_verdicts([verdict(v) for v in votes]).value == expected
