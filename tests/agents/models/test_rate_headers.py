"""Rate-limit headers of both styles (OpenAI/Azure and Anthropic), read into one shape."""

from __future__ import annotations

import email.utils

import pytest

from debate_eval.agents.models.rate_headers import (
    LimitWindow,
    parse_duration,
    parse_rate_limit_headers,
    parse_retry_after,
)

NOW = 1_714_564_800.0  # 2024-05-01T12:00:00Z


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1s", 1.0),
        ("6m0s", 360.0),
        ("120ms", 0.12),
        ("1h2m3.5s", 3723.5),
        ("0.5s", 0.5),
        ("17.25", 17.25),
        ("0s", 0.0),
        ("250us", 0.00025),
        ("soon", None),
        ("1x", None),
        ("", None),
    ],
)
def test_durations(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == (pytest.approx(seconds) if seconds is not None else None)


# (headers, requests window, tokens window, retry-after seconds, style)
TABLE = [
    (  # OpenAI, as documented
        {
            "x-ratelimit-limit-requests": "60",
            "x-ratelimit-limit-tokens": "150000",
            "x-ratelimit-remaining-requests": "59",
            "x-ratelimit-remaining-tokens": "149984",
            "x-ratelimit-reset-requests": "1s",
            "x-ratelimit-reset-tokens": "6m0s",
        },
        LimitWindow(60, 59, 1.0),
        LimitWindow(150000, 149984, 360.0),
        None,
        "openai",
    ),
    (  # mixed case names, millisecond resets, a 429's retry-after
        {
            "X-RateLimit-Limit-Requests": "500",
            "X-RateLimit-Remaining-Requests": "0",
            "X-RateLimit-Reset-Requests": "120ms",
            "Retry-After": "2",
        },
        LimitWindow(500, 0, 0.12),
        LimitWindow(),
        2.0,
        "openai",
    ),
    (  # Azure OpenAI: remaining only, retry-after-ms wins over retry-after
        {
            "x-ratelimit-remaining-requests": "119",
            "x-ratelimit-remaining-tokens": "11850",
            "retry-after-ms": "1500",
            "retry-after": "2",
        },
        LimitWindow(None, 119, None),
        LimitWindow(None, 11850, None),
        1.5,
        "openai",
    ),
    (  # Anthropic: RFC 3339 resets, 30 s and 12.5 s after NOW
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "49",
            "anthropic-ratelimit-requests-reset": "2024-05-01T12:00:30Z",
            "anthropic-ratelimit-tokens-limit": "40000",
            "anthropic-ratelimit-tokens-remaining": "39000",
            "anthropic-ratelimit-tokens-reset": "2024-05-01T12:00:12.500Z",
            "anthropic-ratelimit-input-tokens-limit": "30000",
            "anthropic-ratelimit-input-tokens-remaining": "29500",
            "anthropic-ratelimit-input-tokens-reset": "2024-05-01T12:00:01Z",
            "retry-after": "7",
        },
        LimitWindow(50, 49, 30.0),
        LimitWindow(40000, 39000, 12.5),
        7.0,
        "anthropic",
    ),
    (  # Anthropic with an offset instead of Z, and a reset already past
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2024-05-01T14:00:05+02:00",
            "anthropic-ratelimit-tokens-remaining": "100",
            "anthropic-ratelimit-tokens-reset": "2024-05-01T11:59:00Z",
        },
        LimitWindow(50, 0, 5.0),
        LimitWindow(None, 100, 0.0),
        None,
        "anthropic",
    ),
    (  # unreadable values are left out, not errors
        {
            "x-ratelimit-limit-requests": "lots",
            "x-ratelimit-remaining-requests": "-3",
            "x-ratelimit-reset-requests": "whenever",
            "retry-after": "soon",
        },
        LimitWindow(),
        LimitWindow(),
        None,
        "",
    ),
    ({"content-type": "application/json"}, LimitWindow(), LimitWindow(), None, ""),
]


@pytest.mark.parametrize(("headers", "requests", "tokens", "retry_after", "style"), TABLE)
def test_headers_of_both_styles(
    headers: dict[str, str], requests: LimitWindow, tokens: LimitWindow, retry_after: float | None, style: str
) -> None:
    parsed = parse_rate_limit_headers(headers, now=NOW)
    assert parsed.style == style
    for got, want in ((parsed.requests, requests), (parsed.tokens, tokens)):
        assert (got.limit, got.remaining) == (want.limit, want.remaining)
        assert got.reset_s == (pytest.approx(want.reset_s, abs=1e-6) if want.reset_s is not None else None)
    assert parsed.retry_after_s == (pytest.approx(retry_after) if retry_after is not None else None)
    assert parsed.empty == (not headers or (style == "" and retry_after is None))


def test_anthropic_token_window_falls_back_to_input_tokens() -> None:
    parsed = parse_rate_limit_headers(
        {"anthropic-ratelimit-input-tokens-limit": "30000", "anthropic-ratelimit-input-tokens-remaining": "100"},
        now=NOW,
    )
    assert parsed.token_window == LimitWindow(30000, 100, None)


def test_retry_after_as_an_http_date() -> None:
    date = email.utils.formatdate(NOW + 42, usegmt=True)
    assert parse_retry_after({"retry-after": date}, NOW) == pytest.approx(42)
