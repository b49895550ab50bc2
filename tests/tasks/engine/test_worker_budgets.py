"""``--workers 2`` with ``--rpm`` or ``--tpm`` set to a rate-limited endpoint's own limit: the workers' divided
budgets keep their combined requests within the limit, as the endpoint measures it.

The endpoint (``support.rate_limited_server``) enforces its limit as providers do: a bucket that refills
continuously (the limit per minute), full at start; 120 requests a minute, or 120,000 tokens a minute (a
G-Eval call here is charged about 1,100 tokens). The run has more items (150, one call each) than the
bucket holds, so after the first burst the workers must wait for the refill: with each worker's budget the
whole limit instead of half of it, the two would send up to twice the bucket at once and the endpoint would
refuse the surplus with 429. Everything asserted is what the endpoint recorded (every request's arrival and
tokens, its 429s, its answers) and what the run wrote; no wall time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.rate_limited_server import Latency, RateLimitedServer, most_over_the_limit

from debate_eval.tasks.cli.main import main

WINDOW_S = 60.0
ITEMS = 150
TOLERANCE = 0.02  # the share of requests answered 429 the rate limiter is held to (benchmarks/rate_limits.md)
LIMITS = {"rpm": 120, "tpm": 120_000}  # per minute: the endpoint's, and the run's --rpm / --tpm


def test_the_overrun_measure_counts_a_burst_beyond_the_bucket() -> None:
    at = [(0.0, 10.0)] * 4
    assert most_over_the_limit(at, 4, 60.0) == 0
    assert most_over_the_limit([*at, (0.0, 10.0)], 4, 60.0) == 1
    assert most_over_the_limit([*at, (15.0, 10.0)], 4, 60.0) == 0  # one refilled in 15 s
    assert most_over_the_limit([*at, (14.0, 10.0), (14.0, 10.0)], 4, 60.0) > 0
    assert most_over_the_limit(at, 40, 60.0, tokens=True) == 0
    assert most_over_the_limit([*at, (30.0, 25.0)], 40, 60.0, tokens=True) == 5  # 20 refilled in 30 s


def run_args(server: RateLimitedServer, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(ITEMS), "--method", "geval"]
    args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-cache"]
    return [*args, "--concurrency", "32", "--no-progress", "--no-preflight", *extra]


def check_within_the_limit(server: RateLimitedServer, out: Path, kind: str) -> None:
    """Every item once, none failed; the endpoint saw each item's call once (plus any refused and retried),
    refused at most ``TOLERANCE`` of them, and no stretch of arrivals beyond the limit by more than that."""
    stats = server.stats
    records = [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines() if x]
    assert len(records) == len({r["item_id"] for r in records}) == ITEMS  # no item lost, none twice
    assert all(r["error"] is None for r in records)
    assert stats.answered == ITEMS  # one answered call an item: none lost, none made twice
    assert stats.requests == len(stats.arrivals) == ITEMS + stats.rate_limited
    assert stats.rate_limited <= TOLERANCE * stats.requests, f"{stats.rate_limited} of {stats.requests} got 429"
    if kind == "tpm":
        assert stats.tokens_charged > LIMITS["tpm"]  # more than the bucket: the refill was needed
        over = most_over_the_limit(stats.arrivals, LIMITS["tpm"], WINDOW_S, tokens=True)
        assert over <= TOLERANCE * stats.tokens_charged
    else:
        assert most_over_the_limit(stats.arrivals, LIMITS["rpm"], WINDOW_S) <= TOLERANCE * stats.requests


@pytest.mark.parametrize("kind", ["rpm", "tpm"])
def test_two_workers_with_the_endpoints_limit_as_their_budget_stay_within_it(isolated_env: Path, kind: str) -> None:
    limit = {"rpm": LIMITS["rpm"], "tpm": None} if kind == "rpm" else {"rpm": None, "tpm": LIMITS["tpm"]}
    server = RateLimitedServer(**limit, window_s=WINDOW_S, latency=Latency(0.01, 0.03), max_lifetime_s=300)
    out = isolated_env / "run"
    with server:
        assert main(run_args(server, out, f"--{kind}", str(LIMITS[kind]), "--workers", "2")) == 0
    check_within_the_limit(server, out, kind)
