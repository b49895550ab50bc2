"""Pairwise rescore: re-parsing a record's transcript gives the run's verdicts, and follows edited answers."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from debate_eval.agents.personas import get_persona
from debate_eval.debates.base import get_method
from debate_eval.debates.chateval import ChatEvalConfig
from debate_eval.debates.chateval.pairwise import run_chateval_pairwise
from debate_eval.debates.debate.pairwise import run_debate_pairwise
from debate_eval.debates.debate.run import DebateConfig
from debate_eval.debates.evaluation import Outcome
from debate_eval.debates.geval.pairwise import run_geval_pairwise
from debate_eval.debates.pairwise.prompts import render_task
from debate_eval.debates.pairwise.swap import evaluate_both_orders, with_swapped
from tests.support.records import stored


def record_of(outcome: Outcome) -> dict[str, Any]:
    return {
        "task_type": "pairwise",
        "decided_by": outcome.decided_by,
        "verdict": outcome.verdict,
        "verdicts": outcome.verdicts,
        "consistent": outcome.consistent,
        "transcript": outcome.transcript,
    }


def rescore_pairwise(method: str, record: dict[str, Any], texts: list[str]) -> dict[str, Any]:
    """``rescore`` of a pairwise record, through its method."""
    return get_method(method).rescore_pairwise(stored(record), texts).to_json()


def check_same(method: str, outcome: Outcome, texts: list[str]) -> dict[str, Any]:
    new = rescore_pairwise(method, record_of(outcome), texts)
    assert (new["verdict"], new.get("verdicts"), new.get("consistent")) == (
        outcome.verdict,
        outcome.verdicts,
        outcome.consistent,
    )
    assert new["parse_status"] == outcome.verdict_parse.status
    return new


def test_geval_with_reask_and_samples(pw: SimpleNamespace) -> None:
    texts = list(pw.inputs.values())
    pool, _ = pw.pool(scorer=["Hmm.", "[[B]]"])
    check_same("geval", asyncio.run(run_geval_pairwise(pw.task(), 1, pool)), texts)
    pool, _ = pw.pool(scorer=["[[A]]", "no idea", "[[B]]", "[[B]]"])  # sample 2 is re-asked
    outcome = asyncio.run(run_geval_pairwise(pw.task(), 3, pool))
    assert outcome.verdict == "second"
    check_same("geval", outcome, texts)


def test_debate_and_an_edited_answer(pw: SimpleNamespace) -> None:
    config = DebateConfig(
        scorer=get_persona("scorer", "scorer"),
        critic=get_persona("devils-advocate", "critic"),
        commander=get_persona("commander", "commander"),
        max_rounds=1,
    )
    pool, _ = pw.pool(scorer=["[[A]]", "I cannot tell.", "[[B]]"], critic=["Wrong."])
    outcome = asyncio.run(run_debate_pairwise(pw.task(), config, pool))
    assert outcome.verdict == "second" and outcome.reasked
    new = check_same("debate", outcome, list(pw.inputs.values()))
    # the Scorer's last answer before the re-ask now reads as a verdict: it decides
    record = record_of(outcome)
    scorer_answers = [e for e in record["transcript"] if e["agent"] == "Scorer"]
    scorer_answers[1]["content"] = "On reflection, Response A is better."
    assert rescore_pairwise("debate", record, list(pw.inputs.values()))["verdict"] == "first"
    assert new["transcript"][1]["verdict"]["value"] == "first"


def test_chateval_with_a_reasked_referee(pw: SimpleNamespace) -> None:
    pool, _ = pw.pool(referee=["[[A]]", "[[B]]", "[[A]]", "thinking", "[[B]]"])
    outcome = asyncio.run(run_chateval_pairwise(pw.task(), ChatEvalConfig(turns=2), pool))
    assert outcome.details["reasked_referees"]
    check_same("chateval", outcome, list(pw.inputs.values()))


def test_both_orders(pw: SimpleNamespace) -> None:
    pool, _ = pw.pool(scorer=["[[A]]", "[[A]]"])
    task = with_swapped(pw.task(), render_task)
    outcome = asyncio.run(evaluate_both_orders(lambda t, p: run_geval_pairwise(t, 1, p), task, pool))
    record = record_of(outcome)
    check_same("geval", outcome, list(pw.inputs.values()))
    record["transcript"][-1]["content"] = "[[B]]"  # the swapped order now prefers the same response
    new = rescore_pairwise("geval", record, list(pw.inputs.values()))
    assert new["verdict"] == "first" and new["consistent"] is True
