"""The ``litellm`` provider, offline: every role through ``litellm.acompletion`` on LiteLLM's OpenAI-compatible
route (``openai/<model>`` with ``api_base`` the scripted endpoint on 127.0.0.1), under the run's layers as any
provider: the same answers and tokens as the ``openai`` provider, the key sent, retries of a 429, the response
cache, secrets masked; prices from LiteLLM's map where ``prices.csv`` has none."""

from __future__ import annotations

import asyncio
import json
import math
import os
from pathlib import Path

import pytest
from support.integrations import integration_library

import debate_eval
from debate_eval.agents.models.providers.scripted_server import Fault, ScriptedOpenAIServer

integration_library("litellm", "litellm")

SECRET = "sk-test-LiteLLM-5e2d9a"
JUDGE = {"aspect": "coherence", "criteria": "Coherent?", "max_rounds": 1}
SUMMARY, ARTICLE = "The council approved the budget.", "The council met and approved the budget."


def preflight(body: dict) -> bool:
    """The endpoint check's request (one per endpoint, before the first call)."""
    return body["messages"][-1]["content"] == "Reply with OK."


def test_the_same_judgment_as_the_openai_provider(isolated_env: Path) -> None:
    with ScriptedOpenAIServer() as server:
        with debate_eval.Judge(**JUDGE, provider="openai", model="scripted", base_url=server.base_url) as judge:
            direct = judge.score(SUMMARY, source=ARTICLE)
        sent = len(server.requests)
        os.environ["LITELLM_API_KEY"] = SECRET
        with debate_eval.Judge(**JUDGE, provider="litellm", model="openai/scripted", base_url=server.base_url) as judge:
            through = judge.score(SUMMARY, source=ARTICLE)
        bodies = [body for body in server.requests[sent:] if not preflight(body)]
        headers = server.headers[sent:]
    assert through.ok and through.score == direct.score and through.rationale == direct.rationale
    assert (through.prompt_tokens, through.completion_tokens) == (direct.prompt_tokens, direct.completion_tokens)
    calls = [m for m in through.messages if m.usage]
    assert len(bodies) == len(calls) == 3  # Scorer, Critic, Scorer: each one acompletion (and the endpoint check)
    for body in bodies:  # LiteLLM's openai route: the model name without the prefix, the run's sampling
        assert body["model"] == "scripted" and body["temperature"] == 0 and body["seed"] == 453
    assert all(h.get("authorization") == f"Bearer {SECRET}" for h in headers)


def test_retries_cache_and_redaction_are_the_run_s(isolated_env: Path) -> None:
    os.environ["LITELLM_API_KEY"] = SECRET
    leaking = ScriptedOpenAIServer(
        faults=[Fault(status=429, retry_after=0)], reply=lambda request: f"{SECRET}\nScore: 3"
    )
    with leaking as server:
        options = {**JUDGE, "provider": "litellm", "model": "openai/scripted", "base_url": server.base_url}
        options["no_preflight"] = True  # the 429 answers the Scorer's first call
        with debate_eval.Judge(**options) as judge:
            first = judge.score(SUMMARY, source=ARTICLE)
            asked = server.count
            again = judge.score(SUMMARY, source=ARTICLE)
        assert server.count == asked  # the second judgment: every call answered from the response cache
    calls = [m for m in first.messages if m.usage]
    assert asked == len(calls) + 1  # the 429 answered first, retried by the run's retry layer
    assert first.score == 3.0 and again.score == 3.0
    assert all(m.cached for m in again.messages if m.usage) and not any(m.cached for m in calls)
    assert all(SECRET not in m.content for m in first.messages + again.messages)  # the key masked in answers


def test_prices_from_litellm_s_map_where_the_table_has_none(isolated_env: Path) -> None:
    from debate_eval.agents.models.providers.litellm_client import import_litellm
    from debate_eval.tasks.engine.accounting import Price, load_prices

    litellm = import_litellm()
    prices = load_prices()
    entry = litellm.model_cost["gpt-4o-mini"]
    assert "gpt-4o-mini" in prices and prices.get("gpt-4o-mini") == prices["gpt-4o-mini"]  # the table overrides
    missing = next(
        name
        for name, e in litellm.model_cost.items()
        if name not in prices
        and e.get("mode") == "chat"
        and e.get("input_cost_per_token")
        and e.get("cache_read_input_token_cost") is None
        and e.get("input_cost_per_token_batches") is None
    )
    found = prices.get(missing)
    expected = litellm.model_cost[missing]
    assert found == Price(expected["input_cost_per_token"] * 1e6, (expected.get("output_cost_per_token") or 0) * 1e6)
    assert prices.get(f"openai/{missing}") == found and prices.get("no-such-model-anywhere") is None
    assert entry["input_cost_per_token"] > 0


@pytest.mark.parametrize("flag", ["--provider"])
def test_the_command_line_runs_through_litellm(isolated_env: Path, flag: str) -> None:
    from debate_eval.tasks.cli.main import main

    with ScriptedOpenAIServer() as server:
        code = main(
            [
                "run",
                "--dataset",
                "summeval",
                "--aspect",
                "coherence",
                "--limit",
                "1",
                "--max-rounds",
                "1",
                flag,
                "litellm",
                "--model",
                "openai/scripted",
                "--base-url",
                server.base_url,
                "--no-progress",
                "--out",
                "r",
            ]
        )
        assert code == 0 and len([body for body in server.requests if not preflight(body)]) == 3
    (record,) = debate_eval.load_run("r").records
    assert record.score is not None and record.error is None


# p(3) = 0.5, p(4) = 0.3, p(2) = 0.2 offered for the score token: by hand the weighted score is
# 0.5 * 3 + 0.3 * 4 + 0.2 * 2 = 3.1 and the confidence the likeliest token's probability, 0.5
OFFERED = {"3": math.log(0.5), "4": math.log(0.3), "2": math.log(0.2)}


class NoLogprobsServer(ScriptedOpenAIServer):
    """The scripted endpoint answering without log-probabilities, whatever the request asks."""

    def completion(self, request: dict) -> dict:
        answer = super().completion(request)
        answer["choices"][0].pop("logprobs", None)
        return answer


def test_logprobs_are_mapped_as_autogen_s_openai_client_maps_them(isolated_env: Path) -> None:
    from autogen_core.models import UserMessage
    from autogen_ext.models.openai import OpenAIChatCompletionClient

    from debate_eval.agents.models.providers.litellm_client import LiteLLMClient
    from debate_eval.agents.models.settings import ModelSettings

    messages = [UserMessage(content="Score it.", source="user")]
    sampling = {"logprobs": True, "top_logprobs": 3}
    with ScriptedOpenAIServer(top_logprobs=OFFERED, reply=lambda request: "Score: 3") as server:
        info = {"vision": False, "function_calling": False, "json_output": False, "family": "unknown"}
        autogen = OpenAIChatCompletionClient(model="scripted", base_url=server.base_url, api_key="k", model_info=info)
        reference = asyncio.run(autogen.create(messages, extra_create_args=sampling))
        settings = ModelSettings(provider="litellm", model="openai/scripted")  # no key: "not-needed" is sent
        through = asyncio.run(LiteLLMClient(settings, server.base_url, sampling).create(messages))
        asked = server.requests[-1]
    assert asked["logprobs"] is True and asked["top_logprobs"] == 3  # passed on to the endpoint
    assert reference.logprobs is not None and len(reference.logprobs) == 2  # "Score:" and "3"
    assert [e.model_dump() for e in through.logprobs or []] == [e.model_dump() for e in reference.logprobs]
    assert [top.logprob for top in through.logprobs[1].top_logprobs] == list(OFFERED.values())


def run_geval(server: ScriptedOpenAIServer, provider: str, model: str, out: str) -> dict:
    """One SummEval item judged by G-Eval through ``provider``: its record."""
    from debate_eval.tasks.cli.main import main

    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--protocol", "geval"]
    args += ["--provider", provider, "--model", model, "--base-url", server.base_url, "--no-progress"]
    assert main([*args, "--no-preflight", "--out", out]) == 0
    return json.loads(Path(out, "results.jsonl").read_text(encoding="utf-8").splitlines()[0])


def test_geval_weights_by_logprobs_through_litellm_as_through_openai(isolated_env: Path) -> None:
    with ScriptedOpenAIServer(top_logprobs=OFFERED) as server:
        direct = run_geval(server, "openai", "scripted", "direct")
        through = run_geval(server, "litellm", "openai/scripted", "through")
        assert all(body.get("logprobs") is True and body.get("top_logprobs") for body in server.requests)
    assert through["details"]["method"] == "logprob_weighted"
    assert through["score"] == pytest.approx(3.1) and through["confidence"] == pytest.approx(0.5)
    assert through["details"] == direct["details"]
    assert (through["score"], through["confidence"]) == (direct["score"], direct["confidence"])


def test_geval_without_logprobs_falls_back_as_the_openai_provider_does(isolated_env: Path) -> None:
    with NoLogprobsServer() as server:
        direct = run_geval(server, "openai", "scripted", "direct")
        through = run_geval(server, "litellm", "openai/scripted", "through")
    why = "the endpoint returned no log-probabilities"
    assert through["details"] == direct["details"] == {"method": "parsed", "logprobs": why}
    assert through["score"] == direct["score"] == 3
    assert through.get("confidence") is None and direct.get("confidence") is None  # one answer: none
