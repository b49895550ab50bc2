"""The HTTP client under every SDK (agents/models/http_client.py): proxies and CA bundles from the
environment, the whole-request deadline, the answer cap, no redirects, response observers."""

from __future__ import annotations

import asyncio
import gzip
import json
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from autogen_core.models import UserMessage

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.http_client import (
    AnswerTooLargeError,
    HttpOptions,
    RedirectError,
    build_http_client,
    ssl_context,
)
from debate_eval.agents.models.http_usage import observing_call
from debate_eval.agents.models.pool import build_checked_client
from debate_eval.agents.models.preflight import unreachable
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy")
CA_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")
COMPLETION = {
    "id": "c",
    "object": "chat.completion",
    "created": 0,
    "model": "scripted",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Score: 3"}}],
    "usage": {
        "prompt_tokens": 5,
        "completion_tokens": 2,
        "total_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 4},
    },
}


@pytest.fixture
def clean_network_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No proxy and no CA bundle from the developer's environment."""
    for name in (*PROXY_VARIABLES, *CA_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


class Server:
    """A small HTTP(S) server on 127.0.0.1 whose routes the test gives: ``path -> handler(request)``."""

    def __init__(self, routes: dict[str, Any], context: ssl.SSLContext | None = None) -> None:
        self.routes = routes
        self.sent = 0  # body bytes sent by trickled answers

        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                if length:
                    self.rfile.read(length)
                outer.routes[self.path.split("?")[0]](self)

            do_GET = do_POST = answer

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda *args: None  # type: ignore[method-assign]
        scheme = "http"
        if context is not None:
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.httpd.server_address[1]}"

    def __enter__(self) -> Server:
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        threading.Timer(60, self.httpd.shutdown).start()  # stops by itself
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def send(handler: Any, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    handler.send_response(status)
    for key, value in {"Content-Type": "application/json", "Content-Length": str(len(body)), **(headers or {})}.items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(body)


def completion(handler: Any) -> None:
    send(handler, 200, json.dumps(COMPLETION).encode())


def get(client: Any, url: str) -> httpx2.Response:
    async def go() -> httpx2.Response:
        try:
            return await client.get(url)
        finally:
            await client.aclose()

    return asyncio.run(go())


# ------------------------------------------------------------------------------------------- proxies


def chat(settings_url: str) -> None:
    """One chat completion through the run's own client stack (AutoGen client over the run's HTTP client)."""
    models = resolve_model_config(ModelOverrides(base_url=settings_url, model="scripted"), environ={})
    settings = models.for_role("scorer")

    async def go() -> None:
        client = build_checked_client(settings, settings_url)
        try:
            await client.create([UserMessage(content="hi", source="user")])
        finally:
            await client.close()

    asyncio.run(go())


def test_the_environments_proxy_carries_every_request_and_no_proxy_exempts_a_host(
    clean_network_env: pytest.MonkeyPatch, recording_proxy: Any
) -> None:
    clean_network_env.setenv("HTTP_PROXY", recording_proxy.url)
    clean_network_env.setenv("NO_PROXY", "localhost")
    with ScriptedOpenAIServer() as server:
        chat(server.base_url)  # 127.0.0.1: through the proxy
        assert recording_proxy.urls() == [server.base_url + "/chat/completions"]
        chat(server.base_url.replace("127.0.0.1", "localhost"))  # exempted by NO_PROXY: straight to the server
        assert len(recording_proxy.urls()) == 1
        assert server.count == 2


def test_a_proxy_that_refuses_is_named_at_the_check(clean_network_env: pytest.MonkeyPatch) -> None:
    from debate_eval.agents.models.preflight import proxy_for

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    clean_network_env.setenv("HTTP_PROXY", f"http://user:secret@127.0.0.1:{port}")
    assert proxy_for("http://example.test/v1") == f"http://127.0.0.1:{port}"  # no credentials shown
    clean_network_env.setenv("NO_PROXY", "example.test")
    assert proxy_for("http://example.test/v1") is None


def test_unreachable_follows_the_causes_of_an_sdk_error() -> None:
    request = httpx2.Request("POST", "http://x/v1/chat/completions")

    def wrapped(cause: BaseException) -> BaseException:
        try:
            try:
                raise cause
            except BaseException as inner:
                raise httpx2.ConnectError(str(inner)) from inner
        except httpx2.ConnectError as error:
            try:
                raise openai.APIConnectionError(request=request) from error
            except openai.APIConnectionError as outer:
                return outer

    assert unreachable(wrapped(ConnectionRefusedError(111, "Connection refused"))) == "connection refused"
    assert unreachable(wrapped(socket.gaierror(-2, "Name or service not known"))) == "unknown host"
    assert unreachable(wrapped(ConnectionResetError(104, "Connection reset by peer"))) is None
    assert unreachable(openai.APITimeoutError(request=request)) is None


# ------------------------------------------------------------------------------------------ CA bundles


def make_ca(folder: Path) -> tuple[Path, Path, Path]:
    """A private CA and a certificate for 127.0.0.1 signed by it (openssl's command line)."""
    if shutil.which("openssl") is None:
        pytest.skip("the openssl command is not installed")
    ca_key, ca, key, csr, cert = (folder / n for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
    ext = folder / "ext.cnf"
    ext.write_text("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")
    commands = [
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2",
         "-subj", "/CN=debate-eval test CA"],
        ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1"],
        ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
         "-extfile", ext],
    ]  # fmt: skip
    for command in commands:
        subprocess.run(["openssl", *map(str, command)], check=True, capture_output=True, timeout=60)
    return ca, cert, key


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[tuple[Server, Path]]:
    ca, cert, key = make_ca(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    with Server({"/v1/chat/completions": completion}, context) as server:
        yield server, ca


@pytest.mark.parametrize("variable", ["SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_a_custom_ca_bundle_from_the_environment_is_trusted(
    clean_network_env: pytest.MonkeyPatch, https_server: tuple[Server, Path], variable: str
) -> None:
    server, ca = https_server
    clean_network_env.setenv(variable, str(ca))
    chat(server.url + "/v1")


def test_without_the_custom_ca_the_server_is_not_trusted(
    clean_network_env: pytest.MonkeyPatch, https_server: tuple[Server, Path]
) -> None:
    server, _ = https_server
    with pytest.raises(openai.APIConnectionError) as caught:
        chat(server.url + "/v1")
    assert "CERTIFICATE_VERIFY_FAILED" in repr(caught.value.__cause__) + str(caught.value.__cause__)


def test_ssl_cert_file_comes_before_requests_ca_bundle_and_a_missing_bundle_is_one_line(
    clean_network_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean_network_env.setenv("REQUESTS_CA_BUNDLE", str(tmp_path / "nowhere.pem"))
    with pytest.raises(UserError, match=r"REQUESTS_CA_BUNDLE=.*nowhere\.pem: cannot load the CA bundle"):
        ssl_context()
    clean_network_env.setenv("SSL_CERT_FILE", str(tmp_path / "first.pem"))
    with pytest.raises(UserError, match=r"^SSL_CERT_FILE="):
        ssl_context()


# ----------------------------------------------------------------------------- deadline, cap, redirects


def trickle(handler: Any) -> None:
    body = json.dumps(COMPLETION).encode()
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.flush()
    for index in range(len(body)):
        handler.wfile.write(body[index : index + 1])
        handler.wfile.flush()
        handler.server.owner.sent += 1
        time.sleep(0.1)  # the whole body would take about 23 s


def test_the_deadline_covers_the_whole_request_not_each_read() -> None:
    with Server({"/slow": trickle}) as server:
        server.httpd.owner = server  # type: ignore[attr-defined]
        client = build_http_client(HttpOptions(deadline_s=0.5))
        with pytest.raises(httpx2.TimeoutException, match=r"no complete answer from .*/slow within 0.5 s"):
            get(client, server.url + "/slow")
        time.sleep(0.3)
        assert server.sent < len(json.dumps(COMPLETION)) / 2  # every read came in time; the whole did not


def test_the_sdk_reports_the_deadline_as_its_timeout_error() -> None:
    with Server({"/v1/chat/completions": trickle}) as server:
        server.httpd.owner = server  # type: ignore[attr-defined]

        async def go() -> None:
            client = openai.AsyncOpenAI(
                base_url=server.url + "/v1",
                api_key="k",
                max_retries=0,
                timeout=30,  # each read would be in time: only the deadline ends it
                http_client=build_http_client(HttpOptions(deadline_s=0.5)),
            )
            try:
                await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
            finally:
                await client.close()

        with pytest.raises(openai.APITimeoutError):
            asyncio.run(go())


def big(handler: Any) -> None:
    handler.send_response(200)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for _ in range(64):  # 4 MiB in all, no Content-Length
        chunk = b"y" * 65536
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    handler.wfile.write(b"0\r\n\r\n")


def test_an_answer_over_the_cap_is_dropped_as_it_arrives() -> None:
    with Server({"/big": big, "/ok": completion}) as server:
        with pytest.raises(AnswerTooLargeError, match=r"over the cap of 100,000 bytes per answer"):
            get(build_http_client(HttpOptions(max_answer_bytes=100_000)), server.url + "/big")
        assert get(build_http_client(HttpOptions(max_answer_bytes=100_000)), server.url + "/ok").status_code == 200
        assert len(get(build_http_client(HttpOptions(max_answer_bytes=None)), server.url + "/big").content) == 4 << 20


def test_a_declared_length_over_the_cap_and_a_compressed_answer_over_it_fail_too() -> None:
    def declared(handler: Any) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "5000000")
        handler.end_headers()  # and never sends it

    def compressed(handler: Any) -> None:
        send(handler, 200, gzip.compress(b"z" * 500_000), {"Content-Encoding": "gzip"})

    with Server({"/declared": declared, "/gzip": compressed}) as server:
        with pytest.raises(AnswerTooLargeError, match=r"5,000,000 bytes or more"):
            get(build_http_client(HttpOptions(max_answer_bytes=1000)), server.url + "/declared")
        with pytest.raises(AnswerTooLargeError, match=r"500,000 bytes or more"):
            get(build_http_client(HttpOptions(max_answer_bytes=100_000)), server.url + "/gzip")


def test_a_redirect_is_not_followed_and_names_where_it_points() -> None:
    def moved(handler: Any) -> None:
        send(handler, 302, b"", {"Location": "https://user:pw@elsewhere.test/v1/chat/completions?key=s"})

    with Server({"/v1/chat/completions": moved}) as server, pytest.raises(RedirectError) as caught:
        get(build_http_client(), server.url + "/v1/chat/completions")
    message = str(caught.value)
    assert "answered HTTP 302, a redirect to https://elsewhere.test/v1/chat/completions?key=***" in message
    assert "pw" not in message and "key=s" not in message


def test_observers_see_each_answer_once_with_its_body_and_may_fail_it() -> None:
    seen: list[tuple[str, int, bytes]] = []

    def observer(request: Any, response: Any) -> None:
        seen.append((request.url.path, response.status_code, response.content))

    def refuse(request: Any, response: Any) -> None:
        raise ValueError("refused by an observer")

    with Server({"/v1/chat/completions": completion}) as server:
        get(build_http_client(observers=[observer]), server.url + "/v1/chat/completions")
        with pytest.raises(ValueError, match="refused by an observer"):
            get(build_http_client(observers=[refuse]), server.url + "/v1/chat/completions")
    assert seen == [("/v1/chat/completions", 200, json.dumps(COMPLETION).encode())]


def test_cached_prompt_tokens_are_observed_through_the_run_client() -> None:
    with Server({"/v1/chat/completions": completion}) as server:
        models = resolve_model_config(ModelOverrides(base_url=server.url + "/v1", model="scripted"), environ={})
        settings = models.for_role("scorer")

        async def go() -> int:
            client = build_checked_client(settings, server.url + "/v1")
            try:
                with observing_call() as meta:
                    await client.create([UserMessage(content="hi", source="user")])
                return meta.cached_prompt_tokens
            finally:
                await client.close()

        assert asyncio.run(go()) == 4


def test_a_transport_of_its_own_is_refused_it_would_bypass_the_proxies() -> None:
    with pytest.raises(TypeError, match="bypass the environment's proxy settings"):
        build_http_client(transport=httpx2.AsyncHTTPTransport())
