"""Waits a provider's rate-limit headers ask for: always finite, capped by the retry's documented maximum (the
limiter's hold too), an unreadable or non-finite value falls back to the backoff, a long wait is said in one
line naming the header, and the budget field shows the limit the header gave.

The limiter runs on a fake clock that moves only when a call sleeps (no real waiting); a wait that never
ends shows as a clock past ``STALL_S``.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx2
import openai
import pytest
from autogen_core.models import CreateResult, RequestUsage, UserMessage

from debate_eval.agents.models.rate_headers import MAX_HEADER_WAIT_S, parse_rate_limit_headers
from debate_eval.agents.models.rate_limit import RateLimiter
from debate_eval.agents.models.retry import RetryEvent, RetryingClient, RetryPolicy, TransportStats

STALL_S = 10 * MAX_HEADER_WAIT_S


class Stalled(Exception):
    """The fake clock ran past ``STALL_S``: the wait would not have ended."""


class FakeClock:
    def __init__(self) -> None:
        self.start = self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    @property
    def elapsed(self) -> float:
        return self.now - self.start

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        if self.elapsed > STALL_S:
            raise Stalled(f"still waiting after {self.elapsed:.0f} s")
        await asyncio.sleep(0)


def limiter(clock: FakeClock, notes: list[str]) -> RateLimiter:
    name = "m at http://127.0.0.1:1/v1"
    return RateLimiter(name, max_in_flight=8, clock=clock, sleep=clock.sleep, notice=notes.append)


def answer(lim: RateLimiter, headers: dict[str, str], *, rate_limited: bool = False) -> None:
    """One call sent and answered with ``headers``."""

    async def go() -> None:
        ticket = await lim.acquire(10)
        ticket.headers = parse_rate_limit_headers(headers)
        await lim.release(ticket, rate_limited=rate_limited)

    asyncio.run(go())


def next_send_after(lim: RateLimiter, clock: FakeClock) -> float:
    """Seconds the next call waits before it is sent."""
    before = clock.now

    async def go() -> None:
        await lim.release(await lim.acquire(10))

    asyncio.run(go())
    return clock.now - before


# --------------------------------------------------------------------------------------------- headers


@pytest.mark.parametrize(
    ("headers", "reset", "retry_after"),
    [
        ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "inf"}, None, None),
        ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "nan"}, None, None),
        ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1e400s"}, None, None),
        ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "1000000s"}, 1e6, None),
        ({"retry-after": "1e400"}, None, None),
        ({"retry-after": "inf"}, None, None),
        ({"retry-after-ms": "nan", "retry-after": "2"}, None, 2.0),
        ({"retry-after": "1000000"}, None, MAX_HEADER_WAIT_S),
        ({"retry-after-ms": "1e12"}, None, MAX_HEADER_WAIT_S),
        ({"retry-after": "Fri, 01 Jan 2100 00:00:00 GMT"}, None, MAX_HEADER_WAIT_S),
    ],
)
def test_every_header_duration_is_finite_and_a_retry_after_capped(
    headers: dict[str, str], reset: float | None, retry_after: float | None
) -> None:
    parsed = parse_rate_limit_headers(headers)
    assert parsed.requests.reset_s == reset
    assert parsed.retry_after_s == retry_after


# --------------------------------------------------------------------------------------------- limiter


def test_an_infinite_reset_with_nothing_left_does_not_stall_the_run() -> None:
    clock, notes = FakeClock(), []
    lim = limiter(clock, notes)
    answer(lim, {"x-ratelimit-limit-requests": "100", "x-ratelimit-remaining-requests": "0",
                 "x-ratelimit-reset-requests": "inf"})  # fmt: skip
    waited = next_send_after(lim, clock)  # Stalled before: the refill rate was 0
    assert 0 < waited <= 60.0  # the per-minute rate of a limit with no usable reset
    assert "/100" in lim.status()


def test_a_huge_retry_after_holds_the_endpoint_no_longer_than_the_cap() -> None:
    clock, notes = FakeClock(), []
    lim = limiter(clock, notes)
    answer(lim, {"retry-after": "1000000"}, rate_limited=True)
    assert lim.blocked_until - clock.now <= MAX_HEADER_WAIT_S  # was the header's full value (11.6 days)
    waited = next_send_after(lim, clock)
    assert waited <= MAX_HEADER_WAIT_S
    assert len(notes) == 1 and "retry-after" in notes[0] and "300 s" in notes[0], notes


def test_a_huge_reset_waits_at_most_the_cap_says_so_and_shows_the_real_limit() -> None:
    clock, notes = FakeClock(), []
    lim = limiter(clock, notes)
    answer(lim, {"x-ratelimit-limit-requests": "1000", "x-ratelimit-remaining-requests": "0",
                 "x-ratelimit-reset-requests": "1000000s"})  # fmt: skip
    status = lim.status()
    assert "0/1.0k per 300 s" in status, status  # was "rpm 0/0" for a limit of 1000
    waits = [next_send_after(lim, clock) for _ in range(3)]
    assert all(wait <= MAX_HEADER_WAIT_S for wait in waits), waits
    assert sum(waits) <= MAX_HEADER_WAIT_S, waits  # not one long wait per call
    long_waits = [wait for wait in waits if wait > 5]
    assert len(notes) == len(long_waits), (notes, waits)
    for note in notes:
        assert "\n" not in note and "x-ratelimit-reset-requests" in note, note


@pytest.mark.parametrize(
    "headers",
    [
        {
            "x-ratelimit-limit-requests": "3",
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "1000000s",
        },
        {
            "anthropic-ratelimit-requests-limit": "3",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2100-01-01T00:00:00Z",
        },
    ],
)
def test_a_far_reset_of_a_small_limit_waits_the_cap_at_most_and_says_so_once(headers: dict[str, str]) -> None:
    clock, notes = FakeClock(), []
    lim = limiter(clock, notes)
    answer(lim, headers)
    waits = [next_send_after(lim, clock) for _ in range(3)]
    # the spent window is waited out once, at most the cap (was 333,333 s a call), then it is whole again
    assert 5 < waits[0] <= MAX_HEADER_WAIT_S and waits[1:] == [0.0, 0.0], waits
    assert len(notes) == 1, notes  # one line for the long wait
    assert all("reset" in note and "capped at 300 s" in note and "\n" not in note for note in notes), notes


def test_short_waits_say_nothing() -> None:
    clock, notes = FakeClock(), []
    lim = limiter(clock, notes)
    answer(lim, {"retry-after": "2"}, rate_limited=True)
    assert next_send_after(lim, clock) == pytest.approx(2.0)
    assert notes == []


# ----------------------------------------------------------------------------------------------- retry


class Once429:
    """A client whose first call is refused with 429 and ``headers``, then answers."""

    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers
        self.calls = 0

    async def create(self, messages: Any, **kwargs: Any) -> CreateResult:
        self.calls += 1
        if self.calls == 1:
            request = httpx2.Request("POST", "http://127.0.0.1:1/v1/chat/completions")
            response = httpx2.Response(429, headers=self.headers, request=request)
            raise openai.RateLimitError("rate limited", response=response, body=None)
        return CreateResult(finish_reason="stop", content="ok", usage=RequestUsage(0, 0), cached=False)

    async def close(self) -> None:
        return None


@pytest.mark.parametrize("value", ["1e400", "inf", "nan", "soon"])
def test_a_non_finite_or_unreadable_retry_after_falls_back_to_the_backoff(value: str) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    events: list[RetryEvent] = []
    policy = RetryPolicy(max_retries=2, base_delay_s=0.5)
    client = RetryingClient(
        Once429({"retry-after": value}),  # type: ignore[arg-type]
        policy,
        TransportStats(),
        sleep=sleep,
        rng=random.Random(1),
        on_retry=events.append,
    )
    asyncio.run(client.create([UserMessage(content="x", source="user")]))
    assert len(waits) == 1 and waits[0] <= policy.base_delay_s  # the backoff, not the cap of 300 s


def test_a_capped_retry_after_says_which_header_and_that_it_was_capped() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    events: list[RetryEvent] = []
    client = RetryingClient(
        Once429({"retry-after": "1000000"}),  # type: ignore[arg-type]
        RetryPolicy(max_retries=2, base_delay_s=0.5),
        TransportStats(),
        sleep=sleep,
        on_retry=events.append,
    )
    asyncio.run(client.create([UserMessage(content="x", source="user")]))
    assert waits == [pytest.approx(MAX_HEADER_WAIT_S)]
    line = events[0].line()
    assert "retry-after: 1000000" in line and "capped" in line and "\n" not in line, line
