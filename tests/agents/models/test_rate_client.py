"""The client layer that puts calls through the rate limiter, and the HTTP hook that feeds it headers."""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest
from autogen_core.models import CreateResult, RequestUsage, UserMessage

from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.models.rate_client import (
    RateLimitedClient,
    add_rate_limit_hook,
    note_rate_limit_headers,
    open_ticket,
)
from debate_eval.agents.models.rate_limit import RateLimiter, Ticket

try:  # the transport library of the installed OpenAI SDK (openai 3 ships httpx2)
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older SDKs
    import httpx  # type: ignore[no-redef]

MESSAGES = [UserMessage(content="Rate this. Score:", source="user")]
HEADERS = {
    "x-ratelimit-limit-requests": "60",
    "x-ratelimit-remaining-requests": "10",
    "x-ratelimit-reset-requests": "50s",
}


class FakeInner(DelegatingClient):
    """Answers from a script: a CreateResult, or an exception to raise; feeds the hook like the SDK would."""

    def __init__(self, outcomes: list[Any]) -> None:
        self.outcomes = outcomes

    async def create(self, messages: Any, **kwargs: Any) -> CreateResult:  # type: ignore[override]
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        await note_rate_limit_headers(httpx.Response(200, headers=HEADERS))
        return outcome


def result(prompt: int, completion: int) -> CreateResult:
    usage = RequestUsage(prompt_tokens=prompt, completion_tokens=completion)
    return CreateResult(finish_reason="stop", content="Score: 3", usage=usage, cached=False)


def rate_limited(retry_after: str) -> openai.RateLimitError:
    response = httpx.Response(
        429, headers={**HEADERS, "retry-after": retry_after}, request=httpx.Request("POST", "http://x/v1")
    )
    return openai.RateLimitError("slow down", response=response, body=None)


def test_answers_teach_the_limiter_and_a_429_holds_the_endpoint_back() -> None:
    limiter = RateLimiter("m at x", max_in_flight=8)
    client = RateLimitedClient(FakeInner([result(100, 20), rate_limited("30")]), limiter, model="m")

    async def main() -> None:
        await client.create(MESSAGES)
        with pytest.raises(openai.RateLimitError):  # passed on to RetryingClient
            await client.create(MESSAGES)

    asyncio.run(main())
    assert limiter.requests is not None and limiter.requests.limit == 60  # learnt from the first answer
    assert limiter.stats.rate_limited == 1 and limiter.window == 4  # halved by the 429
    assert limiter.blocked_until > limiter._clock() + 25  # its retry-after holds every call back
    assert limiter.in_flight == 0  # both slots freed


def test_the_estimate_counts_the_calls_cap_with_a_margin() -> None:
    limiter = RateLimiter("m at x", max_in_flight=8)
    client = RateLimitedClient(FakeInner([]), limiter, model="m", max_tokens=50)
    assert client.estimate_tokens(MESSAGES, {}) > 50 * 1.1
    assert client.estimate_tokens(MESSAGES, {"max_tokens": 10}) < client.estimate_tokens(MESSAGES, {})


def test_the_hook_is_added_once_and_fills_only_an_open_ticket() -> None:
    http = httpx.AsyncClient()
    add_rate_limit_hook(add_rate_limit_hook(http))
    assert http.event_hooks["response"].count(note_rate_limit_headers) == 1
    ticket = Ticket(tokens=1)

    async def main() -> None:
        await note_rate_limit_headers(httpx.Response(200, headers=HEADERS))  # no call open: nothing to fill
        with open_ticket(ticket):
            await note_rate_limit_headers(httpx.Response(200, headers=HEADERS))

    asyncio.run(main())
    assert ticket.headers is not None and ticket.headers.requests.remaining == 10
