"""Retries, cache namespacing and call recording, against a scripted server with injected faults."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import openai
import pytest
from autogen_core import InMemoryStore
from autogen_core.models import UserMessage
from autogen_ext.models.cache import ChatCompletionCache

from debate_eval.agents.client_wrappers import (
    CallRecord,
    NamespacedStore,
    ObservedClient,
    RetryingClient,
    RetryPolicy,
    TransportStats,
    retry_after_seconds,
    retry_reason,
)
from debate_eval.agents.model_clients import build_openai_client
from debate_eval.agents.scripted_server import Fault, ScriptedOpenAIServer
from debate_eval.agents.settings import ModelSettings

try:  # the transport library of the installed OpenAI SDK (openai 3 ships httpx2)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef]

MESSAGES = [UserMessage(content="Rate this. Score:", source="user")]


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=httpx.Request("POST", "http://x/v1"))
    cls = {429: openai.RateLimitError, 500: openai.InternalServerError, 400: openai.BadRequestError}[status]
    return cls("boom", response=response, body=None)


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (status_error(429), "429"),
        (status_error(500), "5xx"),
        (openai.APITimeoutError(request=httpx.Request("POST", "http://x")), "timeout"),
        (openai.APIConnectionError(request=httpx.Request("POST", "http://x")), "connection"),
        (status_error(400), None),
        (ValueError("bad"), None),
    ],
)
def test_retry_classification(error: BaseException, reason: str | None) -> None:
    assert retry_reason(error) == reason


def test_retry_after_header_forms() -> None:
    assert retry_after_seconds(status_error(429, {"retry-after": "7"})) == 7
    assert retry_after_seconds(status_error(429, {"retry-after-ms": "250"})) == 0.25
    assert retry_after_seconds(status_error(429)) is None


def test_backoff_is_capped_exponential_with_jitter() -> None:
    policy = RetryPolicy(base_delay_s=1, max_delay_s=10)
    rng = random.Random(0)
    delays = [policy.backoff(attempt, rng) for attempt in range(8)]
    for attempt, delay in enumerate(delays):
        ceiling = min(10, 2**attempt)
        assert ceiling * 0.5 <= delay <= ceiling
    assert max(delays) <= 10


def settings_for(server: ScriptedOpenAIServer, timeout: float = 5.0) -> ModelSettings:
    return ModelSettings(provider="openai", model="scripted", base_url=server.base_url, timeout_s=timeout)


def run_create(
    server: ScriptedOpenAIServer, *, max_retries: int = 3, timeout: float = 5.0
) -> tuple[Any, list[float], TransportStats]:
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go() -> Any:
        stats = TransportStats()
        raw = build_openai_client(settings_for(server, timeout), server.base_url)
        client = RetryingClient(raw, RetryPolicy(max_retries=max_retries, base_delay_s=0.01), stats, sleep=fake_sleep)
        try:
            return await client.create(MESSAGES), stats
        finally:
            await raw.close()

    result, stats = asyncio.run(go())
    return result, slept, stats


def test_429_honours_retry_after_then_succeeds() -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=429, retry_after=3)]) as server:
        result, slept, stats = run_create(server)
    assert result.content == "3" and server.count == 2
    assert slept == [3.0] and stats.retries["429"] == 1 and stats.requests == 2


def test_500_then_success() -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=500), Fault(status=503)]) as server:
        result, slept, stats = run_create(server)
    assert result.content == "3" and server.count == 3 and stats.retries["5xx"] == 2 and len(slept) == 2


def test_a_hang_past_the_timeout_is_retried() -> None:
    with ScriptedOpenAIServer(faults=[Fault(hang_s=2.0)]) as server:
        result, _, stats = run_create(server, timeout=0.5)
    assert result.content == "3" and stats.retries["timeout"] == 1


def test_permanent_400_is_not_retried() -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=400)]) as server:
        with pytest.raises(openai.BadRequestError):
            run_create(server)
        assert server.count == 1


def test_retries_give_up_after_the_limit() -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=500)] * 5) as server:
        with pytest.raises(openai.InternalServerError):
            run_create(server, max_retries=2)
        assert server.count == 3


def test_cache_namespaces_separate_settings_and_errors_are_not_cached() -> None:
    store: InMemoryStore[Any] = InMemoryStore()
    log: list[CallRecord] = []

    async def go(server: ScriptedOpenAIServer) -> list[str]:
        raw = build_openai_client(settings_for(server), server.base_url)
        retrying = RetryingClient(raw, RetryPolicy(max_retries=0), TransportStats())
        a = ObservedClient(ChatCompletionCache(retrying, NamespacedStore(store, "model-a")), "scorer", log)
        b = ObservedClient(ChatCompletionCache(retrying, NamespacedStore(store, "model-b")), "scorer", log)
        out = []
        with pytest.raises(openai.BadRequestError):
            await a.create(MESSAGES)  # a failure: must not be cached
        for client in (a, a, b):
            out.append((await client.create(MESSAGES)).content)
        await raw.close()
        return out

    with ScriptedOpenAIServer(faults=[Fault(status=400)]) as server:
        contents = asyncio.run(go(server))
        assert server.count == 3  # the error, a's first answer, b's first answer
    assert contents == ["3", "3", "3"]
    assert [record.cached for record in log] == [False, True, False]
