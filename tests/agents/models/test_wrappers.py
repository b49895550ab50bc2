"""Retries, cache namespacing and call recording, against a scripted server with injected faults."""

from __future__ import annotations

import asyncio
import email.utils
import random
import threading
import time
from collections import Counter
from typing import Any

import openai
import pytest
from autogen_core import InMemoryStore
from autogen_core.models import UserMessage
from autogen_ext.models.cache import ChatCompletionCache

from debate_eval.agents.models.pool import ClientPool, build_openai_client
from debate_eval.agents.models.providers.scripted_server import Fault, ScriptedOpenAIServer
from debate_eval.agents.models.settings import ModelOverrides, ModelSettings, resolve_model_config
from debate_eval.agents.models.wrappers import (
    CallRecord,
    DelegatingClient,
    NamespacedStore,
    ObservedClient,
    RetryEvent,
    RetryingClient,
    RetryPolicy,
    TransportStats,
    retry_after_seconds,
    retry_reason,
)
from debate_eval.debates.base import all_methods

try:  # the transport library of the installed OpenAI SDK (openai 3 ships httpx2)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef]

# the scripted server knows only the Scorer: the one-number answers below are G-Eval's Evaluator's, which it
# gives once the methods registered their replies (whichever test runs first)
all_methods()
MESSAGES = [UserMessage(content="Rate this. Score:", source="user")]


def status_error(status: int, headers: dict[str, str] | None = None) -> openai.APIStatusError:
    response = httpx.Response(status, headers=headers or {}, request=httpx.Request("POST", "http://x/v1"))
    cls = {429: openai.RateLimitError, 500: openai.InternalServerError, 503: openai.InternalServerError}.get(
        status, openai.BadRequestError
    )
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
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 25 < retry_after_seconds(status_error(429, {"retry-after": later})) <= 30  # type: ignore[operator]
    assert retry_after_seconds(status_error(429, {"retry-after": "soon"})) is None  # not a date: no crash


def test_retry_delay_is_the_longer_of_retry_after_and_backoff_jittered_and_capped() -> None:
    policy = RetryPolicy(base_delay_s=10, max_delay_s=60, max_retry_after_s=100)
    rng = random.Random(0)
    assert policy.delay(2, rng, retry_after=1) >= 20  # backoff 40 * uniform(0.5, 1) beats a short Retry-After
    waits = [policy.delay(0, rng, retry_after=30) for _ in range(20)]
    assert all(30 <= wait <= 33 for wait in waits) and len(set(waits)) > 1  # never early, not all at once
    assert policy.delay(0, rng, retry_after=1000) == 100


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


class RaisesFirst(DelegatingClient):
    """Raises ``errors`` on the first requests, then forwards."""

    def __init__(self, inner: Any, errors: list[BaseException]) -> None:
        super().__init__(inner)
        self.errors = errors

    async def create(self, messages: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        if self.errors:
            raise self.errors.pop(0)
        return await super().create(messages, **kwargs)


def run_create(
    server: ScriptedOpenAIServer,
    *,
    max_retries: int = 3,
    timeout: float = 5.0,
    raise_first: list[BaseException] | None = None,
) -> tuple[Any, list[float], TransportStats]:
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)

    async def go() -> Any:
        stats = TransportStats()
        raw = build_openai_client(settings_for(server, timeout), server.base_url)
        inner = RaisesFirst(raw, list(raise_first or []))
        client = RetryingClient(inner, RetryPolicy(max_retries=max_retries, base_delay_s=0.01), stats, sleep=fake_sleep)
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
    assert len(slept) == 1 and 3.0 <= slept[0] <= 3.3 and stats.retries["429"] == 1 and stats.requests == 2


def test_503_honours_retry_after_too() -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=503, retry_after=2)]) as server:
        result, slept, stats = run_create(server)
    assert result.content == "3" and len(slept) == 1 and 2.0 <= slept[0] <= 2.2 and stats.retries["5xx"] == 1


def test_an_unparsable_retry_after_falls_back_to_the_backoff() -> None:
    with ScriptedOpenAIServer() as server:
        result, slept, stats = run_create(server, raise_first=[status_error(429, {"retry-after": "soon"})])
    assert result.content == "3" and server.count == 1 and stats.retries["429"] == 1
    assert len(slept) == 1 and 0.005 <= slept[0] <= 0.01  # the first backoff step (base 0.01)


def test_500_then_success() -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=500), Fault(status=503)]) as server:
        result, slept, stats = run_create(server)
    assert result.content == "3" and server.count == 3 and stats.retries["5xx"] == 2 and len(slept) == 2


def test_a_hang_past_the_timeout_is_retried() -> None:
    with ScriptedOpenAIServer(faults=[Fault(hang_s=10.0)]) as server:
        result, _, stats = run_create(server, timeout=2.0)  # the retry, merely slow on a loaded machine, is in time
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


class InFlight:
    """A scripted reply that takes a while and notes the most requests the server held at once.

    Each request is held until ``until_peak`` requests have been in flight at once (bounded by ``limit_s``),
    so that many overlap however slowly a loaded machine sends them; when the client never lets that many
    through, the wait ends at the bound and the peak stays lower.
    """

    def __init__(self, seconds: float, until_peak: int, limit_s: float = 30.0) -> None:
        self.seconds = seconds
        self.until_peak = until_peak
        self.limit_s = limit_s
        self.changed = threading.Condition()
        self.now = self.peak = 0

    def __call__(self, request: Any) -> str:
        with self.changed:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.peak >= self.until_peak, self.limit_s)
        time.sleep(self.seconds)
        with self.changed:
            self.now -= 1
        return "Score: 3"


def test_the_embedded_server_gets_at_most_its_slots_whatever_the_concurrency() -> None:
    gauge = InFlight(0.1, until_peak=2)
    config = resolve_model_config(ModelOverrides(embedded_parallel=2), environ={})  # every role embedded
    assert config.for_role("scorer").provider == "embedded"

    async def go(pool: ClientPool) -> list[Any]:
        clients = [pool.shared("scorer"), pool.shared("critic"), pool.shared("scorer", variant="other")]
        try:
            return await asyncio.gather(*(clients[k % 3].create(MESSAGES) for k in range(8)))
        finally:
            await pool.close()

    with ScriptedOpenAIServer(reply=gauge) as server:
        for _ in range(2):  # the pool is made outside any loop, and each run has a loop of its own
            pool = ClientPool(config, embedded_base_url=server.base_url, retry=RetryPolicy(max_retries=0))
            results = asyncio.run(go(pool))
            assert [r.content for r in results] == ["Score: 3"] * 8
        assert server.count == 16
    assert gauge.peak == 2  # 8 requests in flight on the client side, never more than 2 slots at the server


def test_a_remote_endpoint_is_not_limited_by_the_embedded_slots() -> None:
    gauge = InFlight(0.2, until_peak=3)
    with ScriptedOpenAIServer(reply=gauge) as server:
        config = resolve_model_config(ModelOverrides(base_url=server.base_url, model="scripted"), environ={})

        async def go() -> None:
            pool = ClientPool(config, retry=RetryPolicy(max_retries=0))
            try:
                await asyncio.gather(*(pool.shared("scorer").create(MESSAGES) for _ in range(4)))
            finally:
                await pool.close()

        asyncio.run(go())
    assert gauge.peak > 2


def test_each_retry_is_told_to_the_listener_before_its_wait() -> None:
    events: list[RetryEvent] = []
    slept: list[float] = []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        assert len(events) == len(slept)  # the event came first

    async def go() -> Any:
        with ScriptedOpenAIServer(faults=[Fault(status=503, message="overloaded"), Fault(status=500)]) as server:
            raw = build_openai_client(settings_for(server), server.base_url)
            client = RetryingClient(
                raw,
                RetryPolicy(max_retries=3, base_delay_s=0.01),
                TransportStats(),
                sleep=fake_sleep,
                on_retry=events.append,
                endpoint="http://x/v1, model m",
            )
            try:
                return await client.create(MESSAGES)
            finally:
                await raw.close()

    assert asyncio.run(go()).content == "3"
    assert [(e.reason, e.attempt, e.max_retries) for e in events] == [("5xx", 1, 3), ("5xx", 2, 3)]
    assert events[0].cause == "HTTP 503: overloaded" and [e.wait_s for e in events] == slept
    assert (
        events[0].line()
        == f"debate-eval: retry 1 of 3 in {slept[0]:.1f} s after HTTP 503: overloaded (http://x/v1, model m)"
    )


def test_a_final_network_error_is_not_retried_even_when_an_sdk_wraps_it() -> None:
    from debate_eval.agents.models.http_client import AnswerTooLargeError

    request = httpx.Request("POST", "http://x/v1/chat/completions")
    try:
        try:
            raise AnswerTooLargeError("http://x/v1/chat/completions", 10, 20)
        except AnswerTooLargeError as inner:
            raise openai.APIConnectionError(request=request) from inner  # as the anthropic SDK wraps it
    except openai.APIConnectionError as wrapped:
        assert retry_reason(wrapped) is None


def test_transport_stats_add_another_process_counts() -> None:
    """A --workers parent sums its workers' counters (their ``to_dict()``), here two by hand."""
    parent = TransportStats(requests=3, retries=Counter({"429": 1}))
    worker = TransportStats(requests=5, retries=Counter({"429": 2, "5xx": 1}), failures=Counter({"Timeout": 1}))
    worker.batches, worker.batch_requests, worker.batch_failed_lines = 2, 7, 1
    parent.add(worker.to_dict())
    parent.add(TransportStats(requests=1).to_dict())
    assert parent.to_dict() == {
        "requests": 9,
        "retries": 4,
        "retries_by_reason": {"429": 3, "5xx": 1},
        "failed_requests": {"Timeout": 1},
        "batch": {"batches": 2, "resumed": 0, "requests": 7, "failed_lines": 1},
    }
