"""--swap: the swapped twin, un-swapping, combining both orders; the panel majority."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from debate_eval.debates.geval.pairwise import run_geval_pairwise
from debate_eval.debates.kit.combine import combine_orders, majority_verdict
from debate_eval.debates.pairwise.prompts import render_task
from debate_eval.debates.pairwise.swap import evaluate_both_orders, swapping, with_swapped
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict


def verdict(value: str | None) -> ParsedVerdict:
    return ParsedVerdict(value, "parsed", "bare", "x") if value else no_verdict("none")


def test_swapped_twin_exchanges_the_responses(pw: SimpleNamespace) -> None:
    task = with_swapped(pw.task(), render_task)
    twin = task.swapped
    assert twin is not None and twin.swapped is None and twin.item_id == task.item_id
    assert twin.inputs["output_a"] == pw.inputs["output_b"] and twin.inputs["output_b"] == pw.inputs["output_a"]
    assert twin.prompt.index(pw.inputs["output_b"]) < twin.prompt.index(pw.inputs["output_a"])
    assert task.without_swap().swapped is None


@pytest.mark.parametrize(
    ("original", "swapped_back", "value", "consistent"),
    [
        ("first", "first", "first", True),
        ("second", "second", "second", True),
        ("tie", "tie", "tie", True),
        ("first", "second", "tie", False),  # position bias shows up as a tie
        ("first", "tie", "tie", False),
        (None, "first", None, None),
        ("second", None, None, None),
    ],
)
def test_combine_orders(original: str | None, swapped_back: str | None, value: str | None, consistent: bool | None):
    parsed, agree = combine_orders(verdict(original), verdict(swapped_back))
    assert (parsed.value, agree) == (value, consistent)


def test_always_a_judge_is_inconsistent_on_every_item(pw: SimpleNamespace) -> None:
    """A judge that always says [[A]] prefers the first position in both orders: a tie, not consistent."""
    pool, clients = pw.pool(scorer=["[[A]]", "[[A]]"])
    task = with_swapped(pw.task(), render_task)
    outcome = asyncio.run(evaluate_both_orders(lambda t, p: run_geval_pairwise(t, 1, p), task, pool))
    assert pw.served(clients["scorer"]) == 2 and len(outcome.calls) == 2
    assert outcome.verdicts == {"original": "first", "swapped": "second"}
    assert outcome.verdict == "tie" and outcome.consistent is False
    orders = [e["order"] for e in outcome.transcript]
    assert orders == ["original", "original", "swapped", "swapped"]
    assert [e["index"] for e in outcome.transcript] == [0, 1, 2, 3]
    # the second judge call saw the responses exchanged
    assert outcome.transcript[2]["content"].index(pw.inputs["output_b"]) < outcome.transcript[2]["content"].index(
        pw.inputs["output_a"]
    )
    assert outcome.details["orders"]["swapped"]["verdict_as_given"] == "first"


def test_a_consistent_judge_keeps_its_verdict(pw: SimpleNamespace) -> None:
    pool, _ = pw.pool(scorer=["[[A]]", "[[B]]"])  # A first, then the same response shown second
    run = swapping(lambda t, p: run_geval_pairwise(t, 1, p))
    outcome = asyncio.run(run(with_swapped(pw.task(), render_task), pool))
    assert outcome.verdict == "first" and outcome.consistent is True
    assert outcome.verdict_parse.method == "swap_agreement"


def test_swapping_without_twin_runs_once(pw: SimpleNamespace) -> None:
    pool, clients = pw.pool(scorer=["[[B]]"])
    outcome = asyncio.run(swapping(lambda t, p: run_geval_pairwise(t, 1, p))(pw.task(), pool))
    assert pw.served(clients["scorer"]) == 1 and outcome.verdict == "second" and outcome.verdicts is None


@pytest.mark.parametrize(
    ("votes", "value"),
    [
        (["first", "first", "second"], "first"),
        (["first", "second", "tie"], "tie"),
        (["first", "tie", "tie"], "tie"),
        (["second", "second", None], "second"),
        (["first", "second"], "tie"),
        (["first", None], "first"),
        ([None, None], None),
    ],
)
def test_majority_verdict(votes: list[str | None], value: str | None) -> None:
    parsed = majority_verdict({f"r{i}": verdict(v) for i, v in enumerate(votes)})
    assert parsed.value == value
