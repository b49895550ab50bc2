"""Every provider's requests honour ``HTTP_PROXY`` and ``NO_PROXY``.

The network layer's own test (``tests/faults/test_network_faults.py``) covers the ``openai`` path; here the
``anthropic``, ``azure``, ``gemini`` and ``ollama`` providers run a 1-item debate against their wire fakes
(``wire_fakes.py``) with ``HTTP_PROXY`` pointing at the local recording proxy (``tests/conftest.py``): every
request, the endpoint check included, must pass through it. Then, with ``NO_PROXY=localhost`` and the same
fake addressed as ``localhost``, none may.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from wire_fakes import AnthropicFake, AzureFake, GeminiFake, OllamaFake, WireFake

from debate_eval.tasks.cli.main import main

SETUPS: dict[str, tuple[Callable[[], WireFake], str, dict[str, str]]] = {
    "anthropic": (AnthropicFake, "claude-sonnet-4-6", {"ANTHROPIC_API_KEY": "sk-ant-fake"}),
    "azure": (AzureFake, "gpt-4o", {"AZURE_OPENAI_API_KEY": "azure-fake-key", "AZURE_OPENAI_DEPLOYMENT": "judge"}),
    "gemini": (GeminiFake, "gemini-2.5-flash", {"GEMINI_API_KEY": "gemini-fake-key"}),
    "ollama": (OllamaFake, "llama3.1:8b", {}),
}
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")


def _debate(provider: str, base_url: str, model: str, out: Path) -> int:
    return main(
        ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--max-rounds", "1",
         "--provider", provider, "--base-url", base_url, "--model", model, "--out", str(out), "--no-progress",
         "--no-cache", "--max-retries", "0"]
    )  # fmt: skip


@pytest.mark.parametrize("provider", sorted(SETUPS))
def test_each_providers_requests_pass_the_proxy_and_no_proxy_exempts_a_host(
    provider: str, isolated_env: Path, recording_proxy: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, model, env = SETUPS[provider]
    for name in (*PROXY_VARIABLES, "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HTTP_PROXY", recording_proxy.url)
    with make() as fake:
        assert _debate(provider, fake.base_url, model, isolated_env / "proxied") == 0
        proxied = recording_proxy.urls()
        posts = fake.posts()
        assert len(posts) == 4  # the endpoint check, then Scorer, Critic, Scorer
        assert len(proxied) == len(fake.requests) and all(url.startswith(fake.root + "/") for url in proxied)
        # the chat route, and the route the endpoint check asks what is served (Ollama's tags) through it too
        asked = {"/api/tags"} if provider == "ollama" else set()
        assert {url.removeprefix(fake.root).split("?")[0] for url in proxied} == {posts[0].path, *asked}

        monkeypatch.setenv("NO_PROXY", "localhost")
        direct = fake.base_url.replace("127.0.0.1", "localhost")
        assert _debate(provider, direct, model, isolated_env / "direct") == 0
        assert recording_proxy.urls() == proxied  # nothing more passed the proxy
        assert len(fake.posts()) == 8  # yet the fake answered a second run
    record = json.loads((isolated_env / "direct" / "results.jsonl").read_text(encoding="utf-8"))
    assert record["error"] is None and record["score"] == 3
