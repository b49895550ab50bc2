"""The cold-start burst: the first wave of calls uses the budget the endpoint check learnt, and a window that
reports ``remaining: 0`` with a reset is waited out before sending, not after a 429.

The endpoint is Azure-style: a per-minute quota enforced as fixed windows, whole again when a window ends,
with OpenAI's ``x-ratelimit-*`` headers on every answer. The measured run (429 share over a whole G-Eval run,
first window included, for both window styles) is ``scripts/bench_rate_limits.py --cold-start``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from support.rate_limited_server import Latency, RateLimitedServer

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.rate_headers import parse_rate_limit_headers
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config

sys.path.insert(0, str(Path(__file__).parent))
from test_rate_waits import FakeClock, limiter, next_send_after  # the fake-clock limiter of the wait tests


def test_the_endpoint_checks_headers_are_the_first_waves_budget(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-cold-start-not-a-key")
    # 20 requests per window, a window long enough not to end during the test: the check takes one
    with RateLimitedServer(rpm=20, window_s=600, fixed_windows=True, latency=Latency(0.0, 0.0)) as server:
        config = resolve_model_config(ModelOverrides(base_url=server.base_url, model="gpt-4o"))

        async def check() -> ClientPool:
            pool = ClientPool(config, on_retry=None)
            try:
                await pool.preflight(["scorer"])
            finally:
                await pool.close()
            return pool

        pool = asyncio.run(check())
        assert server.stats.requests == 1  # what the server received: the check alone
    (limiter_of_endpoint,) = pool.limiters.values()  # made by the check (before: none until the first wave)
    budget = limiter_of_endpoint.requests
    assert budget is not None and budget.limit == 20
    assert budget.available(limiter_of_endpoint._clock()) == pytest.approx(19)  # the check's remaining


def window(left: int, reset_s: float) -> dict[str, str]:
    """An answer's headers: 5 requests per window, ``left`` of them left, the window ends in ``reset_s``."""
    return {
        "x-ratelimit-limit-requests": "5",
        "x-ratelimit-remaining-requests": str(left),
        "x-ratelimit-reset-requests": f"{reset_s:g}s",
    }


def test_a_spent_window_is_waited_out_before_sending_then_it_is_whole() -> None:
    clock, notes = FakeClock(), []
    lim = limiter(clock, notes)
    sent: list[float] = []

    async def call(headers: dict[str, str] | None = None) -> None:
        ticket = await lim.acquire(10)
        sent.append(clock.now - clock.start)
        ticket.headers = parse_rate_limit_headers(headers or window(4, 10))
        await lim.release(ticket)

    async def run() -> None:
        await call(window(4, 10))  # the endpoint check: 4 of 5 left, the window ends in 10 s
        for left in (3, 2, 1, 0):  # the first wave: what the check said is left
            await call(window(left, 10))
        await call(window(4, 10))  # the next call: after the window's end, the first of the new window
        for left in (3, 2, 1, 0):
            await call(window(left, 10))

    asyncio.run(run())
    assert sent[:5] == [0.0] * 5  # the check and what it said is left, at once
    # then the window is spent: the next call waits for its end (before: 12 s at the assumed per-minute rate,
    # or at once with a full bucket assumed, and the endpoint answered 429)
    assert sent[5] == pytest.approx(10.0)
    assert sent[6:] == [pytest.approx(10.0)] * 4  # the new window is whole


def test_a_window_reported_empty_holds_every_call_until_its_reset() -> None:
    clock, notes = FakeClock(), []
    lim = limiter(clock, notes)

    async def burst() -> None:  # 3 calls in flight; the last one sent says nothing is left for 7 s
        tickets = [await lim.acquire(10) for _ in range(3)]
        for number, ticket in enumerate(tickets):
            left = 2 - number
            reset = {"x-ratelimit-reset-requests": "7s", "x-ratelimit-limit-requests": "3"}
            ticket.headers = parse_rate_limit_headers({**reset, "x-ratelimit-remaining-requests": str(left)})
        await lim.release(tickets[2])
        await lim.release(tickets[0])
        await lim.release(tickets[1])

    asyncio.run(burst())
    assert next_send_after(lim, clock) == pytest.approx(7.0)
