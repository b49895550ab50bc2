"""Runs through `debate-eval run` against the rate-limited scripted endpoint.

The endpoint's limit is 60 requests per window, as a 60-RPM limit; the window is 2 s instead of 60 s so the
test takes seconds (the budget refills 30 requests a second). No timing is asserted: only that nothing
fails, that the limiter learnt the limit from the headers, and that its window of calls in flight settled
below the start value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.rate_limited_server import Latency, RateLimitedServer

from debate_eval.tasks.cli.main import main


def run(server: RateLimitedServer, out: Path, *extra: str) -> dict[str, Any]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--no-cache", "--no-progress"]
    args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), *extra]
    main(args)
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("style", ["openai", "anthropic"])
def test_concurrency_64_against_a_60_request_limit(isolated_env: Path, style: str) -> None:
    server = RateLimitedServer(rpm=60, window_s=2.0, latency=Latency(0.02, 0.1), header_style=style)
    with server:
        summary = run(server, isolated_env / "run", "--limit", "64", "--max-rounds", "1", "--concurrency", "64")
    assert summary["failed"] == 0 and summary["finished"] == 64
    (limiter,) = summary["this_invocation"]["rate_limits"]
    assert limiter["budgets"]["requests"]["limit"] == 60  # learnt from the headers
    assert limiter["budgets"]["requests"]["by_hand"] is False
    assert limiter["start_in_flight"] == 64
    assert limiter["end_in_flight"] < 64  # the adaptive window settled below its start
    assert limiter["decreases"] >= 1
    # every request the endpoint refused was retried; the run's counts and the endpoint's agree
    assert summary["this_invocation"]["transport"]["requests"] == server.stats.requests  # the pre-flight too
    assert server.stats.rate_limited == limiter["rate_limited"]


def test_a_budget_by_hand_is_kept_below_the_endpoints(isolated_env: Path) -> None:
    server = RateLimitedServer(rpm=600, window_s=2.0, latency=Latency(0.01, 0.02))
    with server:
        summary = run(server, isolated_env / "run", "--limit", "4", "--max-rounds", "1", "--rpm", "120")
    (limiter,) = summary["this_invocation"]["rate_limits"]
    assert limiter["budgets"]["requests"] == {"limit": 120, "window_s": 60.0, "by_hand": True}
    assert summary["failed"] == 0 and server.stats.rate_limited == 0
