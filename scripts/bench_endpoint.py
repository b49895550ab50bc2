"""A light OpenAI-compatible endpoint for the throughput benchmarks: G-Eval's chat completions answered as the
scripted server answers them (``debate_eval.agents.models.providers.scripted_server``: a bare score, its
log-probabilities when asked, usage counted in words), at a small fraction of its CPU per request, so that on a
machine whose cores the client also uses the endpoint is not what the benchmark measures.

It serves on a free port of 127.0.0.1 with asyncio (one thread, ``asyncio.Protocol``: HTTP/1.1 keep-alive,
bodies by ``Content-Length``), prints its base URL (``http://127.0.0.1:PORT/v1``) as the first line and stops
when its standard input closes. Routes: ``POST .../chat/completions``; ``GET .../models``; ``GET
/scripted/stats`` (``{"requests": N}``, the chat completions answered, as the scripted server counts them);
``GET /bench/window`` (``{"first": T, "last": T}``: when the first and the last chat completion since the
previous such GET came, on the machine's monotonic clock, so a benchmark can time the calls themselves).

The score of a request is chosen from its last message by a hash (CRC-32, so the same request gets the same
score in every process and run), on ``--scale`` (default 1-5): the scores vary over the items, as a judge's
would. It is a benchmark aid for G-Eval's requests (one number an answer), not a general scripted server: a
debate's roles, pairwise prompts and JSON schemas are the scripted server's.

    python scripts/bench_endpoint.py [--scale 1-5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
import zlib
from typing import Any

STATS_PATH = b"/scripted/stats"
WINDOW_PATH = b"/bench/window"  # GET: {"first": t, "last": t} of the requests since the previous GET
REASONS = {200: b"OK", 400: b"Bad Request", 404: b"Not Found", 413: b"Content Too Large"}
MAX_BODY = 64 * 1024 * 1024  # a request larger than this is refused (413) and its connection closed


class Endpoint:
    """The answers and the count of chat completions answered (shared by the connections)."""

    def __init__(self, low: int, high: int) -> None:
        self.low, self.high = low, high
        self.requests = 0
        # when the chat completions of the current window came, first and last (``time.monotonic``: the
        # system's monotonic clock, the same in every process of the machine); a window ends when it is read
        self.first: float | None = None
        self.last: float | None = None

    def window(self) -> dict[str, Any]:
        """The current window's first and last request times (None: no request), then a new window."""
        seen = {"first": self.first, "last": self.last}
        self.first = self.last = None
        return seen

    def score_of(self, request: dict[str, Any]) -> int:
        """The request's score: its last message's text hashed onto the scale."""
        messages = request.get("messages") or [{}]
        text = str(messages[-1].get("content", "")) if isinstance(messages[-1], dict) else ""
        return self.low + zlib.crc32(text.encode("utf-8", "surrogatepass")) % (self.high - self.low + 1)

    def completion(self, request: dict[str, Any]) -> dict[str, Any]:
        """The body of a chat completion, shaped as the scripted server's answer to a G-Eval evaluator."""
        self.requests += 1
        now = time.monotonic()
        self.first = now if self.first is None else self.first
        self.last = now
        content = str(self.score_of(request))
        messages = request.get("messages") or []
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in messages if isinstance(m, dict))
        choice: dict[str, Any] = {
            "index": 0,
            "finish_reason": "stop",
            "message": {"role": "assistant", "content": content},
        }
        if request.get("logprobs"):
            top = {"token": content, "logprob": -0.01, "bytes": list(content.encode())}
            choice["logprobs"] = {"content": [{**top, "top_logprobs": [top]}]}
        return {
            "id": f"chatcmpl-scripted-{self.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [choice],
            "usage": {"prompt_tokens": prompt_words, "completion_tokens": 1, "total_tokens": prompt_words + 1},
        }

    def answer(self, method: bytes, path: bytes, body: bytes) -> tuple[int, bytes]:
        """Status and JSON body of the answer to one request."""
        route = path.split(b"?", 1)[0].rstrip(b"/")
        if method == b"POST" and route.endswith(b"/chat/completions"):
            try:
                request = json.loads(body or b"{}")
            except (json.JSONDecodeError, UnicodeDecodeError):
                request = None
            if not isinstance(request, dict):
                return 400, b'{"error": {"message": "invalid JSON"}}'
            return 200, json.dumps(self.completion(request)).encode()
        if method == b"GET" and route.endswith(b"/models"):
            return 200, b'{"object": "list", "data": [{"id": "scripted", "object": "model"}]}'
        if method == b"GET" and route.endswith(STATS_PATH):
            return 200, json.dumps({"requests": self.requests}).encode()
        if method == b"GET" and route.endswith(WINDOW_PATH):
            return 200, json.dumps(self.window()).encode()
        return 404, b'{"error": {"message": "not found"}}'


class Connection(asyncio.Protocol):
    """One client connection: requests parsed as their bytes arrive, answered in order (pipelining too)."""

    def __init__(self, endpoint: Endpoint) -> None:
        self.endpoint = endpoint
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Keep the transport."""
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        """Answer every complete request the buffer holds."""
        self.buffer += data
        while self.transport is not None:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buffer[:end]).split(b"\r\n")
            method, path = (head[0].split(b" ") + [b"", b""])[:2]
            length, close = 0, head[0].endswith(b"HTTP/1.0")
            for line in head[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value.strip() or 0) if value.strip().isdigit() else -1
                elif name == b"connection":
                    close = value.strip().lower() == b"close"
            if length < 0 or length > MAX_BODY:
                self.respond(413 if length > MAX_BODY else 400, b'{"error": {"message": "bad length"}}', True)
                return
            if len(self.buffer) < end + 4 + length:
                return  # the rest of the body is still to come
            body = bytes(self.buffer[end + 4 : end + 4 + length])
            del self.buffer[: end + 4 + length]
            status, payload = self.endpoint.answer(method, path, body)
            self.respond(status, payload, close)

    def respond(self, status: int, payload: bytes, close: bool) -> None:
        """Write one answer (and close the connection after it when asked)."""
        if self.transport is None:
            return
        head = b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n" % (
            status,
            REASONS.get(status, b"Error"),
            len(payload),
            b"Connection: close\r\n" if close else b"",
        )
        self.transport.write(head + payload)
        if close:
            self.transport.close()
            self.transport = None

    def connection_lost(self, exc: Exception | None) -> None:
        """Forget the transport."""
        self.transport = None


async def serve(endpoint: Endpoint, announce: Any = print) -> None:
    """Serve ``endpoint`` on a free port of 127.0.0.1 until standard input closes; ``announce`` gets the base
    URL first."""
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Connection(endpoint), "127.0.0.1", 0, backlog=1024)
    port = server.sockets[0].getsockname()[1]
    announce(f"http://127.0.0.1:{port}/v1")
    closed = asyncio.Event()
    stdin = sys.stdin.fileno()

    def read_stdin() -> None:
        if not os.read(stdin, 65536):  # end of file: the parent closed the pipe or exited
            loop.remove_reader(stdin)
            closed.set()

    loop.add_reader(stdin, read_stdin)
    async with server:
        await closed.wait()


def main(argv: list[str] | None = None) -> int:
    """Serve until standard input closes (the base URL printed as the first line)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", default="1-5", help="the scores' range, LOW-HIGH (default 1-5)")
    args = parser.parse_args(argv)
    try:
        low, high = (int(x) for x in args.scale.split("-"))
        if low > high:
            raise ValueError
    except ValueError:
        parser.exit(2, f"bench_endpoint.py: --scale {args.scale!r}: expected LOW-HIGH, e.g. 1-5\n")
    asyncio.run(serve(Endpoint(low, high), lambda url: print(url, flush=True)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
