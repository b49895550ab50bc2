"""The rate-limited scripted endpoint: limits with real headers, 429 with retry-after, bounded, stops itself."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest
from support.rate_limited_server import (
    Latency,
    RateLimitedServer,
    hashed_reply,
    hashed_score,
)

from debate_eval.agents.models.rate_headers import parse_rate_limit_headers
from debate_eval.agents.models.token_estimate import count_prompt_tokens, count_text_tokens

NO_LATENCY = Latency(0.0, 0.0)
MESSAGES = [{"role": "system", "content": "You score texts."}, {"role": "user", "content": "Rate this text."}]


def post(server: RateLimitedServer, body: dict[str, Any] | None = None) -> tuple[int, dict[str, str], dict[str, Any]]:
    data = json.dumps(body or {"model": "m", "messages": MESSAGES}).encode()
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions", data=data, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read())


def test_requests_beyond_the_limit_get_429_with_retry_after() -> None:
    with RateLimitedServer(rpm=3, window_s=60.0, latency=NO_LATENCY) as server:
        answers = [post(server) for _ in range(4)]
    statuses = [status for status, _, _ in answers]
    assert statuses == [200, 200, 200, 429]
    _, headers, body = answers[3]
    parsed = parse_rate_limit_headers(headers)
    assert parsed.requests.limit == 3 and parsed.requests.remaining == 0
    assert parsed.retry_after_s is not None and 0 < parsed.retry_after_s <= 20  # one request refills in 20 s
    assert int(headers["retry-after"]) >= parsed.retry_after_s  # whole seconds, rounded up
    assert body["error"]["code"] == "rate_limit_exceeded"
    first = parse_rate_limit_headers(answers[0][1])
    assert (
        first.style == "openai" and first.requests.remaining == 2 and first.requests.reset_s == pytest.approx(20, 0.01)
    )
    assert server.stats.answered == 3 and server.stats.rate_limited == 1


def test_tokens_are_charged_on_arrival_and_reported_as_usage() -> None:
    content = hashed_reply({"messages": MESSAGES})
    prompt = count_prompt_tokens(MESSAGES)
    cost = prompt + count_text_tokens(content)
    with RateLimitedServer(tpm=cost * 2 + 1, latency=NO_LATENCY, reply=hashed_reply) as server:
        answers = [post(server) for _ in range(3)]
        capped = post(server, {"model": "m", "messages": MESSAGES, "max_tokens": 10_000})
    assert [a[0] for a in answers] == [200, 200, 429]
    usage = answers[0][2]["usage"]
    assert usage == {"prompt_tokens": prompt, "completion_tokens": count_text_tokens(content), "total_tokens": cost}
    assert parse_rate_limit_headers(answers[1][1]).tokens.remaining == 1
    assert capped[0] == 429  # a max_tokens cap is charged whole, as providers do
    assert server.stats.tokens_charged == 2 * cost


def test_anthropic_style_headers() -> None:
    with RateLimitedServer(rpm=50, tpm=40_000, latency=NO_LATENCY, header_style="anthropic") as server:
        _, headers, _ = post(server)
    parsed = parse_rate_limit_headers(headers)
    assert parsed.style == "anthropic"
    assert parsed.requests.limit == 50 and parsed.requests.remaining == 49
    assert parsed.requests.reset_s is not None and 0 < parsed.requests.reset_s <= 1.25  # 1 of 50/min: 1.2 s
    assert parsed.tokens.limit == 40_000


def test_latency_is_drawn_from_the_distribution() -> None:
    with RateLimitedServer(latency=Latency(0.05, 0.1), seed=1) as server:
        started = time.perf_counter()
        status, _, _ = post(server)
        elapsed = time.perf_counter() - started
    assert status == 200 and elapsed >= 0.05


def test_bounded_and_stopping_by_itself() -> None:
    with RateLimitedServer(latency=NO_LATENCY, max_requests=2) as server:
        statuses = [post(server)[0] for _ in range(3)]
    assert statuses == [200, 200, 503]
    server = RateLimitedServer(latency=NO_LATENCY, max_lifetime_s=0.2).start()
    assert server.wait_stopped(60)  # the gate: the server says it stopped (bounded), not a sleep
    with pytest.raises(urllib.error.URLError):
        post(server)


def test_hashed_replies_depend_on_the_request_only() -> None:
    critic = {"messages": [{"role": "system", "content": "Play a Devil's Advocate."}, *MESSAGES[1:]]}
    assert hashed_reply({"messages": MESSAGES}) == hashed_reply({"messages": [dict(m) for m in MESSAGES]})
    assert hashed_reply({"messages": MESSAGES}).startswith(f"Score: {hashed_score({'messages': MESSAGES})}\n")
    other = [MESSAGES[0], {"role": "user", "content": "Rate that text."}]
    scores = {hashed_score({"messages": [MESSAGES[0], {"role": "user", "content": f"text {i}"}]}) for i in range(40)}
    assert scores == {1, 2, 3, 4, 5}
    assert hashed_score({"messages": other}) in scores
    asked = [[*critic["messages"], {"role": "user", "content": f"answer {i}"}] for i in range(30)]
    verdicts = {"NO_ISSUE" in hashed_reply({"messages": messages}) for messages in asked}
    assert verdicts == {True, False}  # the Critic agrees with some requests, not all
