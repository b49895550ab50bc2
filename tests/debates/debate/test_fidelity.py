"""``--fidelity paper`` and ``--fidelity authors-code`` pinned message for message on scripted models.

Each role has its own ``ReplayChatCompletionClient``; its ``create_calls`` show exactly what each agent's model
received, in order. The authors' behaviour pinned here was read in ``gunny97/DEBATE`` ``debate.py`` and
``evalute_score.py`` and in ``sangwongenip/geval`` branch ``tiebreaker`` (see ``debates/debate/authors.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from autogen_core.models import AssistantMessage, ChatCompletionClient, SystemMessage, UserMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.agents.personas import get_persona
from debate_eval.debates.debate.authors import (
    OFFICIAL,
    TIEBREAKER_BRANCH,
    AuthorsCodeProtocol,
)
from debate_eval.debates.debate.run import DebateConfig, run_debate
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.scoring.scores import ScoreRange
from tests.support.records import stored

DOCUMENT = "The city council met on Monday and approved the budget after a long debate about schools."
SUMMARY = "The council approved the budget on Monday after a debate about schools."
NEVER = ["Too high.", "Still too high.", "Far too high.", "No.", "Wrong."]


def make_task(aspect: str = "coherence") -> EvaluationTask:
    prompt = f"Rate {aspect} (1-5).\n\nSource Text:\n{DOCUMENT}\n\nSummary:\n{SUMMARY}\n\n- {aspect.title()}:"
    return EvaluationTask(
        item_id="doc/1", prompt=prompt, aspect=aspect, scale=ScoreRange(1, 5), untrusted=(DOCUMENT, SUMMARY)
    )


def make_config(fidelity: str, *, rounds: int = 2, tiebreaker: bool = False, bugs: bool = False) -> DebateConfig:
    authors = fidelity == "authors-code"
    if authors:
        critic = "authors-plain" if tiebreaker else "authors-devils-advocate"
        commander = "authors-commander-tiebreaker" if tiebreaker else "authors-commander"
        scorer = "scorer" if tiebreaker else "authors-scorer"
    else:
        critic, commander, scorer = ("plain" if tiebreaker else "devils-advocate"), "commander", "scorer"
    return DebateConfig(
        scorer=get_persona(scorer, "scorer"),
        critic=get_persona(critic, "critic"),
        commander=get_persona(commander, "commander"),
        tiebreaker=get_persona("tiebreaker", "tiebreaker") if tiebreaker else None,
        max_rounds=rounds,
        fidelity=fidelity,
        reproduce_bugs=bugs,
    )


def run(
    fidelity: str,
    scorer: list[str],
    critic: list[str],
    *,
    commander: list[str] | None = None,
    tiebreaker: list[str] | None = None,
    rounds: int = 2,
    bugs: bool = False,
    aspect: str = "coherence",
) -> tuple[Outcome, dict[str, ReplayChatCompletionClient]]:
    clients = {
        "scorer": ReplayChatCompletionClient(scorer),
        "critic": ReplayChatCompletionClient(critic),
        "commander": ReplayChatCompletionClient(commander or ["Commander: please think step by step."] * 5),
    }
    if tiebreaker is not None:
        clients["tiebreaker"] = ReplayChatCompletionClient(tiebreaker)
    for client in clients.values():
        client.set_cached_bool_value(False)
    overrides: dict[str, ChatCompletionClient] = dict(clients)
    pool = ClientPool(resolve_model_config(environ={}), overrides=overrides)
    config = make_config(fidelity, rounds=rounds, tiebreaker=tiebreaker is not None, bugs=bugs)
    outcome = asyncio.run(run_debate(make_task(aspect), config, pool))
    return outcome, clients


def flow(outcome: Outcome) -> list[tuple[Any, ...]]:
    return [(e["agent"], e["to"], e["relay"]) for e in outcome.transcript]


def calls(clients: dict[str, ReplayChatCompletionClient]) -> dict[str, int]:
    return {role: len(client.create_calls) for role, client in clients.items()}


def shape(messages: list[Any]) -> list[tuple[str, str]]:
    return [(type(m).__name__, m.content) for m in messages]


# ------------------------------------------------------------------------------------------ done-when case


def test_paper_n2_never_agreeing_ends_at_the_third_score_with_five_calls() -> None:
    outcome, clients = run("paper", ["Score: 1", "Score: 2", "Score: 3"], NEVER)
    assert outcome.score == 3 and outcome.decided_by == "Scorer" and outcome.stop_reason == "max_rounds"
    assert calls(clients) == {"scorer": 3, "critic": 2, "commander": 0}
    assert sum(calls(clients).values()) == len(outcome.calls) == 5
    reviews = [e["content"] for e in outcome.transcript if e["relay"] == "review"]
    assert reviews[0].endswith("Score: 1") and reviews[1].endswith("Score: 2")  # Algorithm 1: the latest score


def test_authors_code_n2_never_agreeing_ends_at_the_second_score_with_five_calls() -> None:
    outcome, clients = run("authors-code", ["Score: 1", "Score: 2", "Score: 3"], NEVER, commander=["Sure."])
    assert outcome.score == 2 and outcome.decided_by == "Scorer" and outcome.stop_reason == "max_rounds"
    assert calls(clients) == {"scorer": 2, "critic": 2, "commander": 1}
    assert len(outcome.calls) == 5 and [c.role for c in outcome.calls].count("commander") == 1
    assert flow(outcome) == [
        ("Commander", "Scorer", "task"),
        ("Scorer", None, None),
        ("Commander", "Scorer", "autoreply"),  # initiate_chat: the Commander answers S1 once, with its model
        ("Commander", "Critic", "review"),
        ("Critic", None, None),
        ("Commander", "Scorer", "feedback"),
        ("Scorer", None, None),
        ("Commander", "Critic", "review"),
        ("Critic", None, None),
        ("Commander", "Scorer", "feedback"),  # delivered, never answered (the Scorer's counter is spent)
    ]
    assert outcome.details["authors_code"]["commander_replies"] == 1
    assert outcome.details["authors_code"]["scorer_unanswered"] == 2  # the auto-reply and the 2nd feedback


def test_authors_code_messages_each_model_receives() -> None:
    _, clients = run("authors-code", ["Score: 1", "Score: 2"], NEVER, commander=["Sure."])
    task = make_task().prompt
    scorer_text = get_persona("authors-scorer", "scorer").text
    commander_text = get_persona("authors-commander", "commander").text
    # The Commander's one call: its own conversation with the Scorer (its messages as assistant).
    assert shape(clients["commander"].create_calls[0]["messages"]) == [
        ("SystemMessage", commander_text),
        ("AssistantMessage", task),
        ("UserMessage", "Score: 1"),
    ]
    # The Commander's message sits in the Scorer's history before the first feedback.
    second = clients["scorer"].create_calls[1]["messages"]
    assert [type(m) for m in second] == [SystemMessage, UserMessage, AssistantMessage, UserMessage, UserMessage]
    assert second[0].content == scorer_text and second[1].content == task and second[2].content == "Score: 1"
    assert second[3].content == "Sure."
    assert second[4].content == "Here is the feedback to your response. Please calculate the score again!\nToo high."
    # The Critic sees S1 in every round, and keeps its own history.
    critic_second = clients["critic"].create_calls[1]["messages"]
    assert critic_second[0].content == get_persona("authors-devils-advocate", "critic").text
    assert [type(m) for m in critic_second] == [SystemMessage, UserMessage, AssistantMessage, UserMessage]
    for review in (critic_second[1].content, critic_second[3].content):
        assert review.startswith("Check if the score is justified.") and review.endswith("\nScore: 1")
        assert "Score: 2" not in review


def test_authors_code_n3_the_commander_speaks_again_after_the_third_score() -> None:
    outcome, clients = run("authors-code", ["Score: 1", "Score: 2", "Score: 4"], NEVER, rounds=3)
    assert calls(clients) == {"scorer": 3, "critic": 3, "commander": 2}
    relays = [e["relay"] for e in outcome.transcript if e["agent"] == "Commander"]
    assert relays == [
        "task",
        "autoreply",
        "review",
        "feedback",
        "review",
        "feedback",
        "review",
        "feedback",
        "autoreply",
    ]
    assert outcome.score == 4  # their [-2] is S3 here
    # the unanswered 2nd feedback reaches the Scorer's model with the 3rd one
    third = clients["scorer"].create_calls[2]["messages"]
    assert third[-2].content.endswith("Still too high.") and third[-1].content.endswith("Far too high.")


def test_authors_code_agreement_uses_their_case_sensitive_marker() -> None:
    outcome, _ = run("authors-code", ["Score: 2", "Score: 3", "Score: 4"], ["no_issue here", "NO ISSUES", "x"])
    assert outcome.agreed is False  # lower case and a space do not match "NO_ISSUE"
    outcome, clients = run("authors-code", ["Score: 2", "Score: 3"], ["OK, NO_ISSUES."], rounds=2)
    assert outcome.agreed is True and outcome.rounds == 1 and outcome.score == 2
    assert calls(clients) == {"scorer": 1, "critic": 1, "commander": 1}
    outcome, _ = run("paper", ["Score: 2", "Score: 3"], ["No issue at all."], rounds=2)
    assert outcome.agreed is True  # the paper mode accepts every spelling and case


def test_agreement_in_round_two_their_index_picks_the_relay_only_with_the_bug_flag() -> None:
    scorer, critic = ["Score: 2", "Score: 3"], ["Too high; a 4 at most.", "NO_ISSUE"]
    outcome, _ = run("authors-code", scorer, critic)
    assert outcome.score == 3 and outcome.decided_by == "Scorer"  # the Scorer's latest answer
    outcome, _ = run("authors-code", scorer, critic, bugs=True)
    assert outcome.decided_by == "Commander" and outcome.details["authors_code"]["final_relay"] == "feedback"
    assert outcome.score == 4  # the first digit of the relay text (the Critic's "4"), as their code scored it


def test_authors_code_tiebreaker_gets_one_system_message_and_their_decoding() -> None:
    outcome, clients = run(
        "authors-code", ["Score: 1", "Score: 2"], ["Too low.", "Still too low."], tiebreaker=["4"], rounds=2
    )
    assert outcome.decided_by == "TieBreaker" and outcome.score == 4 and outcome.stop_reason == "tiebreaker"
    call = clients["tiebreaker"].create_calls[0]
    assert [type(m) for m in call["messages"]] == [SystemMessage]
    text = call["messages"][0].content
    assert text.startswith(get_persona("tiebreaker", "tiebreaker").text)
    assert "(Scorer)\nScore: 1\n(Critic)\nToo low.\n(Scorer)\nScore: 1\n(Critic)\nStill too low.\n" in text
    assert "Score: 2" not in text  # their log repeats S1 beside every feedback
    decoding = dict(call["extra_create_args"])  # their inference_tiebreaker's arguments, integers as written
    assert decoding == {
        "temperature": 0,
        "max_tokens": 10,
        "top_p": 0,
        "frequency_penalty": 0,
        "presence_penalty": 0,
        "stop": None,
        "n": 1,
    }
    assert all(type(value) is int for name, value in decoding.items() if name != "stop")
    assert text.endswith("<Answer (integer from 1 to 5)>\n\n\n")  # their files' last line and blank lines
    # the tiebreaker branch's marker is NO_ISSUES: "NO_ISSUE" alone does not end that debate
    outcome, _ = run("authors-code", ["Score: 1", "Score: 2"], ["NO_ISSUE", "no"], tiebreaker=["3"], rounds=2)
    assert outcome.agreed is False and outcome.score == 3


def test_authors_code_has_no_reask() -> None:
    outcome, clients = run("authors-code", ["I cannot say.", "Still unsure."], ["Bad.", "Bad."], rounds=1)
    assert outcome.score is None and outcome.reasked is False and calls(clients)["scorer"] == 2


def test_branches_and_counter_rules() -> None:
    assert (OFFICIAL.marker, OFFICIAL.default_rounds, TIEBREAKER_BRANCH.marker) == ("NO_ISSUE", 2, "NO_ISSUES")
    protocol = AuthorsCodeProtocol(max_rounds=1, tie_breaker=False, critic_agrees=lambda text: False)
    protocol.observe("Commander", {"to": "Scorer", "relay": "task"}, "P")
    protocol.observe("Scorer", {}, "Score: 3 TERMINATE")  # a message ending in TERMINATE: no Commander reply
    assert protocol.pending is not None and protocol.pending.value == "review"
    with pytest.raises(ValueError):
        DebateConfig(
            scorer=get_persona("scorer", "scorer"),
            critic=get_persona("plain", "critic"),
            commander=get_persona("commander", "commander"),
            fidelity="authors-code",
            commander_llm=True,
        )


def test_rescore_reads_an_authors_code_record_with_their_extraction() -> None:
    from debate_eval.debates.base import Reparser, get_method

    task = make_task()
    for bugs in (False, True):
        outcome, _ = run("authors-code", ["Score: 2", "Score: 3"], ["Too high; a 4 at most.", "NO_ISSUE"], bugs=bugs)
        record = {"transcript": outcome.transcript, "decided_by": outcome.decided_by, "details": outcome.details}
        reparse = Reparser(outcome.transcript, task.scale, task.aspect, task.material())
        rescored = get_method("debate").rescore(stored(record), reparse).to_json()
        assert rescored["score"] == outcome.score and rescored["parse_method"] == outcome.parse.method


def test_paper_tiebreaker_gets_its_persona_and_the_whole_log_with_the_runs_decoding() -> None:
    outcome, clients = run("paper", ["Score: 1", "Score: 2", "Score: 3"], NEVER, tiebreaker=["Score: 4"], rounds=2)
    assert outcome.decided_by == "TieBreaker" and outcome.score == 4
    call = clients["tiebreaker"].create_calls[0]
    assert [type(m) for m in call["messages"]] == [SystemMessage, UserMessage]
    assert call["messages"][0].content == get_persona("tiebreaker", "tiebreaker").text
    log = call["messages"][1].content
    assert all(f"(Scorer)\nScore: {k}" in log for k in (1, 2, 3)) and "(Critic)\nStill too high." in log
    assert not call["extra_create_args"]  # the run's decoding: no token cap, top_p 1


@pytest.mark.parametrize("method", ["debate", "multiagent", "tiebreaker", "both"])
def test_n_defaults_to_2_in_both_modes_and_their_branch_ran_5(method: str) -> None:
    """The README's "n default" row: 2 (a project choice; the official script's n_iters=2), in both modes; the
    tiebreaker branch's n_iters=5 is --max-rounds 5."""
    from debate_eval.debates.base import MethodContext, get_method

    chosen = get_method(method)
    context = MethodContext(dataset="summeval")
    for fidelity in ("paper", "authors-code"):
        config = chosen.configure({"fidelity": fidelity}, context)
        assert config.max_rounds == 2
    five = chosen.configure({"fidelity": "authors-code", "max_rounds": 5}, context)
    assert five.max_rounds == 5 == TIEBREAKER_BRANCH.default_rounds and OFFICIAL.default_rounds == 2
