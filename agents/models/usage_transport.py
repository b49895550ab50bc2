"""What AutoGen's ``RequestUsage`` leaves out of a chat completion, read where the raw response is.

AutoGen's ``OpenAIChatCompletionClient`` keeps only ``prompt_tokens`` and ``completion_tokens`` of a response's
``usage``; providers that cache prompt prefixes also report ``usage.prompt_tokens_details.cached_tokens``
(billed at a lower rate). ``ObservingTransport`` wraps the HTTP transport of the OpenAI SDK that AutoGen's
client uses, reads that field from every chat-completion response, and writes it into the ``CallMeta`` of the
call in progress: ``ObservedClient`` opens one with ``observing_call()`` around each completion, and the SDK's
request task inherits it (a context variable). The batch transport (``batch.py``) fills the same record.
"""

from __future__ import annotations

import contextlib
import functools
import json
import ssl
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import httpcore2
import httpx2
import openai
from httpcore2._backends.anyio import AnyIOBackend, AnyIOStream
from httpcore2._utils import is_socket_readable
from openai._constants import DEFAULT_CONNECTION_LIMITS

CHAT_PATH = "/chat/completions"


@dataclass
class CallMeta:
    """What the transport learnt about one model call."""

    cached_prompt_tokens: int = 0  # usage.prompt_tokens_details.cached_tokens
    batch: bool = False  # answered through the Batch API (billed at the batch rate)


_CALL: ContextVar[CallMeta | None] = ContextVar("debate_eval_call_meta", default=None)


@contextlib.contextmanager
def observing_call() -> Iterator[CallMeta]:
    """A fresh ``CallMeta`` for the model call made inside this block (and the tasks it starts)."""
    meta = CallMeta()
    token = _CALL.set(meta)
    try:
        yield meta
    finally:
        _CALL.reset(token)


def current_call() -> CallMeta | None:
    """The ``CallMeta`` of the call in progress, if some caller opened one."""
    return _CALL.get()


def cached_tokens(usage: Any) -> int:
    """``usage.prompt_tokens_details.cached_tokens`` of a response's JSON ``usage`` (0 when absent)."""
    if not isinstance(usage, dict):
        return 0
    details = usage.get("prompt_tokens_details")
    if not isinstance(details, dict):
        return 0
    try:
        return max(0, int(details.get("cached_tokens") or 0))
    except (TypeError, ValueError):
        return 0


def note_response(body: Any, *, batch: bool = False) -> None:
    """Record the cached prompt tokens of a chat-completion JSON ``body`` in the current call's meta."""
    meta = _CALL.get()
    if meta is None:
        return
    meta.batch = meta.batch or batch
    if isinstance(body, dict):
        meta.cached_prompt_tokens = cached_tokens(body.get("usage"))


def is_chat_request(request: httpx2.Request) -> bool:
    """A ``POST .../chat/completions``."""
    return request.method == "POST" and request.url.path.endswith(CHAT_PATH)


class ObservingTransport(httpx2.AsyncBaseTransport):
    """Passes every request to ``inner``; notes the cached prompt tokens of chat-completion answers."""

    def __init__(self, inner: httpx2.AsyncBaseTransport | None = None) -> None:
        self.inner = inner or base_transport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Forward ``request``; read the body of a successful chat completion when a call is observed."""
        response = await self.inner.handle_async_request(request)
        if response.status_code == 200 and _CALL.get() is not None and is_chat_request(request):
            content = await response.aread()
            if b"prompt_tokens_details" in content:  # most endpoints never send it: skip the parse
                with contextlib.suppress(ValueError):
                    note_response(json.loads(content))
        return response

    async def aclose(self) -> None:
        """Close the wrapped transport."""
        await self.inner.aclose()


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """httpx's default SSL context (CA bundle, ``SSL_CERT_FILE``/``SSL_CERT_DIR``), made once per process: each
    new one loads the CA bundle again (about 0.1-0.3 s), and a run builds a transport per client stack."""
    return httpx2.create_ssl_context()


class _SocketOnceStream(AnyIOStream):
    """httpcore's anyio stream, looking its raw socket up once.

    Before each request the connection pool checks every idle connection for a server-side close
    (``get_extra_info("is_readable")``); anyio answers each lookup by rebuilding the stream's attribute table,
    with a ``getpeername`` call. At 32-128 debates in flight that scan was about a sixth of the event loop's
    time. The socket of a stream never changes: the check is then one ``poll``, as before in effect.
    """

    _raw: Any = None

    def get_extra_info(self, info: str) -> Any:
        """As httpcore's, with the raw socket kept after its first lookup."""
        if info == "is_readable":
            if self._raw is None:
                self._raw = super().get_extra_info("socket")
            return is_socket_readable(self._raw)
        return super().get_extra_info(info)

    async def start_tls(self, *args: Any, **kwargs: Any) -> _SocketOnceStream:
        """TLS over this stream, keeping the cheap check."""
        stream = await super().start_tls(*args, **kwargs)
        return _SocketOnceStream(stream._stream)  # type: ignore[attr-defined]


class _SocketOnceBackend(AnyIOBackend):
    """httpcore's anyio network backend, making ``_SocketOnceStream``s."""

    async def connect_tcp(self, *args: Any, **kwargs: Any) -> _SocketOnceStream:  # type: ignore[override]
        """Connect as httpcore does."""
        stream = await super().connect_tcp(*args, **kwargs)
        return _SocketOnceStream(stream._stream)  # type: ignore[attr-defined]


def base_transport() -> httpx2.AsyncHTTPTransport:
    """The SDK's HTTP transport settings (connection limits) over the shared SSL context, with a connection
    pool whose idle-connection check is cheap (``_SocketOnceStream``)."""
    limits = DEFAULT_CONNECTION_LIMITS
    transport = httpx2.AsyncHTTPTransport(verify=shared_ssl_context(), limits=limits)
    transport._pool = httpcore2.AsyncConnectionPool(  # the pool httpx builds, with another network backend
        ssl_context=shared_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=_SocketOnceBackend(),
    )
    return transport


def http_client(transport: httpx2.AsyncBaseTransport) -> httpx2.AsyncClient:
    """An HTTP client with the OpenAI SDK's defaults over ``transport``."""
    return openai.DefaultAsyncHttpx2Client(transport=transport)
