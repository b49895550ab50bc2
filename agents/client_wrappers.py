"""Thin ``ChatCompletionClient`` wrappers around AutoGen's own clients.

The stack each role talks through, innermost first:

1. ``OpenAIChatCompletionClient`` (AutoGen) with the OpenAI SDK's own retries off;
2. ``RetryingClient``: retries 429 (honouring Retry-After), 5xx, timeouts and connection errors with capped
   exponential backoff and jitter; any other error is final. Counts attempts and retries;
3. ``ChatCompletionCache`` (AutoGen) over a ``NamespacedStore`` of a disk ``DiskCacheStore``: the namespace
   carries model, endpoint and sampling settings, which AutoGen's cache key (messages only) leaves out.
   Errors are never cached (the cache stores only returned results);
4. ``ObservedClient``, one per debate and role: records every result (cached or not, usage, logprobs) so a
   transcript can say what each call cost and whether it reached the model.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections import Counter
from collections.abc import AsyncGenerator, Mapping, Sequence
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


@dataclass
class RetryPolicy:
    """Capped exponential backoff with full jitter: delay = uniform(0.5, 1) * min(cap, base * 2**attempt)."""

    max_retries: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    max_retry_after_s: float = 300.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Delay before retry number ``attempt`` (0-based) when the server gave no Retry-After."""
        return min(self.max_delay_s, self.base_delay_s * (2**attempt)) * rng.uniform(0.5, 1.0)


@dataclass
class TransportStats:
    """Counters shared by every request of a run."""

    requests: int = 0  # requests sent to a model endpoint (retries included)
    retries: Counter[str] = field(default_factory=Counter)  # reason -> count
    failures: Counter[str] = field(default_factory=Counter)  # final errors by type

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counters."""
        return {
            "requests": self.requests,
            "retries": sum(self.retries.values()),
            "retries_by_reason": dict(self.retries),
            "failed_requests": dict(self.failures),
        }


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
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


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
                delay = retry_after_seconds(error) if reason == "429" else None
                if delay is None:
                    delay = self.policy.backoff(attempt, self._rng)
                await self._sleep(min(delay, self.policy.max_retry_after_s))
                attempt += 1


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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (logprobs omitted: they are large and kept only where a protocol uses them)."""
        return {
            "role": self.role,
            "cached": self.cached,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "finish_reason": self.finish_reason,
            "latency_s": round(self.latency_s, 4),
        }


class ObservedClient(DelegatingClient):
    """Appends a ``CallRecord`` to ``log`` for every completion (one wrapper per debate and role)."""

    def __init__(self, inner: ChatCompletionClient, role: str, log: list[CallRecord]) -> None:
        super().__init__(inner)
        self.role = role
        self.log = log

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request and record its result."""
        started = time.perf_counter()
        result = await super().create(messages, **kwargs)
        logprobs = None
        if result.logprobs:
            logprobs = [entry.model_dump() for entry in result.logprobs]
        self.log.append(
            CallRecord(
                role=self.role,
                cached=bool(result.cached),
                prompt_tokens=result.usage.prompt_tokens,
                completion_tokens=result.usage.completion_tokens,
                finish_reason=str(result.finish_reason),
                latency_s=time.perf_counter() - started,
                logprobs=logprobs,
            )
        )
        return result
