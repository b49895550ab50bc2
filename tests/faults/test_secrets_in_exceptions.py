"""Secrets in raised exceptions: an endpoint whose error body echoes the key and the request headers.

The Python API raises what the command line prints; both must be clean. Each provider's auth error (401)
and server error (500, after the retries) is raised through ``debate_eval.evaluate`` and through the
client stack a run uses, and the whole exception chain (``__cause__`` and ``__context__``) is walked:
no exception in it holds the key in its ``str``, ``repr``, ``args``, message or body, nor does the
formatted traceback.
"""

from __future__ import annotations

import asyncio
import json
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from autogen_core.models import UserMessage

import debate_eval
from debate_eval.agents.errors import UserError
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.providers.local_server import FAKE_SERVING, LocalServer, QuietHandler
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.agents.models.wrappers import RetryPolicy

KEYS = {  # not all shaped like a key: the configured value itself must be masked
    "openai": ("OPENAI_API_KEY", "sk-FAULTSUITE-exception-0123456789"),
    "azure": ("AZURE_OPENAI_API_KEY", "azure-FAULTSUITE-exception-4242"),
    "anthropic": ("ANTHROPIC_API_KEY", "sk-ant-FAULTSUITE-exception-777"),
    "gemini": ("GEMINI_API_KEY", "gemini-FAULTSUITE-exception-31337"),
}
MODELS = {"openai": "gpt-4o", "azure": "gpt-4o", "anthropic": "claude-sonnet-4-6", "gemini": "gemini-2.5-flash"}


class EchoServer:
    """Answers every request with ``status`` and a body echoing the key it was sent and every header."""

    def __init__(self, status: int) -> None:
        self.status = status
        self.posts = 0
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                self.read_body()
                server.posts += 1
                headers = {key.lower(): value for key, value in self.headers.items()}
                key = headers.get("api-key") or headers.get("x-api-key") or headers.get("authorization", "")
                message = f"Incorrect API key provided: {key.removeprefix('Bearer ')} (headers {headers})"
                if "/messages" in self.path:
                    kind = "authentication_error" if server.status == 401 else "api_error"
                    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
                else:
                    body = {"error": {"message": message, "type": "invalid_request_error", "code": "invalid_key"}}
                self.send_json(server.status, body)

            do_GET = do_POST

        self._server = LocalServer(Handler, lifetime_s=600, **FAKE_SERVING)
        self.root = self._server.root

    def base_url(self, provider: str) -> str:
        return {"openai": f"{self.root}/v1", "gemini": f"{self.root}/v1beta/openai/"}.get(provider, self.root)

    def stop(self) -> None:
        self._server.stop()


@pytest.fixture(params=[401, 500])
def echo(request: pytest.FixtureRequest) -> Iterator[EchoServer]:
    server = EchoServer(request.param)
    yield server
    server.stop()


def chain(error: BaseException) -> list[BaseException]:
    """``error`` and every exception it was caused by or raised during."""
    found: list[BaseException] = []
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or any(current is seen for seen in found):
            continue
        found.append(current)
        pending += [current.__cause__, current.__context__]
    return found


def assert_clean(error: BaseException, key: str) -> None:
    for link in chain(error):
        for what, text in (
            ("str", str(link)),
            ("repr", repr(link)),
            ("args", repr(link.args)),
            ("message", str(getattr(link, "message", ""))),
            ("body", json.dumps(getattr(link, "body", None), default=str)),
        ):
            assert key not in text, f"{type(link).__name__}.{what} holds the key: {text[:300]}"
    formatted = "".join(traceback.format_exception(error, chain=True))
    assert key not in formatted


def use_provider(provider: str, monkeypatch: pytest.MonkeyPatch) -> str:
    variable, key = KEYS[provider]
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, key)
    if provider == "azure":
        monkeypatch.setenv("AZURE_OPENAI_DEPLOYMENT", "judge")
    monkeypatch.setenv("DEBATE_EVAL_RETRY_BACKOFF", "0.001")
    return key


@pytest.mark.parametrize("provider", sorted(KEYS))
def test_the_api_raises_errors_without_the_key(
    provider: str, echo: EchoServer, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = use_provider(provider, monkeypatch)
    with pytest.raises(UserError) as caught:
        debate_eval.evaluate(
            "summeval",
            aspect="coherence",
            method="geval",
            provider=provider,
            model=MODELS[provider],
            base_url=echo.base_url(provider),
            limit=1,
            out=str(isolated_env / "run"),
            max_retries=1,
            no_progress=True,
        )
    assert echo.posts >= 1  # the endpoint was asked, and echoed the key
    assert "[redacted]" in str(caught.value) or "Incorrect API key" not in str(caught.value)
    assert_clean(caught.value, key)


@pytest.mark.parametrize("provider", sorted(KEYS))
def test_the_client_stack_raises_provider_errors_without_the_key(
    provider: str, echo: EchoServer, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = use_provider(provider, monkeypatch)
    config = resolve_model_config(
        ModelOverrides(provider=provider, base_url=echo.base_url(provider), model=MODELS[provider])
    )

    async def ask() -> None:
        pool = ClientPool(config, retry=RetryPolicy(max_retries=1, base_delay_s=0.001), on_retry=None)
        try:
            await pool.shared("scorer").create([UserMessage(content="Rate this.", source="user")])
        finally:
            await pool.close()

    with pytest.raises(Exception) as caught:
        asyncio.run(ask())
    assert echo.posts >= 1
    assert getattr(caught.value, "status_code", None) == echo.status
    assert_clean(caught.value, key)
