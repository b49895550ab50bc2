"""The budgets and the adaptive window of ``RateLimiter``, on a fake clock (no real waiting)."""

from __future__ import annotations

import asyncio

import pytest

from debate_eval.agents.models.rate_headers import LimitWindow, RateLimitHeaders
from debate_eval.agents.models.rate_limit import Bucket, RateLimiter


class FakeClock:
    """A clock that moves only when someone sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


def limiter(clock: FakeClock, **kwargs: object) -> RateLimiter:
    return RateLimiter("m at x", clock=clock, sleep=clock.sleep, **kwargs)  # type: ignore[arg-type]


def test_a_hand_set_rpm_lets_a_full_minute_go_then_paces() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=100, rpm=10)

    async def main() -> list[float]:
        sent = []
        for _ in range(12):
            ticket = await lim.acquire(0)
            sent.append(clock.now - 1000.0)
            await lim.release(ticket)
        return sent

    sent = asyncio.run(main())
    assert sent[:10] == [0.0] * 10  # the bucket starts full, as a provider's does for an idle key
    assert sent[10] == pytest.approx(6.0) and sent[11] == pytest.approx(12.0)  # then one every 6 s


def test_no_call_goes_into_an_empty_token_budget() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=100, tpm=6000)  # 100 tokens a second

    async def main() -> list[float]:
        times = []
        for tokens in (5000, 900, 600):
            ticket = await lim.acquire(tokens)
            times.append(clock.now - 1000.0)
            await lim.release(ticket)
        return times

    times = asyncio.run(main())
    assert times[0] == 0.0 and times[1] == 0.0  # 5900 of 6000
    assert times[2] == pytest.approx(5.0)  # 100 left, 500 missing at 100/s


def test_headers_teach_the_limit_the_rate_and_the_level() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=8)

    async def main() -> None:
        first = await lim.acquire(10)
        others = [await lim.acquire(10) for _ in range(3)]  # sent after ``first``
        clock.now += 2.0
        # the endpoint: 120 a minute (2/s), 80 left when ``first`` arrived, full again in 20 s
        first.headers = RateLimitHeaders(requests=LimitWindow(120, 80, 20.0), style="openai")
        await lim.release(first)
        for ticket in others:
            await lim.release(ticket)

    asyncio.run(main())
    assert lim.requests is not None
    assert lim.requests.limit == 120
    assert lim.requests.rate == pytest.approx((40 - 0.5) / 20)  # (used - half a unit) / reset
    # 80 left then, minus the 3 sent after it (the refill since is not counted: the level errs low)
    assert lim.requests.available(clock.now) == pytest.approx(80 - 3)


def test_a_429_halves_the_window_and_stops_the_endpoint_until_retry_after() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=64)

    async def main() -> float:
        ticket = await lim.acquire(0)
        ticket.headers = RateLimitHeaders(retry_after_s=3.0, style="openai")
        await lim.release(ticket, rate_limited=True)
        await lim.acquire(0)
        return clock.now - 1000.0

    assert asyncio.run(main()) == pytest.approx(3.0)
    assert lim.window == 32 and lim.stats.rate_limited == 1 and lim.stats.decreases == 1


def test_one_decrease_per_round_trip() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=64)

    async def main() -> None:
        tickets = [await lim.acquire(0) for _ in range(10)]
        clock.now += 1.0
        for ticket in tickets:  # ten 429s for calls that were all in flight at once
            await lim.release(ticket, rate_limited=True)

    asyncio.run(main())
    assert lim.window == 32 and lim.stats.decreases == 1


def test_a_nearly_empty_budget_shrinks_the_window_but_not_below_what_the_rate_needs() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=64)
    lim.requests = Bucket(limit=600, rate=10.0, level=0.0, updated=clock.now)  # 10 calls a second

    async def main() -> None:
        for _ in range(40):
            ticket = await lim.acquire(0)
            clock.now += 0.5  # every answer takes 0.5 s, and the endpoint's budget stays empty
            lim.requests.level, lim.requests.updated = 0.0, clock.now  # type: ignore[union-attr]
            await lim.release(ticket)

    asyncio.run(main())
    assert lim.needed_in_flight() == 8  # ceil(10/s x 0.5 s x 1.5)
    assert lim.window == 8
    assert lim.stats.decreases == len(lim.stats.window_trace) >= 10  # 64 x 0.8^k down to 8


def test_the_window_grows_back_additively_up_to_the_bound() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=4)
    lim.window = 2.0

    async def main() -> None:
        for _ in range(20):
            await lim.release(await lim.acquire(0))

    asyncio.run(main())
    assert lim.window == 4.0


def test_calls_beyond_the_window_wait_for_a_slot() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=2)

    async def main() -> int:
        first, second = await lim.acquire(0), await lim.acquire(0)
        third = asyncio.ensure_future(lim.acquire(0))
        await asyncio.sleep(0)
        waiting = not third.done()
        await lim.release(first)
        await third
        await lim.release(second)
        return waiting

    assert asyncio.run(main())
    assert lim.stats.peak_in_flight == 2


def test_without_token_headers_the_estimate_is_settled_with_the_usage() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=4, tpm=6000)

    async def main() -> None:
        ticket = await lim.acquire(1000)
        await lim.release(ticket, used_tokens=400, completion_tokens=40)

    asyncio.run(main())
    assert lim.tokens is not None and lim.tokens.available(clock.now) == pytest.approx(6000 - 400)
    assert lim.completion_estimate(None) == pytest.approx(256 + 0.2 * (40 - 256))
    assert lim.completion_estimate(64) == 64  # a call's cap is what providers count


def test_status_shows_the_live_budget() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=8, rpm=60, tpm=90000)
    assert lim.status() == "rpm 60/60 tpm 90k/90k in flight 0/8"


def test_an_older_calls_late_answer_does_not_set_the_level() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=64)

    async def main() -> None:
        tickets = [await lim.acquire(10) for _ in range(50)]
        latest, old = tickets[-1], tickets[0]
        latest.headers = RateLimitHeaders(requests=LimitWindow(600, 500, 10.0), style="openai")
        await lim.release(latest)
        # the first call waited at the endpoint and was counted after the other 49: its answer is stale
        old.headers = RateLimitHeaders(requests=LimitWindow(600, 499, 10.0), style="openai")
        await lim.release(old)

    asyncio.run(main())
    assert lim.requests is not None and lim.requests.available(clock.now) == 500  # not 499 - 49


def test_a_token_budget_needs_as_many_calls_in_flight_as_its_rate_in_calls() -> None:
    clock = FakeClock()
    lim = limiter(clock, max_in_flight=64, tpm=60_000)  # 1000 tokens a second

    async def main() -> None:
        for _ in range(10):
            ticket = await lim.acquire(500)  # 2 calls a second
            clock.now += 2.0  # each answered after 2 s
            await lim.release(ticket)

    asyncio.run(main())
    assert lim.needed_in_flight() == 6  # 2 calls/s x 2 s x 1.5
