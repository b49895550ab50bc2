"""ChatEval's pairwise form on scripted models: the panel's final verdicts, their majority, the summarizer and
the re-ask."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from debate_eval.agents.personas import get_persona
from debate_eval.debates.chateval import ChatEvalConfig
from debate_eval.debates.chateval.pairwise import run_chateval_pairwise

# ------------------------------------------------------------------------------------------------ ChatEval

# the default panel is the paper's two referees; these tests were written for three
THREE_REFEREES = tuple(get_persona(r, "referee") for r in ("general-public", "critic", "news-author"))


@pytest.mark.parametrize("strategy", ["one-by-one", "simultaneous"])
def test_chateval_majority_of_final_verdicts(pw: SimpleNamespace, strategy: str) -> None:
    # 3 referees x 2 turns; final verdicts: A, A, B
    pool, clients = pw.pool(referee=["[[B]]", "[[B]]", "[[B]]", "[[A]]", "[[A]]", "[[B]]"])
    outcome = asyncio.run(run_chateval_pairwise(pw.task(), ChatEvalConfig(THREE_REFEREES, strategy=strategy), pool))
    assert pw.served(clients["referee"]) == 6 and len(outcome.calls) == 6
    assert outcome.verdict == "first" and outcome.verdict_parse.method == "referee_majority"
    assert outcome.details["final_verdicts"] == {"General_Public": "first", "Critic": "first", "News_Author": "second"}
    opening = outcome.transcript[0]["content"]
    assert "referee on a panel of 3" in opening and pw.inputs["output_b"] in opening


def test_chateval_split_panel_is_a_tie(pw: SimpleNamespace) -> None:
    two = ChatEvalConfig(referees=(get_persona("general-public", "referee"), get_persona("critic", "referee")), turns=1)
    pool, _ = pw.pool(referee=["[[A]]", "[[B]]"])
    outcome = asyncio.run(run_chateval_pairwise(pw.task(), two, pool))
    assert outcome.verdict == "tie" and "Split" in outcome.verdict_parse.reason


def test_chateval_summarizer_and_reask(pw: SimpleNamespace) -> None:
    config = ChatEvalConfig(THREE_REFEREES, strategy="simultaneous-summarizer")
    # turn 1: three referees; summary; turn 2: three referees (one without a verdict); its re-ask
    pool, clients = pw.pool(
        referee=["[[A]]", "[[A]]", "[[B]]", "[[A]]", "thinking...", "[[B]]", "[[B]]"], summarizer=["All said A or B."]
    )
    outcome = asyncio.run(run_chateval_pairwise(pw.task(), config, pool))
    assert pw.served(clients["summarizer"]) == 1 and pw.served(clients["referee"]) == 7
    assert outcome.details["reasked_referees"] == ["Critic"]
    assert outcome.details["final_verdicts"] == {"General_Public": "first", "Critic": "second", "News_Author": "second"}
    assert outcome.verdict == "second"
    assert ("user", "Critic", "reask") in pw.flow(outcome)


def test_chateval_no_verdict_from_anyone(pw: SimpleNamespace) -> None:
    one = ChatEvalConfig(referees=(get_persona("scientist", "referee"),), turns=1)
    pool, clients = pw.pool(referee=["I like both.", "Still both."])
    outcome = asyncio.run(run_chateval_pairwise(pw.task(), one, pool))
    assert pw.served(clients["referee"]) == 2 and outcome.verdict is None


# ----------------------------------------------------------------------------------------------- rescore


def test_chateval_with_a_reasked_referee(pw: SimpleNamespace) -> None:
    pool, _ = pw.pool(referee=["[[A]]", "[[B]]", "[[A]]", "thinking", "[[B]]"])
    outcome = asyncio.run(run_chateval_pairwise(pw.task(), ChatEvalConfig(turns=2), pool))
    assert outcome.details["reasked_referees"]
    pw.check_same("chateval", outcome, list(pw.inputs.values()))
