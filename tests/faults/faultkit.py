"""The fault suite's tools: a local fault server and the real command line, with a recognisable fake key
(imported by the tests; ``conftest.py`` exposes the fixtures).

``FaultServer`` is an OpenAI-compatible endpoint on 127.0.0.1 whose answers a test scripts request by
request (HTTP errors with or without Retry-After, hangs, empty or garbled 200 bodies, reset connections,
bodies trickled a byte at a time, redirects, context-length errors, chosen replies). It is bounded: at most
``max_requests`` requests and ``lifetime_s`` seconds, then it stops by itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.local_server import FAKE_SERVING, LocalServer, QuietHandler
from debate_eval.agents.models.providers.scripted_server import default_reply, role_of_request
from debate_eval.tasks.cli.main import main

FAKE_KEY = "sk-FAULTSUITE-0123456789-must-never-be-printed"
ITEMS = 4  # SummEval coherence items per run (summaries of the first document)


@dataclass
class Action:
    """What the server does with one request instead of (or before) a normal completion."""

    status: int | None = None  # an HTTP error status
    retry_after: str | None = None  # its Retry-After header
    error: dict[str, Any] | None = None  # its error object (default: a generic message)
    hang_s: float = 0.0  # wait this long first (past the client's --timeout)
    body: bytes | None = None  # a raw 200 body instead of a completion
    content_type: str = "application/json"
    reset: bool = False  # close the connection without an answer
    reply: str | None = None  # the completion's text
    trickle_s: float = 0.0  # send the answer's body one byte at a time, this many seconds apart
    redirect: str | None = None  # answer 302 with this Location (a path on this server, or a URL)


Script = Callable[[int, dict[str, Any]], "Action | None"]  # (request number from 0, request) -> action


@dataclass
class FaultServer:
    """Use as a context manager; ``base_url`` is ``http://127.0.0.1:PORT/v1``."""

    script: Script = lambda number, request: None
    max_requests: int = 2000
    lifetime_s: float = 600.0  # a bound on a hang only: a slow test on a loaded machine is no hang
    requests: list[dict[str, Any]] = field(default_factory=list)
    keys_seen: set[str] = field(default_factory=set)
    keys_by_role: dict[str, set[str]] = field(default_factory=dict)  # role of the request -> Authorization
    trickled: int = 0  # body bytes sent by trickled answers (Action.trickle_s)

    def __post_init__(self) -> None:
        self.lock = threading.Lock()
        self.base_url = ""
        self._server: LocalServer | None = None

    @property
    def count(self) -> int:
        with self.lock:
            return len(self.requests)

    def __enter__(self) -> FaultServer:
        self._server = LocalServer(_handler(self), lifetime_s=self.lifetime_s, **FAKE_SERVING)  # stops by itself
        self.base_url = f"{self._server.root}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()


def completion(request: dict[str, Any], text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fault",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "scripted"),
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": max(1, len(text.split())), "total_tokens": 20},
    }


def _handler(server: FaultServer) -> type[QuietHandler]:
    class Handler(QuietHandler):
        def _send(
            self,
            status: int,
            data: bytes,
            content_type: str,
            headers: dict[str, str] | None = None,
            trickle_s: float = 0.0,
        ) -> None:
            self.send_head_of(status, len(data), content_type, headers or {})
            if not trickle_s:
                self.wfile.write(data)
                return
            self.wfile.flush()
            for index in range(len(data)):  # stops when the client hangs up (a write error ends the thread)
                self.wfile.write(data[index : index + 1])
                self.wfile.flush()
                with server.lock:
                    server.trickled += 1
                time.sleep(trickle_s)

        def do_GET(self) -> None:  # where a redirect points: no such route, as a real gateway would say
            self._send(404, b'{"error": {"message": "no such route"}}', "application/json")

        def do_POST(self) -> None:
            request = json.loads(self.read_body() or b"{}")
            with server.lock:
                number = len(server.requests)
                server.requests.append(request)
                server.keys_seen.add(self.headers.get("Authorization", ""))
                server.keys_by_role.setdefault(role_of_request(request), set()).add(
                    self.headers.get("Authorization", "")
                )
            if number >= server.max_requests:
                self._send(503, b'{"error": {"message": "fault server: request budget spent"}}', "application/json")
                return
            action = server.script(number, request) or Action()
            if action.hang_s:
                time.sleep(action.hang_s)
            if action.reset:
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if action.redirect is not None:
                location = action.redirect
                if location.startswith("/"):
                    location = server.base_url.rsplit("/v1", 1)[0] + location
                self._send(302, b"", "text/html", {"Location": location})
                return
            if action.status:
                error = action.error or {"message": f"injected HTTP {action.status}", "type": "fault"}
                headers = {"Retry-After": action.retry_after} if action.retry_after is not None else {}
                self._send(action.status, json.dumps({"error": error}).encode(), "application/json", headers)
                return
            if action.body is not None:
                self._send(200, action.body, action.content_type)
                return
            text = action.reply if action.reply is not None else default_reply(request)
            body = json.dumps(completion(request, text)).encode()
            self._send(200, body, "application/json", trickle_s=action.trickle_s)

    return Handler


def role(request: dict[str, Any]) -> str:
    """The role a request comes from (scorer, critic, ...)."""
    return role_of_request(request)


@dataclass
class Outcome:
    """What one command-line invocation did."""

    code: int
    stdout: str
    stderr: str
    out: Path

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def records(self) -> list[dict[str, Any]]:
        path = self.out / "results.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def error_lines(self) -> list[str]:
        return [line for line in self.stderr.splitlines() if line.strip()]


@pytest.fixture
def fault_env(monkeypatch: pytest.MonkeyPatch, isolated_env: Path) -> Path:
    """``isolated_env`` plus the fake API key, fast retries and no progress bar."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("DEBATE_EVAL_RETRY_BACKOFF", "0.01")
    return isolated_env


def run_args(server: FaultServer, out: Path, *extra: str, limit: int = ITEMS) -> list[str]:
    """The ``run`` command line of the suite (SummEval coherence, one Critic round)."""
    return [
        "run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(limit),
        "--base-url", server.base_url, "--model", "scripted", "--out", str(out),
        "--max-rounds", "1", "--no-progress", "--timeout", "5", "--max-retries", "3", "--concurrency", "3",
        *extra,
    ]  # fmt: skip


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[[list[str]], Outcome]:
    """Run the real command line in this process: ``cli(args) -> Outcome``."""

    def invoke(args: list[str]) -> Outcome:
        code = main(args)
        captured = capsys.readouterr()
        out = Path(args[args.index("--out") + 1]) if "--out" in args else Path(args[1])  # run: --out; others: arg
        return Outcome(code, captured.out, captured.err, out)

    return invoke


def start_cli(args: list[str]) -> subprocess.Popen[str]:
    """The real command line in a process of its own (for signals)."""
    return subprocess.Popen(
        [sys.executable, "-m", "debate_eval.tasks.cli.main", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )


def wait_for_lines(path: Path, count: int, process: subprocess.Popen[str], limit_s: float = 60) -> int:
    """Wait (bounded) until ``path`` has ``count`` lines or the process ended; the lines there."""
    deadline = time.monotonic() + limit_s
    lines = 0
    while time.monotonic() < deadline and process.poll() is None:
        lines = path.read_bytes().count(b"\n") if path.exists() else 0
        if lines >= count:
            break
        time.sleep(0.02)
    return lines


def assert_clean(outcome: Outcome, *, code: int, message: str | None, results: int, server: FaultServer) -> None:
    """The suite's common checks: exit code, the one-line message, no traceback, the results, no key."""
    assert outcome.code == code, outcome.output
    assert "Traceback" not in outcome.output, outcome.output
    errors = [line for line in outcome.error_lines() if line.startswith("debate-eval: error:")]
    if message is not None:
        assert len(errors) == 1 and message in errors[0], outcome.output
    else:
        assert errors == [], outcome.output
    records = outcome.records()
    assert all("\n" not in str(r.get("error") or "") for r in records)  # an item's error is one line too
    ids = [r["item_id"] for r in records]
    assert len(ids) == len(set(ids)) == results, ids  # no loss, no duplicate
    assert_no_key(outcome.output, outcome.out)
    assert server.keys_seen == {f"Bearer {FAKE_KEY}"} or not server.keys_seen  # the key was used, only there


def assert_no_key(output: str, out: Path) -> None:
    """The fake key appears nowhere: not in the output, not in any file of the run directory."""
    assert FAKE_KEY not in output
    if out.is_dir():
        for path in out.rglob("*"):
            if path.is_file():
                assert FAKE_KEY.encode() not in path.read_bytes(), path


@pytest.fixture
def server_factory() -> Iterator[Callable[..., FaultServer]]:
    """``server_factory(script=..., ...)``: a started ``FaultServer``, stopped after the test."""
    servers: list[FaultServer] = []

    def make(**kwargs: Any) -> FaultServer:
        server = FaultServer(**kwargs).__enter__()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()
