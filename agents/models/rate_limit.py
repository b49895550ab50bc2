"""Request and token budgets of one endpoint and model, and the number of calls in flight, adapted as a
provider's limits show themselves.

``RateLimiter`` is shared by every client stack (every role) that talks to the same endpoint and model. Each
model call first takes a slot of the adaptive window (``window``: calls in flight, at most ``max_in_flight``,
the run's ``--concurrency``), then waits, first come first served, until the request budget has a request
and the token budget has the call's estimated tokens (``token_estimate``), takes them, and is sent. So no
call is sent into an empty budget, and a call's timeout starts when it is sent.

Budgets are buckets that refill continuously, as providers' limits do: ``limit`` per window (a minute), a
``rate`` of ``limit / 60`` a second. They come from ``--rpm`` / ``--tpm`` (by hand) or from the response
headers (``rate_headers``): the answer to the latest call sent so far, its ``remaining`` less what the calls
sent after it took, resets the bucket's level (an older call's answer may have waited at the endpoint while
later ones were counted: it is not used for the level); a ``reset`` gives the refill rate. Token estimates
carry a margin (``TOKEN_MARGIN``): with headers to correct the level it only raises the threshold a call
waits for, not the rate of calls.
A hand-set budget is never raised by a header, but a header saying less is left lowers its level.

The window follows AIMD: +1/window after each answer while the budget is not nearly empty (additive
increase), x0.5 after a 429 (whose ``retry-after`` also stops every call of the endpoint until then), and
x0.8 when a header shows the budget nearly empty (multiplicative decrease); at most one decrease per
round-trip time. A nearly empty budget does not push the window below what the known rate needs (rate x
mean latency x 1.5: Little's law with a margin), so the window settles near what the limit sustains.

No wait is endless or silent: a header's durations are finite and capped (``rate_headers.MAX_HEADER_WAIT_S``,
the hold of a 429 too), a bucket always refills, and a call that must wait more than ``LONG_WAIT_S`` says so
in one line (``notice``, default: stderr): how long, for which endpoint, and the header behind the wait.
"""

from __future__ import annotations

import asyncio
import logging
import math
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from debate_eval.agents.models.rate_headers import MAX_HEADER_WAIT_S, LimitWindow, RateLimitHeaders, capped_wait

logger = logging.getLogger(__name__)
WINDOW_S = 60.0  # --rpm / --tpm and header limits without a usable reset are per minute
NEAR_EMPTY = 0.05  # a budget with less than this share left is nearly empty
RATE_FROM_RESET_MIN_USED = 0.25  # a reset gives the refill rate once this share of the limit is used
DECREASE_ON_429 = 0.5
DECREASE_NEAR_EMPTY = 0.8
NEED_MARGIN = 1.5
MAX_SLEEP_S = 1.0  # a waiting call looks at the budget again at least this often (headers may change it)
LATENCY_EWMA = 0.2
COMPLETION_EWMA = 0.2
TOKEN_MARGIN = 1.1  # a call reserves its estimate plus 10% (providers count tokens their own way)
DEFAULT_COMPLETION_TOKENS = 256  # the guess before any answer (or the max_tokens cap, when a call sets one)
LONG_WAIT_S = 5.0  # a call that waits longer for the budget says so in one line
WINDOWS_SCATTER = 2.0  # resets whose rates differ more than this come from fixed windows
CONTINUOUS_SPAN = 2.0  # resets that agree (within CONTINUOUS_AGREE) over this span of use: a refilled bucket
CONTINUOUS_AGREE = 1.5
SMALLER_WINDOW = 0.5  # no answer showed this share of the limit left: the limit is not a window's budget


def print_notice(line: str) -> None:
    """The default ``RateLimiter`` notice: ``line`` on stderr."""
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class RateOptions:
    """A run's rate settings: budgets by hand (per minute, for each endpoint and model) and the most calls in
    flight (``--concurrency``)."""

    rpm: float | None = None
    tpm: float | None = None
    max_in_flight: int = 1024  # a pool built without options bounds nothing its callers do not bound already


@dataclass
class Bucket:
    """A continuously refilled budget: up to ``limit``, ``rate`` a second; ``level`` at clock ``updated``."""

    limit: float
    rate: float
    level: float
    updated: float
    by_hand: bool = False
    rate_seen: bool = False  # a header's reset has given the refill rate
    source: str = ""  # the header that last set the refill rate or the level (for messages)
    hold_until: float = -math.inf  # the reset a header gave: nothing refills before it, the limit is whole at it
    hold_level: float = 0.0  # the level when the hold began (what is taken during it counts after it)
    hold_debt: float = 0.0  # what calls sent after the answered one took: not whole again at the reset
    hold_span: float = 0.0  # the reset's length (after the reset, refill resumes once as long again has passed)
    refill: str = ""  # "continuous" or "windows" once the headers have shown which; "" until then
    estimates: tuple[float, float, float, float] = (math.inf, 0.0, math.inf, 0.0)  # rates, used: least, most
    budget_seen: float = 0.0  # the most a fresh window has shown it holds: ``remaining`` + 1 after a reset
    most_left: float = 0.0  # the largest ``remaining`` + 1 of any answer (a window holds at least that)
    smaller: bool = False  # no answer showed as much as SMALLER_WINDOW of the limit left: windows below it
    longest_reset: float = 0.0  # the longest reset a header gave (fixed windows: the window's length, at most)

    def available(self, now: float) -> float:
        """What is left at ``now``."""
        if self.hold_until == -math.inf:
            return min(self.limit, self.level + self.rate * max(0.0, now - self.updated))
        if now < self.hold_until:
            return min(self.limit, self.level)
        if self.updated < self.hold_until:  # the window has reset since: whole again, less what was taken
            # (calls sent during the hold: the reset is the latest the window can end, they may be in either)
            taken = self.level - self.hold_level
            # a window whose real budget no fresh window has shown yet: whole at most what any answer showed
            top = min(self.limit, self.most_left) if self.smaller and not self.budget_seen else self.limit
            whole = top - self.hold_debt + taken
            return min(self.limit, whole + self.rate * max(0.0, now - self.hold_until - self.hold_span))
        return min(
            self.limit, self.level + self.rate * max(0.0, now - max(self.updated, self.hold_until + self.hold_span))
        )

    def wait_time(self, amount: float, now: float) -> float:
        """Seconds until ``amount`` (at most the whole limit) is available."""
        if now < self.hold_until and min(amount, self.limit) > self.level + 1e-9:
            return self.hold_until - now
        missing = min(amount, self.limit) - self.available(now)
        if missing <= 1e-9 * max(1.0, amount):  # rounding: a wait the clock could not even advance by
            return 0.0
        return missing / self.rate if self.rate > 0 else MAX_SLEEP_S

    def take(self, amount: float, now: float) -> None:
        """Spend ``amount``."""
        self.level, self.updated = self.available(now) - amount, now

    def give_back(self, amount: float, now: float) -> None:
        """Return ``amount`` (negative: spend more) after the fact."""
        self.level, self.updated = self.available(now) + amount, now

    def observe(
        self,
        window: LimitWindow,
        taken_after: float | None,
        now: float,
        unsure: float = 0.0,
        sent_at: float | None = None,
    ) -> None:
        """Follow what a header said: the limit, its refill rate, and (unless ``taken_after`` is None: a stale
        answer) what is left now: ``remaining`` less what the calls sent after that one took. Refill since is
        not counted, so the level errs low by at most rate x latency, which costs nothing while the budget
        binds (the bucket then never fills up). ``unsure``: what calls sent before this one and unanswered
        took, which may not be in ``remaining`` yet (counted as taken once the resets have shown fixed windows);
        ``sent_at``: when the answered call was sent (after a reset: it tells the window's real budget).

        Until the resets have shown a continuous refill (``refill``), a header's reset is a hold: nothing
        refills before it and the limit is whole at it (``hold_until``). So a window that ends at its reset
        (Azure enforces a per-minute quota as 10 s windows) and reports ``remaining: 0`` is waited out before
        sending, not after a 429; a bucket that refills continuously is whole at its reset too (less what calls
        sent after the answered one took: ``hold_debt``), and its
        answers (each a fresh level) say sooner what came back. During a hold, and for an answer about the
        window a hold ended, an answer lowers what is left, never raises it or resets the window again: a burst
        sent at once is counted in any order, and an answer may arrive after its window has ended. Fixed
        windows refill only at their resets: a window's budget per window, nothing in between."""
        if window.remaining is not None:
            self.most_left = max(self.most_left, window.remaining + 1)
        if window.remaining is not None and sent_at is not None and sent_at >= self.hold_until > -math.inf:
            # a call sent after a reset the headers gave, in a fresh window: its answer counts the call itself,
            # so the window holds at least ``remaining`` + 1 (exactly that for the first call it counted)
            self.budget_seen = max(self.budget_seen, window.remaining + 1)
        if window.limit:  # Azure: 120 a minute said, 20 per 10 s enforced (``remaining`` of 20 at most)
            self.smaller = self.refill != "continuous" and 1 < self.most_left <= SMALLER_WINDOW * window.limit
        if window.limit is not None and window.limit > 0 and not self.by_hand:
            # a window's budget may be less than the limit said (Azure: 120 a minute as 20 per 10 s, the
            # headers saying 120 and what is left of the 20): the most fresh windows showed, until the
            # resets show a bucket that refills continuously
            fresh = self.budget_seen and self.smaller
            self.limit = min(window.limit, self.budget_seen) if fresh else window.limit
        used = (self.limit if window.limit else 0) - (window.remaining if window.remaining is not None else math.inf)
        if window.reset_header:
            self.source = window.reset_header
        reset = capped_wait(window.reset_s)  # no wait for a refill is longer than a header's longest wait
        if reset:
            self.longest_reset = max(self.longest_reset, reset)
        if window.limit and reset and used >= max(2.0, RATE_FROM_RESET_MIN_USED * self.limit):
            rate = (used - 0.5) / reset  # ``remaining`` is rounded down: half a unit less was used
            self._classify(rate, used)
            if not self.by_hand and self.refill == "windows":
                # a fixed window's reset says when it ends, not how fast it refills: a window's budget per
                # window (its length: the longest reset seen)
                self.rate, self.rate_seen = self.limit / self.longest_reset, True
            elif not self.by_hand:
                if not self.refill:  # one reset late in a fixed window looks like a fast refill: until the
                    rate = min(rate, self.limit / WINDOW_S)  # resets show which, at most the per-minute rate
                self.rate = self.rate + 0.5 * (rate - self.rate) if self.rate_seen else rate
                self.rate_seen = True
        if window.remaining is None or taken_after is None:
            return
        # calls sent before this one and unanswered count as taken where a window must not be overrun: fixed
        # windows, or a budget whose headers gave a reset before without showing a continuous refill (a burst
        # sent at once is counted in any order: its latest call may have been counted before the others)
        windows = self.refill == "windows" or (not self.refill and self.hold_until > -math.inf)
        level = window.remaining - taken_after - (unsure if windows else 0.0)
        # a window smaller than the limit said (no answer showed half of it left) refills only at its end: an
        # answer about it lowers what is left, never raises it (a call counted before others sent earlier,
        # whose answers came back first, says too much is left)
        # an answer about the window the hold ends (it was counted before that reset: sent no later than the
        # reset less its own, the latest the window can end) lowers it too, but cannot reset it again
        held = sent_at is not None and reset is not None and sent_at + reset <= self.hold_until
        if self.refill != "continuous" and not self.by_hand and (now < self.hold_until or held):
            before = self.available(now)
            self.level, self.updated = min(before, level), now
            self.hold_level -= before - self.level  # what the answer showed was taken, not what was sent since
            if self.refill == "windows":  # the resets have shown windows since the hold began
                self.hold_span = max(self.hold_span, WINDOW_S)
            return
        self.level = min(self.available(now), level) if self.by_hand else min(self.limit, level)
        self.updated = now
        if reset is not None and not self.by_hand and self.refill != "continuous":
            # nothing refills before the reset (a window that ends then), the limit is whole at it
            # fixed windows: the window after the reset is whole until it ends too, nothing refills in it (the
            # next answers give the next reset; until a minute later, the longest a window of these limits lasts)
            span = max(reset, WINDOW_S) if self.refill == "windows" else reset
            self.hold_until, self.hold_level, self.hold_span = now + reset, self.level, span
            self.hold_debt = max(0.0, taken_after)
            self.source = window.reset_header or self.source
        else:
            self.hold_until = -math.inf

    def _classify(self, rate: float, used: float) -> None:
        """Tell a continuously refilled bucket (its resets give one rate whatever was used: the time to refill
        it) from fixed windows (a reset is the window's end whatever was used: the rates grow with it)."""
        least, most, least_used, most_used = self.estimates
        least, most = min(least, rate), max(most, rate)
        least_used, most_used = min(least_used, used), max(most_used, used)
        self.estimates = (least, most, least_used, most_used)
        if most > WINDOWS_SCATTER * least:
            self.refill = "windows"
        elif most_used >= CONTINUOUS_SPAN * least_used and most <= CONTINUOUS_AGREE * least and not self.refill:
            self.refill = "continuous"
            self.hold_until = -math.inf

    @property
    def window_s(self) -> float:
        """Seconds the bucket takes to refill from empty."""
        return self.limit / self.rate if self.rate > 0 else math.inf

    def share_left(self, now: float) -> float:
        """What is left as a share of the limit."""
        return self.available(now) / self.limit if self.limit else 1.0


def bucket_from_window(window: LimitWindow, now: float) -> Bucket | None:
    """A bucket for a limit first seen in a header (None when the header gave no limit or level)."""
    limit = window.limit if window.limit else None
    if limit is None and window.remaining is not None and window.remaining > 0:
        limit = window.remaining  # Azure may send only what is left: assume the bucket was full
    return None if limit is None else _full_bucket(limit, now)


@dataclass
class Ticket:
    """One call's reservation: when it was sent and what it took."""

    tokens: float
    sent_at: float = 0.0
    requests_mark: float = 0.0  # calls sent so far, this one included (to count those sent after it)
    tokens_mark: float = 0.0  # tokens reserved so far, this call's included
    headers: RateLimitHeaders | None = None  # what the answer said (set by the HTTP hook)


@dataclass
class LimiterStats:
    """What the limiter did (for summaries and benchmarks)."""

    calls: int = 0
    rate_limited: int = 0  # answers with status 429
    decreases: int = 0
    waited_s: float = 0.0  # time calls spent waiting for budget or a slot
    peak_in_flight: int = 0
    window_trace: list[tuple[float, float]] = field(default_factory=list)  # (seconds since start, window)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counters."""
        return {
            "calls": self.calls,
            "decrease_trace": [list(point) for point in self.window_trace],
            "rate_limited": self.rate_limited,
            "decreases": self.decreases,
            "waited_s": round(self.waited_s, 3),
            "peak_in_flight": self.peak_in_flight,
        }


class RateLimiter:
    """The budgets and the adaptive window of one endpoint and model (see the module docstring)."""

    def __init__(
        self,
        name: str,
        *,
        max_in_flight: int,
        rpm: float | None = None,
        tpm: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
        notice: Callable[[str], None] | None = print_notice,
    ) -> None:
        """``notice``: told, in one line, of every wait longer than ``LONG_WAIT_S`` (None: nobody)."""
        self.name = name
        self.notice = notice
        self._noticed_until = -math.inf  # the end of the last wait a notice announced
        self._block_source = ""  # the header behind ``blocked_until``
        self._outstanding: dict[float, float] = {}  # calls sent and not yet answered: send number -> tokens
        self.max_in_flight = max(1, int(max_in_flight))
        self.window = float(self.max_in_flight)
        self.in_flight = 0
        self._clock = clock
        self._sleep = sleep
        self._started = clock()
        self.requests: Bucket | None = _full_bucket(rpm, self._started, by_hand=True) if rpm else None
        self.tokens: Bucket | None = _full_bucket(tpm, self._started, by_hand=True) if tpm else None
        self.blocked_until = 0.0
        self.sent_calls = 0.0
        self.sent_tokens = 0.0
        self._observed_mark = 0.0  # the latest call (by send order) whose answer set the levels
        self.latency_s = 1.0
        self.completion_tokens = float(DEFAULT_COMPLETION_TOKENS)
        self.tokens_per_call = 0.0  # running mean of the calls' token estimates
        self._latency_seen = False
        self._last_decrease = -math.inf
        self.stats = LimiterStats()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._slots: asyncio.Condition | None = None
        self._queue: asyncio.Lock | None = None

    # ------------------------------------------------------------------------------------------ sending

    def completion_estimate(self, max_tokens: int | None) -> float:
        """Completion tokens to reserve: the call's cap when it sets one (providers count it), else a running
        mean of the answers so far."""
        return float(max_tokens) if max_tokens else self.completion_tokens

    async def acquire(self, tokens: float) -> Ticket:
        """Wait for a slot of the window and for the budgets, take them, return the call's ``Ticket``."""
        slots, queue = self._primitives()
        waited_from = self._clock()
        async with slots:
            if self.in_flight >= max(1, math.floor(self.window)):  # else no wait: skip making one
                await slots.wait_for(lambda: self.in_flight < max(1, math.floor(self.window)))
            self.in_flight += 1
            self.stats.peak_in_flight = max(self.stats.peak_in_flight, self.in_flight)
        try:
            async with queue:  # first come, first served
                while True:
                    now = self._clock()
                    wait = self._wait_time(tokens, now)
                    if wait <= 0:
                        break
                    if wait > LONG_WAIT_S and now + wait > self._noticed_until + LONG_WAIT_S:
                        self._announce(wait, tokens, now)
                    await self._sleep(min(wait, MAX_SLEEP_S))
                return self._take(tokens, now)
        except BaseException:
            await self._free_slot()
            raise
        finally:
            self.stats.waited_s += self._clock() - waited_from

    def _announce(self, wait: float, tokens: float, now: float) -> None:
        self._noticed_until = now + wait
        if self.notice is None:
            return
        why = []
        if self.blocked_until - now >= wait - 1e-9:
            why.append(f"the endpoint answered 429 ({self._block_source or 'no retry-after'})")
        for label, bucket, amount in (("request", self.requests, 1.0), ("token", self.tokens, tokens)):
            if bucket is not None and bucket.wait_time(amount, now) >= wait - 1e-9:
                source = f"; {bucket.source}" if bucket.source else ""
                limit = "set by hand" if bucket.by_hand else f"{_short(bucket.limit)} per {bucket.window_s:.0f} s"
                why.append(f"the {label} budget is spent ({limit}{source})")
        self.notice(f"debate-eval: waiting {wait:.0f} s before the next call to {self.name}: {'; '.join(why)}")

    def _wait_time(self, tokens: float, now: float) -> float:
        wait = self.blocked_until - now
        if self.requests is not None:
            wait = max(wait, self.requests.wait_time(1, now))
        if self.tokens is not None:
            wait = max(wait, self.tokens.wait_time(tokens, now))
        return wait

    def _take(self, tokens: float, now: float) -> Ticket:
        if self.requests is not None:
            self.requests.take(1, now)
        if self.tokens is not None:
            self.tokens.take(tokens, now)
        self.sent_calls += 1
        self.sent_tokens += tokens
        self._outstanding[self.sent_calls] = tokens
        self.tokens_per_call += (tokens - self.tokens_per_call) / min(self.sent_calls, 1 / COMPLETION_EWMA)
        self.stats.calls += 1
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug("%s: send #%d (%.0f tokens); %s", self.name, self.sent_calls, tokens, self.status())
        return Ticket(tokens=tokens, sent_at=now, requests_mark=self.sent_calls, tokens_mark=self.sent_tokens)

    # ----------------------------------------------------------------------------------------- answers

    async def release(
        self,
        ticket: Ticket,
        *,
        rate_limited: bool = False,
        retry_after_s: float | None = None,
        used_tokens: float | None = None,
        completion_tokens: float | None = None,
    ) -> None:
        """The call is answered (or failed): learn from its headers, status and usage; free its slot."""
        now = self._clock()
        headers = ticket.headers
        self._outstanding.pop(ticket.requests_mark, None)
        self._note_latency(now - ticket.sent_at)
        if completion_tokens is not None:
            self.completion_tokens += COMPLETION_EWMA * (completion_tokens - self.completion_tokens)
        token_headers = headers is not None and headers.token_window.known
        if used_tokens is not None and self.tokens is not None and not token_headers:
            self.tokens.give_back(ticket.tokens - used_tokens, now)  # no header to say: settle the estimate
        if headers is not None:
            self._observe(ticket, headers, now)
            retry_after_s = retry_after_s if retry_after_s is not None else headers.retry_after_s
        if logger.isEnabledFor(logging.DEBUG):
            logger.debug(
                "%s: answer #%d%s, headers %s; %s",
                self.name,
                ticket.requests_mark,
                " (429)" if rate_limited else "",
                headers,
                self.status(),
            )
        if rate_limited:
            self.stats.rate_limited += 1
            hold = capped_wait(retry_after_s)  # finite, at most the retry's own maximum
            if hold:
                if now + hold > self.blocked_until:
                    self._block_source = headers.retry_after_header if headers is not None else ""
                self.blocked_until = max(self.blocked_until, now + min(hold, MAX_HEADER_WAIT_S))
            self._decrease(DECREASE_ON_429, now, floor=1.0)
        elif self._nearly_empty(now):
            self._decrease(DECREASE_NEAR_EMPTY, now, floor=self.needed_in_flight())
        else:
            self.window = min(float(self.max_in_flight), self.window + 1.0 / max(1.0, self.window))
        await self._free_slot()

    def _observe(self, ticket: Ticket, headers: RateLimitHeaders, now: float) -> None:
        # Only the answer to the latest call sent among those answered says what is left now: an older call's
        # answer may have waited long at the endpoint, after calls sent later had been counted.
        fresh = ticket.requests_mark > self._observed_mark
        if fresh:
            self._observed_mark = ticket.requests_mark
        # calls sent before this one and not answered yet may have reached the endpoint after it (a burst's
        # requests race): counted as taken too where a window must not be overrun (``Bucket.observe``)
        earlier = [tokens for mark, tokens in self._outstanding.items() if mark < ticket.requests_mark]
        for attr, window, after, unsure in (
            ("requests", headers.requests, self.sent_calls - ticket.requests_mark, float(len(earlier))),
            ("tokens", headers.token_window, self.sent_tokens - ticket.tokens_mark, sum(earlier)),
        ):
            bucket: Bucket | None = getattr(self, attr)
            if bucket is None:
                bucket = bucket_from_window(window, now)
                if bucket is None:
                    continue
                setattr(self, attr, bucket)
            bucket.observe(window, after if fresh else None, now, unsure=unsure, sent_at=ticket.sent_at)

    def _nearly_empty(self, now: float) -> bool:
        return any(b is not None and b.share_left(now) < NEAR_EMPTY for b in (self.requests, self.tokens))

    def _decrease(self, factor: float, now: float, floor: float) -> None:
        if now - self._last_decrease < self.latency_s:
            return  # one decrease per round trip: the calls already in flight were sent before the signal
        self._last_decrease = now
        new = max(1.0, min(self.window, max(floor, self.window * factor)))
        if new < self.window:
            self.window = new
            self.stats.decreases += 1
            self.stats.window_trace.append((round(now - self._started, 3), round(new, 2)))

    def needed_in_flight(self) -> float:
        """Calls in flight the known request rate needs (rate x latency x margin; 1 when no rate is known)."""
        rates = []
        if self.requests is not None:
            rates.append(self.requests.rate)
        if self.tokens is not None and self.tokens_per_call > 0:
            rates.append(self.tokens.rate / max(1.0, self.tokens_per_call))  # calls/s the token budget allows
        if not rates:
            return 1.0
        return max(1.0, math.ceil(min(rates) * self.latency_s * NEED_MARGIN))

    def _note_latency(self, latency: float) -> None:
        if latency <= 0:
            return
        if not self._latency_seen:
            self.latency_s, self._latency_seen = latency, True
        else:
            self.latency_s += LATENCY_EWMA * (latency - self.latency_s)

    async def _free_slot(self) -> None:
        slots, _ = self._primitives()
        async with slots:
            self.in_flight -= 1
            slots.notify_all()

    def _primitives(self) -> tuple[asyncio.Condition, asyncio.Lock]:
        loop = asyncio.get_running_loop()
        if self._slots is None or self._queue is None or self._loop is not loop:
            self._slots, self._queue, self._loop = asyncio.Condition(), asyncio.Lock(), loop
        return self._slots, self._queue

    # ----------------------------------------------------------------------------------------- display

    def report(self) -> dict[str, Any]:
        """What the limiter did and learnt, JSON-ready (``summary.json``)."""
        budgets = {}
        for label, bucket in (("requests", self.requests), ("tokens", self.tokens)):
            if bucket is not None:
                budgets[label] = {
                    "limit": bucket.limit,
                    "window_s": round(bucket.limit / bucket.rate, 3) if bucket.rate else None,
                    "by_hand": bucket.by_hand,
                }
        return {
            "endpoint": self.name,
            "start_in_flight": self.max_in_flight,
            "end_in_flight": math.floor(self.window),
            "budgets": budgets,
            **self.stats.to_dict(),
        }

    def status(self) -> str:
        """The live budget on one line: ``rpm 12/60 tpm 8.1k/90k in flight 3/8``; a budget whose window is not
        a minute shows its own limit and window: ``requests 19/20 per 10 s``."""
        now = self._clock()
        parts = []
        for label, name, bucket in (("rpm", "requests", self.requests), ("tpm", "tokens", self.tokens)):
            if bucket is None:
                continue
            shown = f"{_short(bucket.available(now))}/{_short(bucket.limit)}"
            window = bucket.window_s
            if abs(window - WINDOW_S) <= 0.01 * WINDOW_S:
                parts.append(f"{label} {shown}")
            else:
                parts.append(f"{name} {shown} per {window:.3g} s")
        parts.append(f"in flight {self.in_flight}/{math.floor(self.window)}")
        return " ".join(parts)


def _full_bucket(limit: float, now: float, by_hand: bool = False) -> Bucket:
    """A bucket of ``limit`` a minute, full at ``now``."""
    return Bucket(limit=limit, rate=limit / WINDOW_S, level=limit, updated=now, by_hand=by_hand)


def _short(value: float) -> str:
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return f"{max(0.0, value):.0f}"
