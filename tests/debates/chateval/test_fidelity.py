"""ChatEval ``--fidelity authors-code`` (the released FairEval flow) and the parts both modes share (re-ask,
a referee's own verdict line), pinned request by request on a scripted model; and the default panel."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from autogen_core.models import CreateResult, LLMMessage, RequestUsage, SystemMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.agents.models.wrappers import DelegatingClient
from debate_eval.agents.personas import get_persona
from debate_eval.debates.chateval import ChatEvalConfig, referee_score, run_chateval
from debate_eval.debates.chateval.prompts import FAIREVAL_FINAL_PROMPT, FAIREVAL_SUMMARY_PROMPT
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.cli.main import build_parser
from debate_eval.tasks.cli.run import build_run_config
from tests.support.records import stored

DOCUMENT = "The city council met on Monday and approved the budget after a long debate about schools."
SUMMARY = "The council approved the budget on Monday after a debate about schools."
ANTI_CONFORMITY = "Remember that you are not required to output the same value as other referees !"


def make_task() -> EvaluationTask:
    prompt = f"Rate coherence (1-5).\n\nSource Text:\n{DOCUMENT}\n\nSummary:\n{SUMMARY}\n\n- Coherence:"
    return EvaluationTask("doc/1", prompt, "coherence", ScoreRange(1, 5), (DOCUMENT, SUMMARY))


class FairClient(DelegatingClient):
    """Answers each referee (found from "... short and clear, NAME !" in the request) from its script."""

    def __init__(self, scripts: Mapping[str, list[str]], delays: Mapping[str, float] | None = None) -> None:
        super().__init__(ReplayChatCompletionClient(["unused"]))
        self.scripts = {name: list(replies) for name, replies in scripts.items()}
        self.delays = dict(delays or {})
        self.seen: list[tuple[str, list[LLMMessage], dict[str, Any]]] = []

    @staticmethod
    def agent_of(messages: Sequence[LLMMessage]) -> str:
        first = str(messages[0].content)
        if first.startswith("Summarize the lines"):
            return "Summarizer:" + str(messages[-2].content).split(":")[0] if len(messages) > 2 else "Summarizer"
        return first.split("please make your talk short and clear, ")[1].split(" !")[0]

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        agent = self.agent_of(messages)
        await asyncio.sleep(self.delays.get(agent, 0.0))
        self.seen.append((agent, list(messages), dict(kwargs.get("extra_create_args") or {})))
        script = self.scripts["Summarizer"] if agent.startswith("Summarizer") else self.scripts[agent]
        usage = RequestUsage(prompt_tokens=10, completion_tokens=5)
        return CreateResult(finish_reason="stop", content=script.pop(0), usage=usage, cached=False)

    def calls_of(self, agent: str) -> list[list[LLMMessage]]:
        return [messages for name, messages, _ in self.seen if name == agent]


def run(client: FairClient, strategy: str = "one-by-one", *, bugs: bool = False, turns: int = 2) -> Outcome:
    config = ChatEvalConfig(
        referees=(get_persona("general-public", "referee"), get_persona("critic", "referee")),
        turns=turns,
        strategy=strategy,
        fidelity="authors-code",
        reproduce_bugs=bugs,
    )
    remote = resolve_model_config(environ={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "DEBATE_EVAL_MODEL": "m"})
    pool = ClientPool(remote, overrides={"scorer": client})  # a remote model: no token cap of the run's own
    return asyncio.run(run_chateval(make_task(), config, pool))


def shape(messages: Sequence[LLMMessage]) -> list[tuple[str, str]]:
    return [(type(m).__name__, str(m.content)) for m in messages]


def final(score: int, why: str = "ok") -> str:
    return f"Evaluation evidence: {why}\nThe score: {score}"


def test_authors_code_one_by_one_requests_message_for_message() -> None:
    client = FairClient({"General Public": ["GP1", final(4)], "Critic": ["C1", final(2)]})
    outcome = run(client)
    assert [name for name, _, _ in client.seen] == ["General Public", "Critic", "General Public", "Critic"]
    gp1, gp2 = client.calls_of("General Public")
    c1, c2 = client.calls_of("Critic")
    assert not any(isinstance(m, SystemMessage) for _, ms, _ in client.seen for m in ms)  # no system message
    # turn 1: the template (role description, name, no score asked) and an empty final prompt
    assert [type(m).__name__ for m in gp1] == ["UserMessage", "UserMessage"] and gp1[1].content == ""
    assert get_persona("general-public", "referee").text in str(gp1[0].content)
    assert "The score:" not in str(gp1[0].content) and ANTI_CONFORMITY not in str(gp1[0].content)
    assert shape(c1)[1:] == [("AssistantMessage", "General Public: GP1"), ("UserMessage", "")]
    # turn 2: the final prompt in the template and as the last message; the whole memory as assistant lines
    assert ANTI_CONFORMITY in str(gp2[0].content) and gp2[-1].content == FAIREVAL_FINAL_PROMPT
    assert shape(gp2)[1:-1] == [("AssistantMessage", "General Public: GP1"), ("AssistantMessage", "Critic: C1")]
    assert shape(c2)[1:-1] == [
        ("AssistantMessage", "General Public: GP1"),
        ("AssistantMessage", "Critic: C1"),
        ("AssistantMessage", f"General Public: {final(4)}"),
    ]
    their_args = {  # their OpenAIChatArgs: temperature a float (pydantic), the rest integers and null
        "max_tokens": 512,
        "temperature": 0.0,
        "top_p": 1,
        "n": 1,
        "stop": None,
        "presence_penalty": 0,
        "frequency_penalty": 0,
    }
    assert all(json.dumps(args, sort_keys=True) == json.dumps(their_args, sort_keys=True) for *_, args in client.seen)
    assert outcome.score == pytest.approx(3.0) and outcome.details["fidelity"] == "authors-code"


def test_authors_code_retries_the_identical_request_until_the_format_parses() -> None:
    client = FairClient({"General Public": ["GP1", "I would say 4.", final(4)], "Critic": ["C1", final(2)]})
    outcome = run(client)
    first, second = client.calls_of("General Public")[1:]
    assert shape(first) == shape(second)  # the same request again
    retries = [e for e in outcome.transcript if e["relay"] == "format_retry"]
    assert [e["content"] for e in retries] == ["I would say 4."]
    assert outcome.score == pytest.approx(3.0) and outcome.details["reasks"] == 1
    assert "I would say 4." not in str(client.calls_of("Critic")[1])  # a rejected attempt is never shown


def test_authors_code_a_referee_failing_every_attempt_is_silent_and_excluded() -> None:
    client = FairClient({"General Public": ["GP1", "no", "no", "no"], "Critic": ["C1", final(2)]})
    outcome = run(client)
    assert len(client.calls_of("General Public")) == 4  # 1 + their max_retry of 3
    assert shape(client.calls_of("Critic")[1])[-2] == ("AssistantMessage", ": [Silence]")  # their updater
    assert outcome.details["excluded"] == ["General_Public"] and outcome.score == 2.0


def test_authors_code_simultaneous_memory_is_in_agent_order() -> None:
    client = FairClient(
        {"General Public": ["GP1", final(3)], "Critic": ["C1", final(5)]}, delays={"General Public": 0.05}
    )
    outcome = run(client, "simultaneous")
    c2 = client.calls_of("Critic")[1]
    assert shape(c2)[1:-1] == [("AssistantMessage", "General Public: GP1"), ("AssistantMessage", "Critic: C1")]
    assert shape(client.calls_of("Critic")[0])[1:] == [("UserMessage", "")]  # nothing of the current turn
    assert outcome.score == pytest.approx(4.0)


def test_authors_code_summaries_join_each_referees_own_memory_beside_the_history() -> None:
    client = FairClient(
        {"General Public": ["GP1", final(3)], "Critic": ["C1", final(5)], "Summarizer": ["S-gp", "S-c"]},
        delays={"Critic": 0.05},
    )
    outcome = run(client, "simultaneous-summarizer")
    summary_calls = [ms for name, ms, _ in client.seen if name.startswith("Summarizer")]
    assert len(summary_calls) == 2  # one per referee, before turn 2 (none before turn 1)
    expected_prompt = FAIREVAL_SUMMARY_PROMPT.format(summary="", new_lines="[General Public] : GP1\n[Critic] : C1\n")
    assert shape(summary_calls[0]) == [
        ("UserMessage", expected_prompt),
        ("AssistantMessage", "General Public: GP1"),
        ("AssistantMessage", "Critic: C1"),
        ("UserMessage", ""),
    ]
    gp2 = client.calls_of("General Public")[1]
    assert shape(gp2)[1:-1] == [
        ("AssistantMessage", "General Public: GP1"),
        ("AssistantMessage", "Critic: C1"),
        ("AssistantMessage", "Summarizer: S-gp"),
    ]
    summaries = [e for e in outcome.transcript if e["role"] == "summarizer"]
    assert [(e["to"], e["content"]) for e in summaries] == [("General_Public", "S-gp"), ("Critic", "S-c")]
    assert outcome.score == pytest.approx(4.0)


def test_their_simultaneous_parser_bug_only_with_the_flag() -> None:
    scripts = {"General Public": ["GP1", final(3)], "Critic": ["C1", final(5)]}
    assert len(run(FairClient(scripts), "simultaneous").calls) == 4
    buggy = {"General Public": ["GP1", final(2), final(3)], "Critic": [final(4), final(5)]}
    outcome = run(FairClient(buggy), "simultaneous", bugs=True)
    assert len(outcome.calls) == 5  # GP's first-turn answer, asked for no score, is retried
    with pytest.raises(ValueError):
        ChatEvalConfig(reproduce_bugs=True)


@pytest.mark.parametrize(
    ("text", "label", "value"),
    [
        ("I disagree with Critic's Score: 3.\nScore: 4", "Score:", 4.0),
        ("**Score:** 2", "Score:", 2.0),
        ("Evaluation evidence: Critic's Score: 5 is too high.\nThe score: 2", "The score:", 2.0),
    ],
)
def test_only_the_referees_own_verdict_line_counts(text: str, label: str, value: float) -> None:
    task = make_task()
    assert referee_score(text, task, task.material(), label=label, others=["Critic"]).value == value


def test_another_referees_quoted_score_is_not_taken_without_a_verdict_line() -> None:
    task = make_task()
    parsed = referee_score(
        "I agree with Critic's score of 3 here.", task, task.material(), label="Score:", others=["Critic"]
    )
    assert not parsed.ok


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "DEBATE_EVAL_")):
            monkeypatch.delenv(name)


def parse_run(*extra: str) -> argparse.Namespace:
    return build_parser().parse_args(["run", "--dataset", "summeval", "--aspect", "coherence", *extra])


def test_a_default_chateval_run_is_two_referees_two_turns_one_by_one(clean_env: None) -> None:
    config = build_run_config(parse_run("--protocol", "chateval"))
    panel = config.method_config
    assert isinstance(panel, ChatEvalConfig)
    shown = panel.to_dict()
    assert (shown["fidelity"], shown["referee_count"], shown["turns"], shown["strategy"]) == (
        "paper",
        2,
        2,
        "one-by-one",
    )
    assert [p["name"] for p in shown["referees"]] == ["general-public", "critic"]
    assert config.models.for_role("scorer").sampling.seed == 453


def test_the_fidelity_flag_reaches_the_configs_and_drops_the_seed(clean_env: None) -> None:
    config = build_run_config(parse_run("--protocol", "chateval", "--fidelity", "authors-code"))
    assert config.method_config.to_dict()["fidelity"] == "authors-code"
    assert config.models.for_role("scorer").sampling.seed is None  # their code sent none
    debate = build_run_config(parse_run("--protocol", "debate", "--fidelity", "authors-code"))
    shown = debate.method_config.to_dict()
    assert shown["fidelity"] == "authors-code" and shown["authors_code"]["name"] == "official"
    assert shown["scorer"]["name"] == "authors-scorer" and shown["critic"]["name"] == "authors-devils-advocate"
    assert "commander" in debate.roles()
    seeded = build_run_config(parse_run("--protocol", "debate", "--fidelity", "authors-code", "--seed", "7"))
    assert seeded.models.for_role("scorer").sampling.seed == 7
    tiebreaker = build_run_config(parse_run("--protocol", "tiebreaker", "--fidelity", "authors-code"))
    staffing = tiebreaker.method_config.to_dict()
    assert staffing["critic"]["name"] == "authors-plain" and staffing["authors_code"]["marker"] == "NO_ISSUES"
    geval = build_run_config(parse_run("--protocol", "geval", "--fidelity", "authors-code"))
    assert geval.models.for_role("scorer").sampling.seed == 453  # G-Eval has no fidelity option


def test_rescore_reads_each_referees_own_verdict_line() -> None:
    from debate_eval.debates.base import Reparser, get_method

    client = FairClient(
        {
            "General Public": ["GP1", "I would say 4.", final(4, "Critic's score: 1 is too low")],
            "Critic": ["C1", final(2)],
        }
    )
    outcome = run(client)
    task = make_task()
    record = {"transcript": outcome.transcript, "details": outcome.details, "decided_by": outcome.decided_by}
    reparse = Reparser(outcome.transcript, task.scale, task.aspect, task.material())
    rescored = get_method("chateval").rescore(stored(record), reparse).to_json()
    assert outcome.score == rescored["score"] == pytest.approx(3.0)


def test_authors_code_max_tokens_yields_to_a_lower_cap_of_the_run() -> None:
    client = FairClient({"General Public": ["GP1", final(4)], "Critic": ["C1", final(2)]})
    config = ChatEvalConfig(
        referees=(get_persona("general-public", "referee"), get_persona("critic", "referee")), fidelity="authors-code"
    )
    pool = ClientPool(resolve_model_config(environ={}), overrides={"scorer": client})  # embedded: 256 tokens
    asyncio.run(run_chateval(make_task(), config, pool))
    assert all(args["max_tokens"] == 256 for _, _, args in client.seen)


def test_each_retry_is_a_new_call_not_the_caches_first_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    client = FairClient({"General Public": ["GP1", "no", final(4)], "Critic": ["C1", final(2)]})
    remote = resolve_model_config(environ={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "DEBATE_EVAL_MODEL": "m"})
    pool = ClientPool(remote)
    variants: list[str] = []

    def shared(role: str, variant: str = "", sampling: Any = None) -> Any:
        variants.append(variant)
        return client

    monkeypatch.setattr(pool, "shared", shared)
    config = ChatEvalConfig(
        referees=(get_persona("general-public", "referee"), get_persona("critic", "referee")), fidelity="authors-code"
    )
    outcome = asyncio.run(run_chateval(make_task(), config, pool))
    assert sorted(set(variants)) == ["", "faireval-attempt-2", "faireval-attempt-3"]  # a cache namespace per attempt
    assert outcome.score == pytest.approx(3.0)


def test_authors_code_critic_is_their_released_text_and_a_silent_referee_stays_silence() -> None:
    """Their FairEval Critic says "judgement" (the paper's Appendix A: "judgment"); a referee that fails every
    attempt is "[Silence]" in their evaluation list (get_evaluation: the last N entries of the first referee's
    memory), as their code kept it."""
    from debate_eval.debates.chateval.method import chateval_config

    config = chateval_config(fidelity="authors-code")
    assert [p.name for p in config.referees] == ["general-public", "critic"]
    assert "question others judgement to make sure their judgement is well-considered" in config.referees[1].text
    assert "judgment" in chateval_config().referees[1].text  # paper mode keeps the paper's spelling
    client = FairClient({"General Public": ["GP1", final(4)], "Critic": ["C1", "no", "no", "no"]})
    remote = resolve_model_config(environ={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "DEBATE_EVAL_MODEL": "m"})
    outcome = asyncio.run(run_chateval(make_task(), config, ClientPool(remote, overrides={"scorer": client})))
    assert "their judgement is well-considered" in str(client.calls_of("Critic")[0][0].content)
    assert outcome.details["their_evaluation"] == [
        {"role": "General Public", "evaluation": final(4)},
        {"role": "", "evaluation": "[Silence]"},
    ]
    assert outcome.score == 4.0 and outcome.details["excluded"] == ["Critic"]
