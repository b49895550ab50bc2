"""Retries of transient errors: ``RetryPolicy`` (capped exponential backoff with jitter, Retry-After),
``TransportStats`` (attempts and retries by reason) and the ``RetryingClient`` layer. See ``wrappers``.

Retries are shown as they happen: before each wait ``RetryingClient`` hands a ``RetryEvent`` (what failed,
where, which attempt, how long it waits) to its ``on_retry`` listener. The default, ``print_retry``, writes
one plain line to stderr; a progress display passes its own listener (``ClientPool(on_retry=...)``,
``SessionOptions(on_retry=...)``). A listener must not raise and must not block (it runs on the event loop).
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage

from debate_eval.agents.errors import scrub_exception
from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.models.http_client import final_http_error
from debate_eval.agents.models.rate_headers import MAX_HEADER_WAIT_S, retry_after_source
from debate_eval.agents.redaction import redact

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
    max_retry_after_s: float = MAX_HEADER_WAIT_S  # the longest wait, whatever a header asks for
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

    def add(self, counts: dict[str, Any]) -> None:
        """Count another process's requests (its ``to_dict()``), as a ``--workers`` parent counts its workers'."""
        self.requests += counts.get("requests", 0)
        self.retries.update(counts.get("retries_by_reason", {}))
        self.failures.update(counts.get("failed_requests", {}))
        batch = counts.get("batch", {})
        self.batches += batch.get("batches", 0)
        self.batches_resumed += batch.get("resumed", 0)
        self.batch_requests += batch.get("requests", 0)
        self.batch_failed_lines += batch.get("failed_lines", 0)


def retry_reason(error: BaseException) -> str | None:
    """Why ``error`` is worth retrying ("429", "5xx", "timeout", "connection"), or None if it is final."""
    if final_http_error(error) is not None:  # too large an answer, a redirect: even behind an SDK's wrapper
        return None
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
    """The server's Retry-After (seconds or HTTP date; or retry-after-ms), if the error carries one: finite
    and at most ``MAX_HEADER_WAIT_S``; None (the backoff) when unreadable or not finite (e.g. "soon", "inf")."""
    return retry_after_of(error)[0]


def retry_after_of(error: BaseException) -> tuple[float | None, str]:
    """``retry_after_seconds`` and the header it came from, as a message quotes it ("" when none)."""
    response = getattr(error, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None, ""
    return retry_after_source(headers)


@dataclass(frozen=True)
class RetryEvent:
    """One retry about to happen."""

    cause: str  # what failed, on one line: "HTTP 503: overloaded", "no complete answer within 5 s", ...
    reason: str  # retry_reason's class: "429", "5xx", "timeout", "connection"
    attempt: int  # the attempt that failed, from 1
    max_retries: int
    wait_s: float  # the wait before the next attempt
    endpoint: str = ""  # where the request went, with no credentials (e.g. "http://127.0.0.1:8000/v1 model m")
    wait_source: str = ""  # the header the wait comes from ("retry-after: 20"), "" for the backoff

    def line(self) -> str:
        """The event as one plain line."""
        where = f" ({self.endpoint})" if self.endpoint else ""
        source = f"; {self.wait_source}" if self.wait_source else ""
        return (
            f"debate-eval: retry {self.attempt} of {self.max_retries} in {self.wait_s:.1f} s after {self.cause}"
            f"{where}{source}"
        )


RetryListener = Callable[[RetryEvent], None]


def print_retry(event: RetryEvent) -> None:
    """The default listener: ``event`` as one line on stderr."""
    print(event.line(), file=sys.stderr, flush=True)


def retry_cause(error: BaseException) -> str:
    """What failed, on one line and short (no secrets: status, the server's message start, or the cause)."""
    status = getattr(error, "status_code", None)
    if isinstance(status, int):
        body: Any = getattr(error, "body", None)
        inner = body.get("error", body) if isinstance(body, dict) else None
        message = inner.get("message") if isinstance(inner, dict) else None
        text = f"HTTP {status}" + (f": {message}" if isinstance(message, str) and message else "")
    else:
        text = str(error).strip() or type(error).__name__
        cause = error.__cause__
        if cause is not None and str(cause).strip() and str(cause).strip() != text:
            text = f"{text.rstrip('.')}: {cause}"
    line = redact(" ".join(text.split()))
    return line if len(line) <= 160 else line[:157] + "..."


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
        on_retry: RetryListener | None = print_retry,
        endpoint: str = "",
        is_final: Callable[[BaseException], bool] | None = None,
    ) -> None:
        """``on_retry``: told of each retry before its wait (None: nobody); ``endpoint``: named in the events;
        ``is_final``: errors not to retry although ``retry_reason`` would (the endpoint check's unreachable
        host)."""
        super().__init__(inner)
        self.policy = policy
        self.stats = stats
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.on_retry = on_retry
        self.endpoint = endpoint
        self.is_final = is_final

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Call the wrapped client, retrying transient errors up to ``policy.max_retries`` times."""
        attempt = 0
        while True:
            self.stats.requests += 1
            try:
                return await self.inner.create(messages, **kwargs)
            except Exception as error:
                reason = retry_reason(error)
                final = reason is None or (self.is_final is not None and self.is_final(error))
                if final or attempt >= self.policy.max_retries:
                    self.stats.failures[type(error).__name__] += 1
                    scrub_exception(error)  # a provider's body may echo the key: never raised in clear
                    raise
                assert reason is not None
                self.stats.retries[reason] += 1
                status = getattr(error, "status_code", None)
                retry_after, source = retry_after_of(error) if status in RETRY_AFTER_STATUSES else (None, "")
                wait = self.policy.delay(attempt, self._rng, retry_after)
                if self.on_retry is not None:
                    event = RetryEvent(
                        retry_cause(error),
                        reason,
                        attempt + 1,
                        self.policy.max_retries,
                        wait,
                        self.endpoint,
                        source if retry_after is not None and wait >= retry_after else "",
                    )
                    self.on_retry(event)
                await self._sleep(wait)
                attempt += 1
