"""Thin ``ChatCompletionClient`` wrappers around AutoGen's own clients.

The stack each role talks through, innermost first:

1. ``OpenAIChatCompletionClient`` (AutoGen) with the OpenAI SDK's own retries off;
2. ``LimitedClient`` (the embedded model only): at most as many requests in flight as the server has slots,
   so requests waiting for a slot do not count against the timeout;
3. ``RetryingClient``: retries 429 and 503 (honouring Retry-After), other 5xx, timeouts and connection errors
   with capped exponential backoff and jitter; any other error is final. Counts attempts and retries;
4. ``ChatCompletionCache`` (AutoGen) over a ``NamespacedStore`` of a disk ``DiskCacheStore``: the namespace
   carries model, endpoint and sampling settings, which AutoGen's cache key (messages only) leaves out.
   Errors are never cached (the cache stores only returned results);
5. ``ObservedClient``, one per debate and role: records every result (cached or not, usage, logprobs) so a
   transcript can say what each call cost and whether it reached the model. Inside ``recording_calls(log)``
   every record is also added to ``log``: the runner's per-item log, kept even when the item fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import os
import random
import time
from collections import Counter
from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
from autogen_core import CacheStore, CancellationToken
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,  # type: ignore[attr-defined]
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from debate_eval.agents.models.usage_transport import observing_call


class DelegatingClient(ChatCompletionClient):
    """Forwards everything to ``inner``; subclasses override ``create``."""

    def __init__(self, inner: ChatCompletionClient) -> None:
        self.inner = inner

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        """Forward a completion request."""
        return await self.inner.create(
            messages,
            tools=tools,
            tool_choice=tool_choice,
            json_output=json_output,
            extra_create_args=extra_create_args,
            cancellation_token=cancellation_token,
        )

    def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        """Forward a streaming request (no retries, no recording: the debates do not stream)."""
        return self.inner.create_stream(
            messages,
            tools=tools,
            tool_choice=tool_choice,
            json_output=json_output,
            extra_create_args=extra_create_args,
            cancellation_token=cancellation_token,
        )

    async def close(self) -> None:
        """Close the wrapped client."""
        await self.inner.close()

    def actual_usage(self) -> RequestUsage:
        """Usage of the wrapped client."""
        return self.inner.actual_usage()

    def total_usage(self) -> RequestUsage:
        """Usage of the wrapped client."""
        return self.inner.total_usage()

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        """Token count from the wrapped client."""
        return self.inner.count_tokens(messages, tools=tools)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        """Remaining tokens from the wrapped client."""
        return self.inner.remaining_tokens(messages, tools=tools)

    @property
    def capabilities(self) -> ModelCapabilities:  # type: ignore[override]
        """Capabilities of the wrapped client."""
        return self.inner.capabilities

    @property
    def model_info(self) -> ModelInfo:
        """Model info of the wrapped client."""
        return self.inner.model_info


# ---------------------------------------------------------------------------------------------- retries


BACKOFF_ENV = "DEBATE_EVAL_RETRY_BACKOFF"


def default_backoff() -> float:
    """The first retry's delay in seconds before jitter: ``$DEBATE_EVAL_RETRY_BACKOFF``, else 1 (e.g. 0.01 in
    tests and against a local server)."""
    try:
        return max(0.0, float(os.environ.get(BACKOFF_ENV) or 1.0))
    except ValueError:
        return 1.0


@dataclass
class RetryPolicy:
    """Capped exponential backoff with full jitter: delay = uniform(0.5, 1) * min(cap, base * 2**attempt)."""

    max_retries: int = 6
    base_delay_s: float = field(default_factory=default_backoff)
    max_delay_s: float = 60.0
    max_retry_after_s: float = 300.0
    retry_after_jitter: float = 0.1  # a Retry-After of s waits uniform(s, s * 1.1), so debates do not retry at once

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Delay before retry number ``attempt`` (0-based) when the server gave no Retry-After."""
        return min(self.max_delay_s, self.base_delay_s * (2**attempt)) * rng.uniform(0.5, 1.0)

    def delay(self, attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Delay before retry number ``attempt``: the backoff, or the server's Retry-After (jittered upwards)
        when that is longer; never more than ``max_retry_after_s``."""
        delay = self.backoff(attempt, rng)
        if retry_after is not None:
            delay = max(delay, retry_after * rng.uniform(1.0, 1.0 + self.retry_after_jitter))
        return min(delay, self.max_retry_after_s)


@dataclass
class TransportStats:
    """Counters shared by every request of a run."""

    requests: int = 0  # requests sent to a model endpoint (retries included)
    retries: Counter[str] = field(default_factory=Counter)  # reason -> count
    failures: Counter[str] = field(default_factory=Counter)  # final errors by type
    batches: int = 0  # Batch API batches submitted (--batch)
    batches_resumed: int = 0  # batches of an earlier invocation polled again instead of resubmitted
    batch_requests: int = 0  # request lines in the submitted batches
    batch_failed_lines: int = 0  # lines that came back failed (a retry queues them in a later batch)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counters."""
        data: dict[str, Any] = {
            "requests": self.requests,
            "retries": sum(self.retries.values()),
            "retries_by_reason": dict(self.retries),
            "failed_requests": dict(self.failures),
        }
        if self.batches or self.batches_resumed:
            data["batch"] = {
                "batches": self.batches,
                "resumed": self.batches_resumed,
                "requests": self.batch_requests,
                "failed_lines": self.batch_failed_lines,
            }
        return data


def retry_reason(error: BaseException) -> str | None:
    """Why ``error`` is worth retrying ("429", "5xx", "timeout", "connection"), or None if it is final."""
    if isinstance(error, openai.APITimeoutError | asyncio.TimeoutError | TimeoutError):
        return "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection"
    if isinstance(error, openai.APIStatusError):
        if error.status_code == 429:
            return "429"
        if error.status_code >= 500:
            return "5xx"
    return None


def retry_after_seconds(error: BaseException) -> float | None:
    """The server's Retry-After (seconds or HTTP date; or retry-after-ms), if the error carries one."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (ValueError, TypeError):  # neither seconds nor an HTTP date (e.g. "soon"): use the backoff
        return None
    if parsed is None:
        return None
    return max(0.0, parsed.timestamp() - time.time())


RETRY_AFTER_STATUSES = (429, 503)  # the statuses whose Retry-After is honoured (RFC 9110 names 503 and 429)


class RetryingClient(DelegatingClient):
    """Retries transient failures of the wrapped client; everything else is raised at once."""

    def __init__(
        self,
        inner: ChatCompletionClient,
        policy: RetryPolicy,
        stats: TransportStats,
        *,
        sleep: Any = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(inner)
        self.policy = policy
        self.stats = stats
        self._sleep = sleep
        self._rng = rng or random.Random()

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Call the wrapped client, retrying transient errors up to ``policy.max_retries`` times."""
        attempt = 0
        while True:
            self.stats.requests += 1
            try:
                return await super().create(messages, **kwargs)
            except Exception as error:
                reason = retry_reason(error)
                if reason is None or attempt >= self.policy.max_retries:
                    self.stats.failures[type(error).__name__] += 1
                    raise
                self.stats.retries[reason] += 1
                status = getattr(error, "status_code", None)
                retry_after = retry_after_seconds(error) if status in RETRY_AFTER_STATUSES else None
                await self._sleep(self.policy.delay(attempt, self._rng, retry_after))
                attempt += 1


# ----------------------------------------------------------------------------------------- concurrency


class ConcurrencyLimit:
    """At most ``limit`` requests at once over every client that shares it.

    The semaphore is made on first use, on the running event loop (and again if a later run uses another).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def semaphore(self) -> asyncio.Semaphore:
        """The semaphore of the running event loop."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.limit), loop
        return self._semaphore


class LimitedClient(DelegatingClient):
    """Waits for a free slot of ``limit`` before each request (the request's timeout starts after the wait)."""

    def __init__(self, inner: ChatCompletionClient, limit: ConcurrencyLimit) -> None:
        super().__init__(inner)
        self.limit = limit

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request once a slot is free."""
        async with self.limit.semaphore():
            return await super().create(messages, **kwargs)


# ------------------------------------------------------------------------------------------------ cache


class NamespacedStore(CacheStore[Any]):
    """A view of a cache store where every key is prefixed with a namespace (a hash of the settings)."""

    def __init__(self, inner: CacheStore[Any], namespace: str) -> None:
        self.inner = inner
        self.namespace = namespace

    def get(self, key: str, default: Any = None) -> Any:
        """Look ``key`` up in this namespace."""
        return self.inner.get(f"{self.namespace}:{key}", default)

    def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` in this namespace."""
        self.inner.set(f"{self.namespace}:{key}", value)


# -------------------------------------------------------------------------------------------- recording


@dataclass
class CallRecord:
    """One completion as seen by an agent."""

    role: str
    cached: bool
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    latency_s: float
    logprobs: list[dict[str, Any]] | None = None
    cached_prompt_tokens: int = 0  # prompt tokens the provider served from its prefix cache
    batch: bool = False  # answered through the Batch API

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (logprobs omitted: they are large and kept only where a protocol uses them)."""
        return {
            "role": self.role,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "batch": self.batch,
            "finish_reason": self.finish_reason,
            "latency_s": round(self.latency_s, 4),
        }


_ITEM_CALLS: ContextVar[list[CallRecord] | None] = ContextVar("debate_eval_item_calls", default=None)


@contextlib.contextmanager
def recording_calls(log: list[CallRecord]) -> Iterator[list[CallRecord]]:
    """Add every ``CallRecord`` made in this context to ``log`` too (the runner's per-item log).

    Tasks started inside the context (AutoGen's agent runtime) inherit it, so the calls of an item that fails
    half-way are still known.
    """
    token = _ITEM_CALLS.set(log)
    try:
        yield log
    finally:
        _ITEM_CALLS.reset(token)


class ObservedClient(DelegatingClient):
    """Appends a ``CallRecord`` to ``log`` for every completion (one wrapper per debate and role), and to the
    log of ``recording_calls`` when one is active."""

    def __init__(self, inner: ChatCompletionClient, role: str, log: list[CallRecord]) -> None:
        super().__init__(inner)
        self.role = role
        self.log = log

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request and record its result."""
        started = time.perf_counter()
        with observing_call() as meta:  # the transport notes cached prompt tokens and batch answers here
            result = await super().create(messages, **kwargs)
        logprobs = None
        if result.logprobs:
            logprobs = [entry.model_dump() for entry in result.logprobs]
        record = CallRecord(
            role=self.role,
            cached=bool(result.cached),
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            finish_reason=str(result.finish_reason),
            latency_s=time.perf_counter() - started,
            logprobs=logprobs,
            cached_prompt_tokens=0 if result.cached else meta.cached_prompt_tokens,
            batch=meta.batch and not result.cached,
        )
        self.log.append(record)
        item_log = _ITEM_CALLS.get()
        if item_log is not None and item_log is not self.log:
            item_log.append(record)  # the same object: a protocol's later relabelling shows in both
        return result
