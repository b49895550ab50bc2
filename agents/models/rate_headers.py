"""Providers' rate-limit headers, read into one shape: ``RateLimitHeaders``.

Two styles are in use (names compared case-insensitively):

- OpenAI and Azure OpenAI: ``x-ratelimit-limit-requests``, ``x-ratelimit-remaining-requests``,
  ``x-ratelimit-reset-requests`` and the same three for ``-tokens``. A reset is a Go-style duration
  (``1s``, ``6m0s``, ``120ms``, ``1h2m3.5s``) or plain seconds. Azure often sends the ``remaining`` ones only.
- Anthropic: ``anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}``;
  a reset is an RFC 3339 time (``2024-05-01T12:00:30Z``), turned into seconds from ``now``.

Both may add ``retry-after`` (seconds or an HTTP date) and ``retry-after-ms`` (milliseconds, preferred).
A value that cannot be read is left out (None), never an error: a provider's odd header must not fail a run.

Every duration read from a header is finite: a non-finite one (``inf``, ``nan``, ``1e400``) is unreadable,
so the caller falls back to its backoff. A wait is at most ``MAX_HEADER_WAIT_S`` (300 s, the retry's
documented maximum, ``RetryPolicy.max_retry_after_s``): ``retry_after_s`` is capped here, a ``reset`` (which
also measures a window) where the limiter turns it into a wait (``rate_limit.Bucket.observe``). Which header gave a
wait, as received (short, printable) and whether it was capped, is kept beside it (``reset_header``,
``retry_after_header``) so a long wait can say why.
"""

from __future__ import annotations

import email.utils
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(h|ms|us|µs|ns|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
MAX_HEADER_WAIT_S = 300.0  # the longest wait any header may ask for (the retry's documented maximum)
_SHOWN_CHARS = 40  # how much of a header's value a message quotes


@dataclass(frozen=True)
class LimitWindow:
    """One limit as a header reported it: its size, what is left, and seconds until it is whole again."""

    limit: float | None = None
    remaining: float | None = None
    reset_s: float | None = None
    reset_header: str = field(default="", compare=False)  # the reset header as received, for messages

    @property
    def known(self) -> bool:
        """True when the header said how much is left."""
        return self.remaining is not None


@dataclass(frozen=True)
class RateLimitHeaders:
    """What one response said about the caller's limits (``style``: "openai", "anthropic" or "")."""

    requests: LimitWindow = field(default_factory=LimitWindow)
    tokens: LimitWindow = field(default_factory=LimitWindow)  # Anthropic: the most restrictive token limit
    input_tokens: LimitWindow = field(default_factory=LimitWindow)  # Anthropic only
    output_tokens: LimitWindow = field(default_factory=LimitWindow)  # Anthropic only
    retry_after_s: float | None = None
    style: str = ""
    retry_after_header: str = field(default="", compare=False)  # the header behind ``retry_after_s``

    @property
    def token_window(self) -> LimitWindow:
        """The token limit to budget against: ``tokens``, else Anthropic's input-token limit."""
        return self.tokens if self.tokens.known or self.tokens.limit is not None else self.input_tokens

    @property
    def empty(self) -> bool:
        """True when no rate-limit header was present."""
        return not self.style and self.retry_after_s is None


def parse_duration(text: str) -> float | None:
    """Seconds in a Go-style duration (``6m0s``, ``1.5s``, ``20ms``) or a plain number of seconds."""
    text = text.strip().lower()
    if not text:
        return None
    try:
        seconds = float(text)
        return max(0.0, seconds) if math.isfinite(seconds) else None
    except ValueError:
        pass
    total, end = 0.0, 0
    for match in _DURATION_PART.finditer(text):
        if match.start() != end:
            return None
        total += float(match.group(1)) * _UNIT_SECONDS[match.group(2)]
        end = match.end()
    return _finite(total) if end == len(text) and end > 0 else None


def _finite(seconds: float | None) -> float | None:
    return seconds if seconds is not None and math.isfinite(seconds) else None


def capped_wait(seconds: float | None) -> float | None:
    """``seconds`` when finite, at most ``MAX_HEADER_WAIT_S``; None when missing or not finite."""
    seconds = _finite(seconds)
    return None if seconds is None else min(max(0.0, seconds), MAX_HEADER_WAIT_S)


def header_source(name: str, value: str, seconds: float | None) -> str:
    """``name: value`` as a message may quote it (short, printable), saying when ``seconds`` was capped."""
    shown = "".join(char if char.isprintable() else "?" for char in value.strip())
    shown = shown if len(shown) <= _SHOWN_CHARS else shown[: _SHOWN_CHARS - 3] + "..."
    capped = seconds is not None and seconds > MAX_HEADER_WAIT_S
    return f"{name}: {shown}" + (f", capped at {MAX_HEADER_WAIT_S:g} s" if capped else "")


def parse_reset_time(text: str, now: float) -> float | None:
    """Seconds from ``now`` (epoch seconds) to an RFC 3339 time, or a duration when it is one."""
    text = text.strip()
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError):
        return parse_duration(text)
    if moment.tzinfo is None:
        return None
    return max(0.0, moment.timestamp() - now)


def parse_retry_after(headers: Mapping[str, str], now: float) -> float | None:
    """``retry-after-ms`` (milliseconds), else ``retry-after`` (seconds or an HTTP date), in seconds: finite,
    at most ``MAX_HEADER_WAIT_S``; None when neither can be read."""
    return capped_wait(_raw_retry_after(headers, now)[0])


def retry_after_source(headers: Mapping[str, str], now: float | None = None) -> tuple[float | None, str]:
    """``parse_retry_after`` and the header it came from (``header_source``; "" when none could be read)."""
    now = time.time() if now is None else now
    seconds, name = _raw_retry_after(headers, now)
    if seconds is None:
        return None, ""
    return capped_wait(seconds), header_source(name, headers.get(name) or "", seconds)


def _raw_retry_after(headers: Mapping[str, str], now: float) -> tuple[float | None, str]:
    headers = {str(key).lower(): str(value) for key, value in headers.items()}
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None and math.isfinite(millis / 1000):
        return max(0.0, millis / 1000), "retry-after-ms"
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None, ""
    seconds = _number(value)
    if seconds is not None:
        return max(0.0, seconds), "retry-after"
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, OverflowError):
        return None, ""
    if moment is None or moment.tzinfo is None:
        return None, ""
    return max(0.0, moment.timestamp() - now), "retry-after"


def parse_rate_limit_headers(headers: Mapping[str, str], now: float | None = None) -> RateLimitHeaders:
    """Read the rate-limit headers of a response (either style); ``now``: epoch seconds (default: the clock)."""
    lowered = {str(key).lower(): str(value) for key, value in headers.items()}
    if not any(name.startswith(RATE_LIMIT_PREFIXES) for name in lowered):
        return NO_RATE_LIMIT_HEADERS  # most answers (every endpoint without limits): nothing to read
    now = time.time() if now is None else now
    retry_after, retry_source = retry_after_source(lowered, now)
    anthropic = {kind: _window(lowered, ANTHROPIC_NAMES, kind, now) for kind in ANTHROPIC_KINDS}
    if any(window != LimitWindow() for window in anthropic.values()):
        return RateLimitHeaders(
            requests=anthropic["requests"],
            tokens=anthropic["tokens"],
            input_tokens=anthropic["input-tokens"],
            output_tokens=anthropic["output-tokens"],
            retry_after_s=retry_after,
            style="anthropic",
            retry_after_header=retry_source,
        )
    requests, tokens = (_window(lowered, OPENAI_NAMES, kind, now) for kind in ("requests", "tokens"))
    style = "openai" if requests != LimitWindow() or tokens != LimitWindow() else ""
    return RateLimitHeaders(
        requests=requests, tokens=tokens, retry_after_s=retry_after, style=style, retry_after_header=retry_source
    )


ANTHROPIC_KINDS = ("requests", "tokens", "input-tokens", "output-tokens")
# how every header ``parse_rate_limit_headers`` reads begins (lower case), and what it returns without one
RATE_LIMIT_PREFIXES = ("x-ratelimit-", "anthropic-ratelimit-", "retry-after")
NO_RATE_LIMIT_HEADERS = RateLimitHeaders()


OPENAI_NAMES = "x-ratelimit-{field}-{kind}"  # a reset: a duration
ANTHROPIC_NAMES = "anthropic-ratelimit-{kind}-{field}"  # a reset: an RFC 3339 time (or a duration)


def _window(headers: Mapping[str, str], names: str, kind: str, now: float) -> LimitWindow:
    """The ``limit``, ``remaining`` and ``reset`` headers of one ``kind`` of limit, named as ``names`` says."""
    name = names.format(field="reset", kind=kind)
    reset = headers.get(name)
    parse = (lambda text: parse_reset_time(text, now)) if names == ANTHROPIC_NAMES else parse_duration
    seconds = parse(reset) if reset else None
    return LimitWindow(
        limit=_number(headers.get(names.format(field="limit", kind=kind))),
        remaining=_number(headers.get(names.format(field="remaining", kind=kind))),
        reset_s=seconds,
        reset_header=header_source(name, reset, seconds) if reset and seconds is not None else "",
    )


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if number >= 0 and number == number and number != float("inf") else None
