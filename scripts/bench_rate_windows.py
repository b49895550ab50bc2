"""Fixed rate windows on a virtual clock: the share of requests answered 429 over many seeds, window phases and
answer delays of a loaded machine, for both header styles.

The endpoint enforces 20 requests per fixed 10 s window (Azure's way of enforcing 120 a minute), its first
window starting at a random phase, and sends OpenAI's ``x-ratelimit-*`` headers computed when it counts a
request: ``limit-requests`` either 20 (the window's budget: the plain style) or 120 (the minute's), with
``remaining-requests`` counting the current window and ``reset-requests`` its end. A 429 is answered at once
with ``retry-after-ms``. The client is the project's ``RateLimiter`` on a virtual clock (timers advanced only
when every caller waits), so a run does not depend on the machine's speed: 64 callers, one endpoint check
first, then either 120 calls in all (G-Eval, as ``bench_rate_limits.py --cold-start`` runs it) or calls for
60 s of windows; a call refused is retried after its ``retry-after``.

Delay profiles (seconds, uniform unless said): ``quiet``: 0.01-0.3 on the way to the endpoint, answers after
0.5-3 and 0-0.3 back; ``late answers``: the test suite's (0.05-0.3 there, 0.5-2.5 back); ``tail``: quiet,
and one delay in seven (there or back) 0-1.5 longer; ``long tail``: one in five 0.5-4 longer; ``stalls``: the
client process stopped for 0.2-1.5 s (nothing sent or read) every 3 s on average; ``stalls and tail``: both.
Many answers arrive after the window that counted them has ended, and a burst sent at once is counted in any
order. Target: <= 2 % of the requests answered 429 in every run.

Usage (from the repository root)::

    python scripts/bench_rate_windows.py --seeds 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.models.rate_headers import parse_rate_limit_headers
from debate_eval.agents.models.rate_limit import RateLimiter

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support: the virtual clock
from bench_report import load_text, replace_section, section_head  # sibling script
from support.virtual_clock import VirtualTime, WindowedEndpoint

SECTION = "rate_windows_sweep"
WINDOW_S, PER_WINDOW = 10.0, 20
TARGET_429 = 0.02


@dataclass(frozen=True)
class Delays:
    """Delays of one profile (see the module docstring)."""

    send: tuple[float, float] = (0.01, 0.3)
    back: tuple[float, float] = (0.0, 0.3)
    latency: tuple[float, float] = (0.5, 3.0)
    tail_share: float = 0.0
    tail: tuple[float, float] = (0.0, 1.5)
    stall_every: float = 0.0
    stall: tuple[float, float] = (0.2, 1.5)


PROFILES = {
    "quiet": Delays(),
    "late answers": Delays(send=(0.05, 0.3), back=(0.5, 2.5), latency=(0.0, 0.0)),
    "tail": Delays(tail_share=1 / 7),
    "long tail": Delays(tail_share=0.2, tail=(0.5, 4.0)),
    "stalls": Delays(stall_every=3.0),
    "stalls and tail": Delays(tail_share=1 / 7, stall_every=3.0, stall=(0.2, 2.5)),
}


def simulate(
    seed: int, advertised: int, delays: Delays, *, items: int | None, span_s: float = 60.0
) -> WindowedEndpoint:
    """One run: the endpoint as it ends (its counts)."""
    clock, rng = VirtualTime(), random.Random(seed)
    endpoint = WindowedEndpoint(
        advertised, first_end=rng.uniform(0, WINDOW_S), window_s=WINDOW_S, per_window=PER_WINDOW
    )
    limiter = RateLimiter("sweep", max_in_flight=64, clock=clock, sleep=clock.sleep, notice=None)
    stalls: list[tuple[float, float]] = []
    moment = 0.0
    while delays.stall_every and moment < 1000:
        moment += rng.expovariate(1 / delays.stall_every)
        length = rng.uniform(*delays.stall)
        stalls.append((moment, moment + length))
        moment += length

    def after_stalls(moment: float) -> float:
        return next((end for start, end in stalls if start <= moment < end), moment)

    def delay(bounds: tuple[float, float]) -> float:
        extra = rng.uniform(*delays.tail) if delays.tail_share and rng.random() < delays.tail_share else 0.0
        return rng.uniform(*bounds) + extra

    async def until(moment: float) -> None:
        await clock.sleep(moment - clock.now)

    async def call() -> bool:
        ticket = await limiter.acquire(50)
        await until(after_stalls(clock.now + delay(delays.send)))
        ok, headers = endpoint.admit(clock.now)
        answer = rng.uniform(*delays.latency) if ok else 0.0
        await until(after_stalls(clock.now + answer + delay(delays.back)))
        ticket.headers = parse_rate_limit_headers(headers)
        await limiter.release(ticket, rate_limited=not ok)
        if not ok:
            await clock.sleep(ticket.headers.retry_after_s or 1.0)
        return ok

    left = [items]

    async def caller() -> None:
        while (left[0] is None and clock.now < span_s) or (left[0] is not None and left[0] > 0):
            if left[0] is not None:
                left[0] -= 1
            for _ in range(6):
                if await call():
                    break

    async def main() -> None:
        check = asyncio.create_task(call())
        while not check.done():
            await clock.run(clock.now + 0.01)
        tasks = [asyncio.create_task(caller()) for _ in range(64)]
        while not all(task.done() for task in tasks) and clock.now < 1000:
            await clock.run(clock.now + 1.0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    return endpoint


def sweep(seeds: int) -> list[dict[str, Any]]:
    """Every header style, profile and run length over ``seeds`` seeds: one row each."""
    rows = []
    for advertised in (PER_WINDOW, 120):
        for name, delays in PROFILES.items():
            for length, items in (("120 calls", 120), ("60 s", None)):
                shares, worst = [], (0, 0)
                for seed in range(seeds):
                    endpoint = simulate(seed, advertised, delays, items=items)
                    sent = endpoint.answered + endpoint.refused
                    shares.append(endpoint.refused / sent)
                    if endpoint.refused / sent >= max(shares):
                        worst = (endpoint.refused, sent)
                row = {"advertised": advertised, "profile": name, "length": length, "shares": shares, "worst": worst}
                rows.append(row)
                print(
                    f"limit header {advertised}, {name}, {length}: mean {sum(shares) / seeds:.2%}, most "
                    f"{max(shares):.2%}, runs over 2 %: {sum(s > TARGET_429 for s in shares)}",
                    file=sys.stderr,
                    flush=True,
                )
    return rows


def report(command: str, seeds: int, rows: Sequence[dict[str, Any]], load: str) -> str:
    """The Markdown section."""
    lines = [
        *section_head(
            "Fixed windows on a virtual clock (`scripts/bench_rate_windows.py`)",
            command,
            load,
            "The clock is virtual: the figures do not depend on the machine's speed or load.",
        ),
        f"- 20 requests per fixed 10 s window at a random phase; 64 callers; {seeds} seeds per row; the delay "
        "profiles and the endpoint as the script's docstring says.",
        "",
        "| limit header | delays | run | mean 429 share | most | runs over 2 % | worst run (429s of requests) |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for row in rows:
        shares = row["shares"]
        style = "20 (the window's)" if row["advertised"] == PER_WINDOW else "120 (the minute's)"
        lines.append(
            f"| {style} | {row['profile']} | {row['length']} | {sum(shares) / len(shares):.2%} | "
            f"{max(shares):.2%} | {sum(s > TARGET_429 for s in shares)} of {len(shares)} | "
            f"{row['worst'][0]} of {row['worst'][1]} |"
        )
    met = all(max(row["shares"]) <= TARGET_429 for row in rows)
    lines += ["", f"Target: <= 2 % answered 429 in every run: {'met' if met else '**not met**'}."]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="runs per row")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/rate_limits.md"))
    args = parser.parse_args(argv)
    command = shlex.join(["python", "scripts/bench_rate_windows.py", *(sys.argv[1:] if argv is None else argv)])
    before = os.getloadavg()
    rows = sweep(args.seeds)
    after = os.getloadavg()
    replace_section(args.out, SECTION, report(command, args.seeds, rows, load_text(before, after)), title="Rate limits")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
