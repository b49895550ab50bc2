"""``--workers 2`` with ``--rpm`` set to a rate-limited endpoint's own limit: the workers' divided budgets keep
their combined requests within the limit, as the endpoint measures it.

The endpoint (``support.rate_limited_server``) enforces 120 requests per minute as providers do: a bucket of
120 that refills continuously at 2 a second, full at start. The run has more items (150, one call each) than
the bucket holds, so after the first burst the workers must wait for the refill: with each worker's budget
the whole 120 instead of half of it, the two would send up to 240 at once and the endpoint would refuse
the surplus with 429. Everything asserted is what the endpoint recorded (every request's arrival, its 429s,
its answers) and what the run wrote; no wall time.
"""

from __future__ import annotations

import json
from pathlib import Path

from support.rate_limited_server import Latency, RateLimitedServer, most_over_the_limit

from debate_eval.tasks.cli.main import main

LIMIT = 120  # requests per minute, the endpoint's and the run's --rpm
WINDOW_S = 60.0
ITEMS = 150
TOLERANCE = 0.02  # the share of requests answered 429 the rate limiter is held to (benchmarks/rate_limits.md)


def test_the_overrun_measure_counts_a_burst_beyond_the_bucket() -> None:
    assert most_over_the_limit([0.0] * 4, 4, 60.0) == 0
    assert most_over_the_limit([0.0] * 5, 4, 60.0) == 1
    assert most_over_the_limit([0.0, 0.0, 0.0, 0.0, 15.0], 4, 60.0) == 0  # one refilled in 15 s
    assert most_over_the_limit([0.0, 0.0, 0.0, 0.0, 14.0, 14.0], 4, 60.0) > 0


def run_args(server: RateLimitedServer, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(ITEMS), "--method", "geval"]
    args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-cache"]
    return [*args, "--concurrency", "32", "--no-progress", "--no-preflight", "--rpm", str(LIMIT), *extra]


def check_within_the_limit(server: RateLimitedServer, out: Path) -> None:
    """Every item once, none failed; the endpoint saw each item's call once (plus any refused and retried),
    refused at most ``TOLERANCE`` of them, and no stretch of arrivals beyond the limit by more than that."""
    stats = server.stats
    records = [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines() if x]
    assert len(records) == len({r["item_id"] for r in records}) == ITEMS  # no item lost, none twice
    assert all(r["error"] is None for r in records)
    assert stats.answered == ITEMS  # one answered call an item: none lost, none made twice
    assert stats.requests == len(stats.arrivals) == ITEMS + stats.rate_limited
    assert stats.rate_limited <= TOLERANCE * stats.requests, f"{stats.rate_limited} of {stats.requests} got 429"
    assert most_over_the_limit(stats.arrivals, LIMIT, WINDOW_S) <= TOLERANCE * stats.requests


def test_two_workers_with_the_endpoints_limit_as_their_budget_stay_within_it(isolated_env: Path) -> None:
    server = RateLimitedServer(rpm=LIMIT, window_s=WINDOW_S, latency=Latency(0.01, 0.03), max_lifetime_s=300)
    out = isolated_env / "run"
    with server:
        assert main(run_args(server, out, "--workers", "2")) == 0
    check_within_the_limit(server, out)
