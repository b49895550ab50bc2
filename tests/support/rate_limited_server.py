"""A rate-limited scripted OpenAI-compatible endpoint on 127.0.0.1, for tests and benchmarks.

It answers ``POST /v1/chat/completions`` like the scripted server (``scripted_server.default_reply``, or a
reply function of the caller's, e.g. ``hashed_reply``) after a latency drawn from a distribution
(``Latency``: uniform between two bounds, seeded), and enforces a requests-per-window and a
tokens-per-window limit the way providers do: buckets of ``limit`` that refill continuously
(``limit / window_s`` a second), full at start; or, with ``fixed_windows``, as Azure OpenAI enforces a
per-minute quota: ``limit`` per window of ``window_s`` seconds (e.g. 20 per 10 s for 120 RPM), whole again
when the window ends, the reset header saying when that is. A request is charged on arrival (1 request; its prompt
tokens counted as ``token_estimate`` counts them, plus its ``max_tokens`` or else the tokens of the reply it
will get). A request that does not fit gets ``429`` at once, with ``retry-after`` / ``retry-after-ms``
(the time until it would fit). Every answer carries OpenAI-style headers (``x-ratelimit-limit-requests``,
``-remaining-``, ``-reset-``, the same for tokens; ``header_style="anthropic"`` sends the
``anthropic-ratelimit-*`` ones instead, resets as RFC 3339 times).

Bounded and self-stopping: after ``max_requests`` requests it answers 503, and it shuts itself down after
``max_lifetime_s`` seconds (or when its context ends). ``GET /rate/stats`` gives its counters, so a
benchmark can run it in a process of its own (``python tests/support/rate_limited_server.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from debate_eval.agents.models.providers.local_server import LocalServer, QuietHandler
from debate_eval.agents.models.providers.scripted_server import Request, default_reply, role_of_request
from debate_eval.agents.models.token_estimate import count_prompt_tokens, count_text_tokens
from debate_eval.debates.base import all_methods

STATS_PATH = "/rate/stats"

# the scripted server knows only the Scorer: every method registers its agents' canned replies (and the
# wording that tells its roles apart) when it is registered, which this endpoint's replies need
all_methods()


@dataclass(frozen=True)
class Latency:
    """Seconds before an answer: uniform between ``low_s`` and ``high_s`` (seeded)."""

    low_s: float = 0.5
    high_s: float = 3.0

    def draw(self, rng: random.Random) -> float:
        """One latency."""
        return self.low_s if self.high_s <= self.low_s else rng.uniform(self.low_s, self.high_s)


@dataclass
class _Bucket:
    limit: float
    rate: float
    level: float
    updated: float
    window_s: float | None = None  # fixed windows of this length (None: continuous refill)
    window_end: float = 0.0

    def __post_init__(self) -> None:
        if self.window_s is not None:
            self.window_end = self.updated + self.window_s

    def refill(self, now: float) -> None:
        if self.window_s is not None:
            if now >= self.window_end:
                self.level = self.limit
                self.window_end += self.window_s * math.floor((now - self.window_end) / self.window_s + 1)
        else:
            self.level = min(self.limit, self.level + self.rate * (now - self.updated))
        self.updated = now

    def wait_for(self, amount: float) -> float:
        missing = min(amount, self.limit) - self.level
        if self.window_s is not None:
            return 0.0 if missing <= 0 else self.window_end - self.updated
        return max(0.0, missing / self.rate) if self.rate > 0 else math.inf

    def reset_s(self) -> float:
        if self.window_s is not None:
            return self.window_end - self.updated
        return (self.limit - self.level) / self.rate if self.rate > 0 else 0.0


@dataclass
class RateStats:
    """What the endpoint saw."""

    requests: int = 0
    answered: int = 0  # 200s
    rate_limited: int = 0  # 429s
    refused: int = 0  # 503s past max_requests
    tokens_charged: float = 0.0  # tokens of answered requests
    prompt_tokens: int = 0
    completion_tokens: int = 0
    first_s: float | None = None  # clock of the first and last request
    last_s: float | None = None
    max_concurrent: int = 0
    started_s: float = 0.0  # clock when the limits started (fixed windows are counted from it)
    answers: list[tuple[float, float]] = field(default_factory=list)  # (clock, tokens) of each answered request
    arrivals: list[tuple[float, float]] = field(default_factory=list)  # (clock, tokens) of every request, 429s too
    bodies: list[tuple[str, int, int]] = field(default_factory=list)  # (body sha256, prompt, completion tokens)
    dry_requests_s: float | None = None  # clock when the request budget first ran out (less than 1 left)
    dry_tokens_s: float | None = None  # ... the token budget (less left than the request just charged)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counters."""
        return dict(self.__dict__)


def most_over_the_limit(
    arrivals: Sequence[tuple[float, float]], limit: float, window_s: float, *, tokens: bool = False
) -> float:
    """How far the busiest stretch of ``arrivals`` (``RateStats.arrivals``: clock, tokens) exceeds what a
    bucket of ``limit`` per ``window_s`` (continuously refilled, full at start) admits: the largest
    ``amount - limit - limit * span / window_s`` over every stretch between two arrivals (``amount``: the
    requests, or with ``tokens`` their tokens, that arrived in it, ``span`` seconds long). At most 0 when
    every request fit the limit."""
    ordered = sorted(arrivals)
    worst = -float(limit)
    for i, (first, _) in enumerate(ordered):
        amount = 0.0
        for clock, charged in ordered[i:]:
            amount += charged if tokens else 1.0
            worst = max(worst, amount - limit - limit * (clock - first) / window_s)
    return worst


def hashed_score(request: Request, low: int = 1, high: int = 5) -> int:
    """A score between ``low`` and ``high`` that depends only on the request's messages (role and text)."""
    messages = [(m.get("role"), str(m.get("content", ""))) for m in request.get("messages") or []]
    digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode()).digest()
    return low + int.from_bytes(digest[:4], "big") % (high - low + 1)


def hashed_reply(request: Request) -> str:
    """A deterministic answer from the request alone, so two programs that send the same messages get the
    same answers: the Scorer's and Tie-breaker's score, the Critic's agreement (``NO_ISSUE`` in one request
    of three) come from a hash of the messages; other roles answer as ``default_reply``."""
    role = role_of_request(request)
    score = hashed_score(request)
    if role in ("scorer", "evaluator", "tiebreaker"):
        return f"Score: {score}\nThe text is judged on the stated criteria, step by step."
    if role == "critic":
        if hashed_score(request, 0, 2) == 0:
            return "The score is well justified. NO_ISSUE"
        return "The score overlooks several problems of the text; I disagree with its rationale."
    return default_reply(request)


@dataclass
class RateLimitedServer:
    """Use as a context manager; ``base_url`` is ``http://127.0.0.1:PORT/v1``."""

    rpm: float | None = None  # requests per window (None: no request limit)
    tpm: float | None = None  # tokens per window
    window_s: float = 60.0
    latency: Latency = field(default_factory=Latency)
    reply: Callable[[Request], str] = default_reply
    header_style: str = "openai"  # or "anthropic"
    seed: int = 0
    max_requests: int = 100_000
    max_lifetime_s: float = 3600.0
    model: str = "gpt-4o"  # whose token counting the endpoint uses
    fixed_windows: bool = False  # limits per fixed window of window_s (Azure), not continuously refilled
    # the request limit the headers say, when not the window's (Azure: 120 a minute enforced as 20 per 10 s
    # windows, the headers saying 120 while remaining counts the window's 20)
    advertised_rpm: float | None = None

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._rng = random.Random(self.seed)
        now = time.monotonic()
        rate = 1.0 / self.window_s
        fixed = self.window_s if self.fixed_windows else None
        self._requests = _Bucket(self.rpm, self.rpm * rate, self.rpm, now, fixed) if self.rpm else None
        self._tokens = _Bucket(self.tpm, self.tpm * rate, self.tpm, now, fixed) if self.tpm else None
        self.stats = RateStats(started_s=now)
        self._concurrent = 0
        self._server: LocalServer | None = None
        self.base_url = ""

    def start(self) -> RateLimitedServer:
        """Serve in a background thread; stop by itself after ``max_lifetime_s``."""
        count_text_tokens("", self.model)  # load the token encoding before the first request (not in one)
        self._server = LocalServer(_make_handler(self), lifetime_s=self.max_lifetime_s, queue_size=256)
        self.base_url = f"{self._server.root}/v1"
        return self

    def stop(self) -> None:
        """Stop serving."""
        if self._server is not None:
            self._server.stop()

    def wait_stopped(self, timeout_s: float) -> bool:
        """Wait (at most ``timeout_s``) until the server has stopped (by ``stop()`` or its lifetime)."""
        return self._server is not None and self._server.wait_stopped(timeout_s)

    def __enter__(self) -> RateLimitedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------------------------------ answers

    def admit(self, request: Request, content: str) -> tuple[int, dict[str, str], float]:
        """Charge ``request`` on arrival: (status, headers, tokens charged); 429 when it does not fit."""
        prompt = count_prompt_tokens(request.get("messages") or [], self.model)
        cap = request.get("max_tokens") or request.get("max_completion_tokens")
        tokens = float(prompt + (int(cap) if cap else count_text_tokens(content, self.model)))
        with self._lock:
            now = time.monotonic()
            self.stats.requests += 1
            self.stats.first_s = self.stats.first_s if self.stats.first_s is not None else now
            self.stats.last_s = now
            if self.stats.requests > self.max_requests:
                self.stats.refused += 1
                return 503, {}, 0.0
            self.stats.arrivals.append((now, tokens))
            for bucket in (self._requests, self._tokens):
                if bucket is not None:
                    bucket.refill(now)
            wait = max(
                self._requests.wait_for(1) if self._requests else 0.0,
                self._tokens.wait_for(tokens) if self._tokens else 0.0,
            )
            if wait > 0:
                self.stats.rate_limited += 1
                headers = self._headers()
                headers["retry-after-ms"] = str(math.ceil(wait * 1000))
                headers["retry-after"] = str(math.ceil(wait))
                return 429, headers, 0.0
            if self._requests:
                self._requests.level -= 1
                if self._requests.level < 1 and self.stats.dry_requests_s is None:
                    self.stats.dry_requests_s = now
            if self._tokens:
                self._tokens.level -= tokens
                if self._tokens.level < tokens and self.stats.dry_tokens_s is None:
                    self.stats.dry_tokens_s = now
            self.stats.answered += 1
            self.stats.tokens_charged += tokens
            self.stats.answers.append((now, tokens))
            return 200, self._headers(), tokens

    def _headers(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        for kind, bucket in (("requests", self._requests), ("tokens", self._tokens)):
            if bucket is None:
                continue
            remaining, reset = max(0, math.floor(bucket.level)), bucket.reset_s()
            if self.header_style == "anthropic":
                moment = datetime.now(timezone.utc).timestamp() + reset
                stamp = datetime.fromtimestamp(moment, timezone.utc).isoformat(timespec="milliseconds")
                headers[f"anthropic-ratelimit-{kind}-limit"] = f"{bucket.limit:g}"
                headers[f"anthropic-ratelimit-{kind}-remaining"] = str(remaining)
                headers[f"anthropic-ratelimit-{kind}-reset"] = stamp.replace("+00:00", "Z")
            else:
                limit = self.advertised_rpm if kind == "requests" and self.advertised_rpm else bucket.limit
                headers[f"x-ratelimit-limit-{kind}"] = f"{limit:g}"
                headers[f"x-ratelimit-remaining-{kind}"] = str(remaining)
                headers[f"x-ratelimit-reset-{kind}"] = f"{reset * 1000:.0f}ms"
        return headers

    def completion(self, request: Request, content: str) -> dict[str, Any]:
        """The JSON body of a successful answer (usage counted in tokens)."""
        prompt = count_prompt_tokens(request.get("messages") or [], self.model)
        completion = count_text_tokens(content, self.model)
        digest = hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
        with self._lock:
            self.stats.prompt_tokens += prompt
            self.stats.completion_tokens += completion
            self.stats.bodies.append((digest, prompt, completion))
            number = self.stats.answered
        return {
            "id": f"chatcmpl-rate-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }

    def draw_latency(self) -> float:
        """The next answer's latency."""
        with self._lock:
            return self.latency.draw(self._rng)

    def entered(self, delta: int) -> None:
        """Count requests being served at once."""
        with self._lock:
            self._concurrent += delta
            self.stats.max_concurrent = max(self.stats.max_concurrent, self._concurrent)


def _make_handler(server: RateLimitedServer) -> type[QuietHandler]:
    class Handler(QuietHandler):
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            path = self.path.rstrip("/")
            if path.endswith("/models"):
                self.send_json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
            elif path.endswith(STATS_PATH):
                with server._lock:
                    self.send_json(200, server.stats.to_dict())
            else:
                self.send_json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            request = self.read_json()
            if request is None:
                return
            content = server.reply(request)
            status, headers, _ = server.admit(request, content)
            if status == 429:
                message = "Rate limit reached for requests or tokens; retry after the time in retry-after."
                error = {"message": message, "type": "requests", "code": "rate_limit_exceeded"}
                self.send_json(429, {"error": error}, headers)
                return
            if status != 200:
                self.send_json(status, {"error": {"message": "the endpoint's request bound is reached"}})
                return
            server.entered(1)
            try:
                time.sleep(server.draw_latency())
            finally:
                server.entered(-1)
            self.send_json(200, server.completion(request, content), headers)

    return Handler


def main(argv: list[str] | None = None) -> int:
    """Serve in this process until standard input closes (or the lifetime ends); prints the base URL first."""
    parser = argparse.ArgumentParser(description="Rate-limited scripted OpenAI-compatible server on 127.0.0.1.")
    parser.add_argument("--rpm", type=float, default=None, help="requests per window")
    parser.add_argument("--tpm", type=float, default=None, help="tokens per window")
    parser.add_argument("--window", type=float, default=60.0, help="window in seconds (default 60)")
    parser.add_argument("--latency", default="0.5-3", help="seconds, LOW-HIGH (uniform) or one value")
    parser.add_argument("--replies", choices=("default", "hashed"), default="default")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-requests", type=int, default=100_000)
    parser.add_argument("--max-lifetime", type=float, default=3600.0)
    parser.add_argument("--fixed-windows", action="store_true", help="limits per fixed window (Azure's way)")
    parser.add_argument(
        "--advertised-rpm", type=float, default=None, help="the request limit the headers say (default: --rpm)"
    )
    args = parser.parse_args(argv)
    low, _, high = args.latency.partition("-")
    latency = Latency(float(low), float(high or low))
    reply = hashed_reply if args.replies == "hashed" else default_reply
    server = RateLimitedServer(
        rpm=args.rpm,
        tpm=args.tpm,
        window_s=args.window,
        latency=latency,
        reply=reply,
        seed=args.seed,
        max_requests=args.max_requests,
        max_lifetime_s=args.max_lifetime,
        fixed_windows=args.fixed_windows,
        advertised_rpm=args.advertised_rpm,
    )
    with server:
        print(server.base_url, flush=True)
        stopper = threading.Thread(target=sys.stdin.read, daemon=True)  # until the parent closes the pipe
        stopper.start()
        stopper.join(args.max_lifetime)
    return 0


if __name__ == "__main__":
    sys.exit(main())
