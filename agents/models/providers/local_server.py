"""Plumbing of the local HTTP endpoints (the scripted and rate-limited servers, the tests' wire fakes, fault
server and recording proxy): ``LocalServer``, a threaded HTTP server on a free port of 127.0.0.1 served from
a daemon thread until ``stop()`` or the end of its lifetime, and ``QuietHandler``, a request handler that
logs nothing and reads and writes bodies.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Headers = Mapping[str, str] | Iterable[tuple[str, str]]
HUNG_UP: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError)  # a client that went away
# ``LocalServer`` keywords of the tests' fakes: quick to stop, no error of a request printed (their clients
# hang up and their connections are reset on purpose)
FAKE_SERVING: dict[str, Any] = {"queue_size": 64, "poll_interval_s": 0.05, "ignored": (Exception,)}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, handler: type[BaseHTTPRequestHandler], queue_size: int, ignored: tuple[type[BaseException], ...]
    ) -> None:
        self.request_queue_size = queue_size  # the listen backlog (read while binding): many clients at once
        self.ignored = ignored
        super().__init__(("127.0.0.1", 0), handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Errors of the ``ignored`` kinds (by default a client that went away mid-request: a killed run, a
        timeout) are not errors of the server; others are printed as ``ThreadingHTTPServer`` does."""
        if not isinstance(sys.exc_info()[1], self.ignored):
            super().handle_error(request, client_address)


class LocalServer:
    """``handler`` served on a free port of 127.0.0.1 from a daemon thread, from construction until ``stop()``
    (idempotent, from any thread) or, with ``lifetime_s``, until that many seconds have passed.

    ``root`` is ``http://127.0.0.1:PORT``. ``queue_size``: the listen backlog; ``poll_interval_s``: how
    often the serving loop looks for a stop (how long ``stop()`` may wait); ``ignored``: the errors of a
    request that are not printed.
    """

    def __init__(
        self,
        handler: type[BaseHTTPRequestHandler],
        *,
        lifetime_s: float | None = None,
        queue_size: int = 128,
        poll_interval_s: float = 0.5,
        ignored: tuple[type[BaseException], ...] = HUNG_UP,
    ) -> None:
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._server: _Server | None = _Server(handler, queue_size, ignored)
        self.root = f"http://127.0.0.1:{self._server.server_address[1]}"
        serve = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": poll_interval_s}, daemon=True
        )
        serve.start()
        self._timer: threading.Timer | None = None
        if lifetime_s is not None:
            self._timer = threading.Timer(lifetime_s, self.stop)
            self._timer.daemon = True
            self._timer.start()

    def stop(self) -> None:
        """Stop serving and close the socket (a second call does nothing)."""
        with self._lock:
            server, self._server = self._server, None
        if self._timer is not None:
            self._timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()
            self._stopped.set()

    def wait_stopped(self, timeout_s: float) -> bool:
        """Wait (at most ``timeout_s``) until serving has stopped and the socket is closed; whether it has."""
        return self._stopped.wait(timeout_s)


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler speaking HTTP/1.1 (keep-alive) that logs nothing, with helpers for bodies."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Log nothing: tests and benchmarks print no line per request."""
        return

    def read_body(self) -> bytes:
        """The request's body (``Content-Length`` bytes; none without the header)."""
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def read_json(self) -> dict[str, Any] | None:
        """The request's JSON object (``{}`` for no body), or None after answering 400 to a body that is not
        a JSON object."""
        try:
            body = json.loads(self.read_body() or b"{}")
        except json.JSONDecodeError:
            body = None
        if not isinstance(body, dict):
            self.send_json(400, {"error": {"message": "invalid JSON"}})
            return None
        return body

    def send_head_of(
        self, status: int, length: int, content_type: str | None = "application/json", headers: Headers = ()
    ) -> None:
        """Status line and headers of an answer of ``length`` body bytes (no ``Content-Type`` when None)."""
        self.send_response(status)
        if content_type is not None:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(length))
        for key, value in headers.items() if isinstance(headers, Mapping) else headers:
            self.send_header(key, value)
        self.end_headers()

    def send_bytes(
        self, status: int, data: bytes, content_type: str | None = "application/json", headers: Headers = ()
    ) -> None:
        """A whole answer with body ``data``."""
        self.send_head_of(status, len(data), content_type, headers)
        self.wfile.write(data)

    def send_json(self, status: int, body: Mapping[str, Any], headers: Headers = ()) -> None:
        """A whole answer with ``body`` as JSON."""
        self.send_bytes(status, json.dumps(body).encode(), "application/json", headers)
