"""A virtual clock and a fixed-window endpoint on it, for rate-limit simulations that do not depend on the
machine's speed (``tests/faults/test_rate_windows.py`` and ``scripts/bench_rate_windows.py``)."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math


class VirtualTime:
    """A clock that moves only when every task waits: ``sleep`` sets a timer; ``run`` fires the earliest."""

    def __init__(self) -> None:
        self.now = 0.0
        self._timers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` of virtual time."""
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (self.now + max(0.0, seconds), next(self._order), future))
        await future

    async def run(self, until: float) -> None:
        """Fire timers until the clock reaches ``until`` (or none is left)."""
        while self.now < until:
            for _ in range(200):  # let every task that can run reach its next wait
                await asyncio.sleep(0)
            if not self._timers:
                return
            moment, _, future = heapq.heappop(self._timers)
            self.now = max(self.now, moment)
            if not future.done():
                future.set_result(None)


class WindowedEndpoint:
    """``per_window`` requests per fixed window of ``window_s``, the first ending at ``first_end``; headers as
    Azure sends them (OpenAI's ``x-ratelimit-*``), the limit header ``advertised``; a refusal carries
    ``retry-after-ms`` up to the window's end."""

    def __init__(self, advertised: int, first_end: float, window_s: float = 10.0, per_window: int = 20) -> None:
        self.advertised, self.first_end = advertised, first_end
        self.window_s, self.per_window = window_s, per_window
        self.counts: dict[int, int] = {}  # window index (floor of the time since the first window's start) -> count
        self.answered = self.refused = 0

    def admit(self, now: float) -> tuple[bool, dict[str, str]]:
        """Count a request arriving at ``now``: (admitted, the headers of its answer)."""
        window = math.floor((now + self.window_s - self.first_end) / self.window_s)
        used = self.counts.get(window, 0)
        ok = used < self.per_window
        if ok:
            self.counts[window] = used = used + 1
            self.answered += 1
        else:
            self.refused += 1
        reset = window * self.window_s + self.first_end - now
        headers = {
            "x-ratelimit-limit-requests": str(self.advertised),
            "x-ratelimit-remaining-requests": str(self.per_window - used),
            "x-ratelimit-reset-requests": f"{reset * 1000:.0f}ms",
        }
        if not ok:
            headers["retry-after-ms"] = f"{math.ceil(reset * 1000)}"
        return ok, headers
