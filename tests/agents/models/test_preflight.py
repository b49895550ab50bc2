"""The endpoint check retries what the run would retry and fails fast, in one line, on what it cannot fix."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Thread
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.providers.scripted_server import Fault, ScriptedOpenAIServer
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.agents.models.wrappers import RetryPolicy

FAKE_KEY = "sk-preflight-FAKE-0123456789"
FAST = RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.02)


def check(base_url: str, retry: RetryPolicy = FAST, timeout: float = 5.0) -> None:
    config = resolve_model_config(
        ModelOverrides(model="scripted", base_url=base_url, timeout_s=timeout), {"OPENAI_API_KEY": FAKE_KEY}
    )
    asyncio.run(ClientPool(config, retry=retry).preflight(["scorer", "critic"]))


@pytest.mark.parametrize(
    "faults",
    [
        [Fault(status=500)] * 3,
        [Fault(status=503), Fault(status=502), Fault(status=500)],
        [Fault(status=429, retry_after=0.01)] * 2,
        [Fault(status=429)] * 2,  # no Retry-After: the backoff
        [Fault(hang_s=10.0)],  # far past the 2 s timeout
    ],
)
def test_transient_faults_are_retried_with_the_runs_policy(faults: list[Fault]) -> None:
    with ScriptedOpenAIServer(faults=list(faults)) as server:
        # a timeout only as short as the hang needs: an answer that is merely slow (a loaded machine) is no
        # timeout, so the count below is exact
        check(server.base_url, timeout=2.0 if any(f.hang_s for f in faults) else 5.0)
        assert server.count == len(faults) + 1  # one endpoint (scorer and critic share it): retried, then OK


def test_transient_faults_beyond_the_retries_fail_in_one_closed_line() -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=503)] * 4) as server, pytest.raises(UserError) as error:
        check(server.base_url)
    message = str(error.value)
    assert "HTTP 503" in message and "after 3 retries" in message and "used by the scorer" in message
    assert "\n" not in message and message.count("(") == message.count(")")
    assert server.count == 4


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (401, "rejected the API key in $OPENAI_API_KEY"),
        (403, "rejected the API key in $OPENAI_API_KEY"),
        (404, "has no model 'scripted'"),
        (400, "HTTP 400 to a test request (not retried"),
    ],
)
def test_what_retrying_cannot_fix_fails_at_once(status: int, expected: str) -> None:
    with ScriptedOpenAIServer(faults=[Fault(status=status)] * 5) as server, pytest.raises(UserError) as error:
        check(server.base_url)
    message = str(error.value)
    assert server.count == 1, "not retried"
    assert expected in message and server.base_url in message and "injected fault" in message
    assert "\n" not in message and message.count("(") == message.count(")") and FAKE_KEY not in message


class _RawServer(ThreadingHTTPServer):
    daemon_threads = True


def raw_server(bodies: list[tuple[bytes, str]]) -> Iterator[tuple[str, list[int]]]:
    """Answers 200 with each body in turn (then a good completion); counts requests."""
    count = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            index = count[0]
            count[0] += 1
            if index < len(bodies):
                data, kind = bodies[index]
            else:
                answer = {"role": "assistant", "content": "OK"}
                data = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": "scripted",
                        "choices": [{"index": 0, "finish_reason": "stop", "message": answer}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    }
                ).encode()
                kind = "application/json"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = _RawServer(("127.0.0.1", 0), Handler)
    thread = Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", count
    finally:
        server.shutdown()
        server.server_close()


BAD_BODIES = [
    (b"<html><body>502 Bad Gateway</body></html>", "text/html"),
    (b"\xff\xfe\x00garbled\x81", "application/json"),
    (b"", "application/json"),
    (b'{"error": {"message": "upstream overloaded"}}', "application/json"),
    (b"[1, 2]", "application/json"),
]


@pytest.mark.parametrize("body", BAD_BODIES)
def test_a_200_that_is_no_completion_is_retried_then_passes(body: tuple[bytes, str]) -> None:
    for url, count in raw_server([body, body]):
        check(url)
        assert count[0] == 3


@pytest.mark.parametrize("body", BAD_BODIES)
def test_a_lasting_200_that_is_no_completion_fails_in_one_line(body: tuple[bytes, str]) -> None:
    for url, count in raw_server([body] * 4):
        with pytest.raises(UserError) as error:
            check(url)
        message = str(error.value)
        assert count[0] == 4 and "answered HTTP 200 with" in message and url in message
        assert "after 3 retries" in message and "\n" not in message


def test_an_empty_answer_passes_the_check() -> None:
    with ScriptedOpenAIServer(reply=lambda request: "") as server:
        check(server.base_url)
        assert server.count == 1
