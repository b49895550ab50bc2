"""Each provider against a local fake of its wire protocol (``wire_fakes.py``): the exact request it sends
(path, query, headers, body), and a 2-item debate and a 2-item pairwise G-Eval through the real command line
with usage, cost and transcripts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from anthropic._constants import ANTHROPIC_API_VERSION
from autogen_core.models import SystemMessage, UserMessage
from wire_fakes import AnthropicFake, AzureFake, GeminiFake, OllamaFake, Seen, WireFake

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.pool import build_client, provider_http_client
from debate_eval.agents.models.providers import get_provider
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.tasks.cli.main import main

MESSAGES = [SystemMessage(content="You are a careful judge."), UserMessage(content="Rate this text.", source="user")]


def ask_once(provider: str, base_url: str, model: str, env: dict[str, str], **overrides: Any) -> Any:
    """One request through the provider's client, as a run builds it; the answer."""
    config = resolve_model_config(ModelOverrides(provider=provider, base_url=base_url, model=model, **overrides), env)
    settings = config.for_role("scorer")
    url = get_provider(provider).base_url(settings, None)  # as the pool resolves it

    async def go() -> Any:
        client = build_client(settings, url, provider_http_client())
        try:
            return await client.create(MESSAGES)
        finally:
            await client.close()

    return asyncio.run(go())


def only_post(fake: WireFake) -> Seen:
    posts = fake.posts()
    assert len(posts) == 1, posts
    return posts[0]


# ------------------------------------------------------------------------------------------ request shapes


def test_anthropic_sends_a_messages_api_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    with AnthropicFake() as fake:
        result = ask_once("anthropic", fake.base_url, "claude-sonnet-4-6", {"ANTHROPIC_API_KEY": "sk-ant-fake"})
    seen = only_post(fake)
    assert seen.path == "/v1/messages" and seen.query == {}
    assert seen.headers["authorization"] == "Bearer sk-ant-fake"  # how the anthropic SDK 2.x sends the key
    assert seen.headers["anthropic-version"] == ANTHROPIC_API_VERSION
    assert seen.body == {
        "model": "claude-sonnet-4-6",
        "messages": [{"role": "user", "content": "Rate this text."}],
        "system": "You are a careful judge.",
        "max_tokens": 4096,  # required by the API: the documented default; no sampling field (see the provider)
    }
    assert result.content == "Step by step: the text is mostly clear but has some gaps.\nScore: 3"
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (8, 14)


def test_anthropic_sends_no_sampling_field_even_when_one_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")
    with AnthropicFake() as fake:
        env = {"ANTHROPIC_API_KEY": "sk-ant-fake"}
        ask_once("anthropic", fake.base_url, "claude-sonnet-4-6", env, top_p=0.9, temperature=0.7, max_tokens=300)
    body = only_post(fake).body
    assert body["max_tokens"] == 300 and not {"temperature", "top_p", "top_k", "seed"} & set(body)


def test_anthropic_errors_read_as_the_openai_sdks(monkeypatch: pytest.MonkeyPatch) -> None:
    import openai

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    with AnthropicFake() as fake, pytest.raises(openai.AuthenticationError) as caught:
        ask_once("anthropic", fake.base_url, "claude-sonnet-4-6", {"ANTHROPIC_API_KEY": "sk-ant-wrong"})
    assert caught.value.status_code == 401 and "invalid x-api-key" in str(caught.value)


def test_azure_sends_to_the_deployment_route_with_api_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-fake-key")
    env = {"AZURE_OPENAI_API_KEY": "azure-fake-key", "AZURE_OPENAI_DEPLOYMENT": "judge"}
    with AzureFake() as fake:
        result = ask_once("azure", fake.base_url, "gpt-4o", env)
    seen = only_post(fake)
    assert seen.path == "/openai/deployments/judge/chat/completions"
    assert seen.query == {"api-version": ["2024-10-21"]}
    assert seen.headers["api-key"] == "azure-fake-key" and "authorization" not in seen.headers
    assert seen.body["messages"] == [
        {"role": "system", "content": "You are a careful judge."},
        {"role": "user", "content": "Rate this text."},
    ]
    assert {k: seen.body[k] for k in ("temperature", "top_p", "seed", "frequency_penalty", "presence_penalty")} == {
        "temperature": 0.0,
        "top_p": 1.0,
        "seed": 453,
        "frequency_penalty": 0.0,
        "presence_penalty": 0.0,
    }
    assert result.content.endswith("Score: 3")


def test_azure_with_no_key_signs_in_with_an_entra_token(monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_eval.agents.models.providers import azure

    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(azure, "entra_token_provider", lambda: lambda: "entra-fake-token")
    env = {"AZURE_OPENAI_DEPLOYMENT": "judge", "AZURE_OPENAI_API_VERSION": "2025-01-01-preview"}
    with AzureFake() as fake:
        ask_once("azure", fake.base_url, "gpt-4o", env)
    seen = only_post(fake)
    assert seen.headers["authorization"] == "Bearer entra-fake-token" and "api-key" not in seen.headers
    assert seen.query == {"api-version": ["2025-01-01-preview"]}


def test_azure_needs_an_endpoint() -> None:
    config = resolve_model_config(ModelOverrides(provider="azure", model="gpt-4o"), {"AZURE_OPENAI_API_KEY": "k"})
    with pytest.raises(UserError, match="needs an endpoint: set AZURE_OPENAI_ENDPOINT"):
        build_client(config.for_role("scorer"), None, None)


def test_gemini_sends_bearer_key_to_the_openai_route_without_penalties(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-fake-key")
    with GeminiFake() as fake:
        result = ask_once("gemini", fake.base_url, "gemini-2.5-flash", {"GEMINI_API_KEY": "gemini-fake-key"})
    seen = only_post(fake)
    assert seen.path == "/v1beta/openai/chat/completions"
    assert seen.headers["authorization"] == "Bearer gemini-fake-key"
    assert "frequency_penalty" not in seen.body and "presence_penalty" not in seen.body
    assert (seen.body["model"], seen.body["temperature"], seen.body["seed"]) == ("gemini-2.5-flash", 0.0, 453)
    assert result.content.endswith("Score: 3")


@pytest.mark.parametrize("host", ["{root}", "{root}/v1", "{hostport}"])
def test_ollama_goes_to_its_openai_route_from_any_host_spelling(host: str) -> None:
    with OllamaFake() as fake:
        spelled = host.format(root=fake.root, hostport=fake.root.removeprefix("http://"))
        result = ask_once("ollama", spelled, "llama3.1:8b", {})
    seen = only_post(fake)
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer not-needed"  # no key for a local server
    assert seen.body["model"] == "llama3.1:8b" and seen.body["messages"][0]["role"] == "system"
    assert result.content.endswith("Score: 3")


def test_ollama_host_comes_from_ollama_host() -> None:
    config = resolve_model_config(ModelOverrides(provider="ollama", model="m"), {"OLLAMA_HOST": "10.1.2.3:11434"})
    assert config.for_role("critic").base_url == "10.1.2.3:11434"
    default = resolve_model_config(ModelOverrides(provider="ollama", model="m"), {})
    assert get_provider("ollama").base_url(default.for_role("critic"), None) == "http://127.0.0.1:11434/v1"
    assert get_provider("ollama").base_url(config.for_role("critic"), None) == "http://10.1.2.3:11434/v1"


def test_a_missing_sdk_fails_in_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "anthropic" else real(name, *a))
    with pytest.raises(UserError) as caught:
        get_provider("anthropic").check_installed()
    assert str(caught.value) == (
        "the anthropic provider needs the Python package 'anthropic': pip install 'debate-eval[anthropic]'"
    )


# ------------------------------------------------------------------------------------ whole runs (CLI)

OWN_PAIRS = """id,prompt,answer_1,answer_2,winner
a,What is the capital of France?,Paris.,Lyon.,A
b,How many legs has a spider?,Six.,Eight.,B
"""
PRICES = "model,input_per_million,output_per_million\nllama3.1:8b,0,0\n"


@pytest.fixture(params=["anthropic", "azure", "gemini", "ollama"])
def provider_setup(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, isolated_env: Path) -> Any:
    """(provider name, fake, model, the variables of a user of that provider)."""
    name = request.param
    setups: dict[str, tuple[Callable[[], WireFake], str, dict[str, str]]] = {
        "anthropic": (AnthropicFake, "claude-sonnet-4-6", {"ANTHROPIC_API_KEY": "sk-ant-fake"}),
        "azure": (AzureFake, "gpt-4o", {"AZURE_OPENAI_API_KEY": "azure-fake-key", "AZURE_OPENAI_DEPLOYMENT": "judge"}),
        "gemini": (GeminiFake, "gemini-2.5-flash", {"GEMINI_API_KEY": "gemini-fake-key"}),
        "ollama": (OllamaFake, "llama3.1:8b", {}),
    }
    make, model, env = setups[name]
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    if name == "ollama":  # a local model: free, by the user's own price table
        prices = isolated_env / "prices.csv"
        prices.write_text(PRICES, encoding="utf-8")
        monkeypatch.setenv("DEBATE_EVAL_PRICES", str(prices))
    with make() as fake:
        yield name, fake, model


def _run(provider: str, fake: WireFake, model: str, out: Path, *what: str) -> int:
    common = ["--provider", provider, "--base-url", fake.base_url, "--model", model, "--out", str(out)]
    return main(["run", *what, *common, "--limit", "2", "--no-progress", "--no-cache"])


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_debate_and_a_pairwise_geval_run_through_each_provider(
    provider_setup: Any, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    provider, fake, model = provider_setup
    debate = isolated_env / "debate"
    argv = ["--dataset", "summeval", "--aspect", "coherence", "--max-rounds", "1"]
    assert _run(provider, fake, model, debate, *argv) == 0
    records = _records(debate)
    assert len(records) == 2 and all(r["error"] is None and r["score"] == 3 for r in records), records
    for record in records:
        assert set(record["usage"]) == {"scorer", "critic"}
        assert all(u["prompt_tokens"] > 0 and u["completion_tokens"] > 0 for u in record["usage"].values())
        spoken = [e for e in record["transcript"] if e.get("usage")]
        assert [e["role"] for e in spoken] == ["scorer", "critic", "scorer"]
        assert all(e["content"] and e["usage"]["completion_tokens"] > 0 for e in spoken)
    summary = json.loads((debate / "summary.json").read_text(encoding="utf-8"))
    assert summary["estimated_cost_usd"] is not None and summary["llm_calls"] == 6
    config = json.loads((debate / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["models"]["scorer"]["provider"] == provider
    served = config["models"]["roles"]["scorer"]["served_model"]  # asked at the endpoint check (Ollama: its tags)
    no_identity = {"fingerprint": None, "reason": f"the {provider} API reports no weight identity"}
    assert served == (
        {"fingerprint": "sha256:" + "ab" * 32, "source": "ollama digest"} if provider == "ollama" else no_identity
    )

    pairs = isolated_env / "pairs.csv"
    pairs.write_text(OWN_PAIRS, encoding="utf-8")
    geval = isolated_env / "geval"
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    pairwise = ["--dataset", str(pairs), "--aspect", "preference", "--fields", fields, "--labels", "first=A,second=B"]
    assert _run(provider, fake, model, geval, *pairwise, "--protocol", "geval") == 0
    records = _records(geval)
    assert len(records) == 2 and all(r["verdict"] == "first" and r["error"] is None for r in records), records
    assert all(r["usage"]["evaluator"]["completion_tokens"] > 0 for r in records)
    summary = json.loads((geval / "summary.json").read_text(encoding="utf-8"))
    assert summary["estimated_cost_usd"] is not None
    assert "Traceback" not in capsys.readouterr().err


def test_structured_output_through_each_provider(provider_setup: Any, isolated_env: Path) -> None:
    """--structured-output: OpenAI-style providers send a strict JSON schema as response_format, Anthropic a
    forced tool with that schema; either way the answer is read strictly (parse method "structured")."""
    provider, fake, model = provider_setup
    out = isolated_env / "structured"
    what = ["--dataset", "summeval", "--aspect", "coherence", "--method", "geval", "--geval-no-logprobs"]
    assert _run(provider, fake, model, out, *what, "--structured-output") == 0
    records = _records(out)
    assert all(r["score"] == 3 and r["parse_method"] == "structured" for r in records), records
    # the items' requests (the endpoint check before them asks for one token, in no format)
    posts = [seen.body for seen in fake.posts() if "Summary" in json.dumps(seen.body.get("messages"))]
    assert len(posts) == 2
    for body in posts:
        if provider == "anthropic":  # its own default cap, not the embedded model's caps
            assert body["tool_choice"] == {"type": "any"} and len(body["tools"]) == 1 and body["max_tokens"] == 4096
            assert body["tools"][0]["input_schema"]["required"] == ["score"]
        else:
            assert body["response_format"]["type"] == "json_schema"
            assert body["response_format"]["json_schema"]["schema"]["properties"]["score"]["enum"] == [1, 2, 3, 4, 5]
    answers = json.loads((out / "config.json").read_text(encoding="utf-8"))["result_config"]["answers"]
    assert answers["modes"] == {"scorer": "json"}


def test_a_grammar_is_refused_where_the_api_takes_none(
    provider_setup: Any, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    provider, fake, model = provider_setup
    what = ["--dataset", "summeval", "--aspect", "coherence", "--answer-format", "grammar"]
    assert _run(provider, fake, model, isolated_env / "g", *what) == 2 and not fake.posts()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"the {provider} provider of the scorer cannot request answers as grammar" in err[0]


def test_the_entra_token_provider_comes_from_azure_identity() -> None:
    """With azure-identity installed (the [azure] extra), a token provider is made without any network call;
    the credential chain itself runs only when the first request asks for a token."""
    from debate_eval.agents.models.providers.azure import entra_token_provider

    assert callable(entra_token_provider())


@pytest.mark.parametrize("provider", ["anthropic", "azure", "gemini", "ollama"])
def test_batch_is_refused_in_one_line_for_the_providers_without_it(
    provider: str, isolated_env: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "k")
    argv = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--provider", provider]
    argv += ["--base-url", "http://127.0.0.1:9", "--model", "m", "--out", str(isolated_env / "b"), "--batch"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"debate-eval: error: --batch is not available with the {provider} provider; run without --batch"]
