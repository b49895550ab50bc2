"""The served-model fingerprint: the parsers of what servers report, and each provider's
question to a local fake on 127.0.0.1 (the scripted server's ``GET /v1/models``, the Ollama fake's
``GET /api/tags``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from wire_fakes import OllamaFake

from debate_eval.agents.models.embedded import DEFAULT_SHA256
from debate_eval.agents.models.pool import ClientPool, provider_http_client
from debate_eval.agents.models.providers import get_provider
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.served_model import ServedModel, from_ollama_tags, from_openai_models
from debate_eval.agents.models.settings import EmbeddedSettings, ModelOverrides, ModelSettings, resolve_model_config

VLLM = {"id": "judge", "object": "model", "root": "/models/Qwen2.5-7B-Instruct", "max_model_len": 32768}
LLAMA_CPP = {
    "id": "qwen.gguf",
    "object": "model",
    "owned_by": "llamacpp",
    "meta": {"vocab_type": 2, "n_vocab": 151936, "n_ctx_train": 32768, "n_embd": 3584, "n_params": 7615616512},
}
LLAMA_CPP_PRINT = "n_params=7615616512, n_vocab=151936, n_ctx_train=32768, n_embd=3584, vocab_type=2"


@pytest.mark.parametrize(
    ("body", "model", "fingerprint", "source_or_reason"),
    [
        ({"data": [VLLM]}, "judge", "/models/Qwen2.5-7B-Instruct; max_model_len=32768", "vllm root"),
        ({"data": [{"id": "judge", "root": "org/m"}]}, "judge", "org/m", "vllm root"),  # no max_model_len
        ({"data": [{"id": "other", "root": "x"}, VLLM]}, "judge", VLLM["root"] + "; max_model_len=32768", "vllm root"),
        ({"data": [LLAMA_CPP]}, "qwen.gguf", LLAMA_CPP_PRINT, "llama.cpp meta"),
        ({"data": [LLAMA_CPP]}, "any-name", LLAMA_CPP_PRINT, "llama.cpp meta"),  # llama.cpp serves one model
        ({"data": [LLAMA_CPP, VLLM]}, "any-name", None, "GET /models lists no model 'any-name'"),
        ({"data": [{"id": "judge", "meta": {"unrelated": 1}}]}, "judge", None, "names no weights"),
        ({"data": [{"id": "judge", "object": "model"}]}, "judge", None, "names no weights"),  # LM Studio, OpenAI
        ({"data": [{"id": "judge", "root": ""}]}, "judge", None, "names no weights"),
        ({"data": [{"id": "m"}]}, "judge", None, "GET /models lists no model 'judge'"),
        ({"data": []}, "judge", None, "GET /models listed no model"),
        ({"object": "list"}, "judge", None, "GET /models listed no model"),
        (["not", "an", "object"], "judge", None, "GET /models listed no model"),
    ],
)
def test_openai_models_parser(body: Any, model: str, fingerprint: str | None, source_or_reason: str) -> None:
    served = from_openai_models(body, model)
    assert served.fingerprint == fingerprint
    if fingerprint is None:
        assert served.reason is not None and source_or_reason in served.reason
    else:
        assert served.source == source_or_reason


DIGEST = "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72"


@pytest.mark.parametrize(
    ("entries", "model", "fingerprint", "reason"),
    [
        ([{"name": "llama3.1:8b", "model": "llama3.1:8b", "digest": DIGEST}], "llama3.1:8b", DIGEST, None),
        ([{"name": "llama3:latest", "digest": DIGEST}], "llama3", DIGEST, None),  # Ollama's default tag
        ([{"name": "llama3:8b", "digest": DIGEST}], "llama3", None, "GET /api/tags lists no model 'llama3'"),
        ([{"name": "other:1b", "digest": DIGEST}], "llama3.1:8b", None, "lists no model"),
        ([{"name": "llama3.1:8b"}], "llama3.1:8b", None, "gives no digest for 'llama3.1:8b'"),
        ([], "llama3.1:8b", None, "lists no model"),
    ],
)
def test_ollama_tags_parser(entries: list[dict[str, Any]], model: str, fingerprint: str | None, reason: str) -> None:
    served = from_ollama_tags({"models": entries}, model)
    assert served.fingerprint == fingerprint
    assert served.source == ("ollama digest" if fingerprint else None)
    assert (reason is None) == (served.reason is None) and (reason is None or reason in str(served.reason))


def test_the_recorded_form_reads_back() -> None:
    known = ServedModel("/w/a", "vllm root")
    assert known.to_dict() == {"fingerprint": "/w/a", "source": "vllm root"}
    assert ServedModel.from_dict(known.to_dict()) == known
    unknown = ServedModel.unknown("GET /models answered HTTP 404")
    assert unknown.to_dict() == {"fingerprint": None, "reason": "GET /models answered HTTP 404"}
    assert ServedModel.from_dict(unknown.to_dict()) == unknown
    assert ServedModel.from_dict(None) is None and ServedModel.from_dict("x") is None


def ask(provider: str, settings: ModelSettings, base_url: str | None, embedded: EmbeddedSettings | None = None) -> Any:
    """``provider.served_model`` through a run's HTTP client."""

    async def go() -> Any:
        http = provider_http_client()
        try:
            return await get_provider(provider).served_model(settings, base_url, http, embedded or EmbeddedSettings())
        finally:
            await http.aclose()

    return asyncio.run(go())


def test_an_openai_compatible_server_is_asked_its_models() -> None:
    with ScriptedOpenAIServer(model_entries=[VLLM]) as server:
        settings = ModelSettings(provider="openai", model="judge", base_url=server.base_url, api_key_env=None)
        served = ask("openai", settings, server.base_url)
    assert served == ServedModel("/models/Qwen2.5-7B-Instruct; max_model_len=32768", "vllm root")


def test_no_models_route_or_no_server_is_no_fingerprint_and_no_error() -> None:
    with ScriptedOpenAIServer(serve_models=False) as server:
        settings = ModelSettings(provider="openai", model="judge", base_url=server.base_url)
        assert ask("openai", settings, server.base_url) == ServedModel.unknown("GET /models answered HTTP 404")
    gone = "http://127.0.0.1:9/v1"  # nothing listens there
    served = ask("openai", ModelSettings(provider="openai", model="judge", base_url=gone), gone)
    assert served.fingerprint is None and str(served.reason).startswith("GET /models failed")


def test_the_openai_api_and_the_hosted_providers_report_none_without_asking() -> None:
    settings = ModelSettings(provider="openai", model="gpt-4o-mini")
    assert ask("openai", settings, None).reason == "the OpenAI API reports no weight identity"
    for name in ("anthropic", "azure", "gemini"):
        served = ask(name, ModelSettings(provider=name, model="m"), "http://127.0.0.1:9")
        assert served == ServedModel.unknown(f"the {name} API reports no weight identity")


def test_ollama_reports_the_digest_of_its_tags() -> None:
    with OllamaFake() as fake:
        settings = ModelSettings(provider="ollama", model="llama3.1:8b", base_url=fake.root)
        url = get_provider("ollama").base_url(settings, None)
        served = ask("ollama", settings, url)
        missing = ask("ollama", ModelSettings(provider="ollama", model="qwen3:4b", base_url=fake.root), url)
        assert [seen.path for seen in fake.requests] == ["/api/tags", "/api/tags"]
    assert served == ServedModel("sha256:" + "ab" * 32, "ollama digest")
    assert missing.fingerprint is None and missing.reason == "GET /api/tags lists no model 'qwen3:4b'"


def test_the_embedded_model_is_its_checked_gguf() -> None:
    settings = ModelSettings(provider="embedded", model="smollm2")
    assert ask("embedded", settings, None) == ServedModel(DEFAULT_SHA256, "embedded sha256")
    custom = EmbeddedSettings(gguf_path="/x.gguf", gguf_sha256="ABC123")
    assert ask("embedded", settings, None, custom) == ServedModel("abc123", "embedded sha256")


def test_the_endpoint_check_gives_each_role_its_served_model() -> None:
    with ScriptedOpenAIServer(model_entries=[{"id": "judge", "root": "/w/judge"}]) as server:
        config = resolve_model_config(ModelOverrides(base_url=server.base_url, model="judge"), {})
        pool = ClientPool(config)

        async def go() -> None:
            try:
                await pool.preflight(["scorer", "critic"])
            finally:
                await pool.close()

        asyncio.run(go())
        test_requests = server.count
    assert test_requests == 1  # one endpoint: one test request, one question, for both roles
    assert pool.served_models == {r: ServedModel("/w/judge", "vllm root") for r in ("scorer", "critic")}
