"""The HTTP client under every model SDK: ``build_http_client``.

Every provider's SDK client gets its HTTP client here (the ``openai`` and ``anthropic`` SDKs use ``httpx2``),
so every request of a run behaves the same way:

- **Proxies and CA bundles as the environment says.** ``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and
  ``NO_PROXY`` are read by httpx itself: the client is built without a transport of its own (a transport
  given to httpx turns its proxy settings off). The CA bundle: ``SSL_CERT_FILE`` (or ``SSL_CERT_DIR``), else
  ``REQUESTS_CA_BUNDLE``, else ``CURL_CA_BUNDLE``, else the system's; one SSL context per process and bundle.
- **A deadline for the whole request** (``HttpOptions.deadline_s``, the run's ``--timeout``): waiting for a
  pooled connection, connecting, sending, waiting and reading the body. httpx's own timeouts bound each
  network operation, so a body trickled a byte at a time never timed out. Past the deadline the request is
  cancelled and an httpx ``TimeoutException`` raised (the SDK's timeout error: retried as a timeout).
- **A cap on the bytes read per answer** (``HttpOptions.max_answer_bytes``, ``--max-answer-bytes``, default
  1,000,000): an answer announcing more (``Content-Length``) or bringing more is dropped, its connection
  closed, and ``AnswerTooLargeError`` raised: final, the item fails in one line. The cap counts the bytes
  as they arrive (a compressed body: its compressed bytes) and the decoded body again.
- **No redirect is followed**: a POST redirected with 301/302/303 comes back as a GET without its body, which
  the endpoint then answered with an unrelated error ("no model 'x'"). ``RedirectError`` says where the
  endpoint points instead.
- **A connection pool** of ``max_connections`` (``fd_budget`` sizes it to the open-file limit).
- **Session affinity** (``affinity.py``): inside a debate every request carries its session key in the
  routers' headers, and a base URL given several replicas (``route_replicas``) sends each session to one of
  them (pinned; new sessions to the replica with the fewest requests in flight).
- **Response observers**: each answer, once its body is read, goes to every observer in order: this is the
  one place where response headers and bodies are looked at (the chat completion check, cached prompt
  tokens; rate-limit headers). An observer is ``observer(request, response)``; it may raise to fail the
  request. For a streamed request (never made by the debates) observers see the headers before the body.

Only public APIs are used: a subclass of ``AsyncClient`` overriding its public ``send``, and the response's
public ``stream`` attribute wrapped (as ``AsyncClient.send`` itself wraps it) to count the bytes read.
"""

from __future__ import annotations

import functools
import os
import ssl
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2

from debate_eval.agents.errors import RedactedError, UserError, error_chain
from debate_eval.agents.models.affinity import SESSION_HEADERS, ReplicaSet, session_key
from debate_eval.agents.models.http_defaults import DEFAULT_MAX_ANSWER_BYTES
from debate_eval.agents.models.settings import public_url

DEFAULT_MAX_CONNECTIONS = 1000  # the openai SDK's default pool
DEFAULT_MAX_KEEPALIVE = 100
# in this order of precedence (SSL_CERT_DIR: a folder of certificates)
CA_BUNDLE_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_DIR")

ResponseObserver = Callable[[Any, Any], None]  # (request, response); may raise


@dataclass(frozen=True)
class HttpOptions:
    """How every request of one HTTP client is bounded (none of it changes an answer)."""

    deadline_s: float | None = 120.0  # the whole request; None: no deadline (httpx's own timeouts only)
    max_answer_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES  # per answer; None: no cap
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_keepalive_connections: int = DEFAULT_MAX_KEEPALIVE
    session_keys: bool = True  # send the debate's session key in the routers' headers (``affinity.py``)


class FinalHttpError(RedactedError):
    """An answer that retrying cannot change (``final_http_error`` finds one behind an SDK's wrapper)."""


def final_http_error(error: BaseException | None) -> FinalHttpError | None:
    """The ``FinalHttpError`` ``error`` is or was caused by (an SDK may wrap it, e.g. the anthropic SDK in
    its ``APIConnectionError``), else None."""
    return next((cause for cause in error_chain(error) if isinstance(cause, FinalHttpError)), None)


class AnswerTooLargeError(FinalHttpError):
    """An answer was longer than ``--max-answer-bytes`` (final: not retried, never cached)."""

    def __init__(self, url: str, limit: int, seen: int | None = None) -> None:
        self.url, self.limit = url, limit
        size = f"{seen:,} bytes or more" if seen is not None else f"more than {limit:,} bytes"
        super().__init__(
            f"the answer from {public_url(url)} is {size}, over the cap of {limit:,} bytes per answer; the item "
            "fails (raise --max-answer-bytes if such answers are expected)"
        )


class RedirectError(FinalHttpError):
    """The endpoint answered with a redirect (3xx): final, requests are not redirected."""

    def __init__(self, url: str, status: int, location: str | None) -> None:
        self.url, self.status, self.location = url, status, location
        where = f"to {public_url(location)}" if location else "without a Location"
        super().__init__(
            f"the endpoint {public_url(url)} answered HTTP {status}, a redirect {where}; requests are not "
            "redirected (a redirected POST loses its body): use the address it points to as --base-url"
        )


# ------------------------------------------------------------------------------------------------ CA bundle


def ca_bundle() -> tuple[str, str] | None:
    """The CA bundle the environment names: ``(variable, path)``, or None for the system's."""
    return next(((name, os.environ[name]) for name in CA_BUNDLE_VARIABLES if os.environ.get(name)), None)


def ssl_context() -> ssl.SSLContext:
    """The SSL context of every client: the environment's CA bundle (``ca_bundle``), else httpx2's default
    (made once per process and bundle: loading a bundle takes 0.1-0.3 s). A bundle that cannot be loaded is
    a ``UserError`` naming the variable."""
    named = ca_bundle()
    if named is None:
        return _default_context()
    return _bundle_context(*named)


@functools.cache
def _default_context() -> ssl.SSLContext:
    return httpx2.create_ssl_context()


@functools.cache
def _bundle_context(variable: str, path: str) -> ssl.SSLContext:
    try:
        if variable == "SSL_CERT_DIR" or os.path.isdir(path):
            return ssl.create_default_context(capath=path)
        return ssl.create_default_context(cafile=path)
    except (OSError, ssl.SSLError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UserError(f"{variable}={path}: cannot load the CA bundle ({reason})") from None


# ------------------------------------------------------------------------------------------------ the client


def build_http_client(
    options: HttpOptions | None = None, observers: Sequence[ResponseObserver] = (), **kwargs: Any
) -> ObservedAsyncClient:
    """An ``httpx2.AsyncClient`` for an SDK's ``http_client=``: proxies and CA bundles from the environment, the
    deadline, the answer cap, no redirects and ``observers`` (see the module doc). ``kwargs`` go to
    ``AsyncClient`` (e.g. ``headers``); ``transport``/``mounts`` are refused (they would turn the environment's
    proxies off)."""
    return ObservedAsyncClient(options=options or HttpOptions(), observers=tuple(observers), **kwargs)


class ObservedAsyncClient(httpx2.AsyncClient):
    """``AsyncClient`` with a deadline, an answer cap, no redirects and response observers."""

    def __init__(self, *, options: HttpOptions, observers: tuple[ResponseObserver, ...] = (), **kwargs: Any) -> None:
        for name in ("transport", "mounts", "proxy"):
            if kwargs.get(name) is not None:
                raise TypeError(f"{name}= would bypass the environment's proxy settings")
        kwargs["follow_redirects"] = False
        kwargs.setdefault("verify", ssl_context())
        kwargs.setdefault(
            "limits",
            httpx2.Limits(
                max_connections=options.max_connections,
                max_keepalive_connections=min(options.max_keepalive_connections, options.max_connections),
            ),
        )
        if options.deadline_s is not None:
            kwargs.setdefault("timeout", httpx2.Timeout(options.deadline_s))
        super().__init__(**kwargs)
        self.options = options
        self.observers = observers
        self.replica_sets: dict[str, ReplicaSet] = {}  # first base URL -> its replicas (``route_replicas``)

    def route_replicas(self, urls: Sequence[str]) -> ReplicaSet:
        """Spread the requests to ``urls[0]`` over ``urls`` by session (see ``affinity.ReplicaSet``); the same
        set again returns the one registered."""
        primary = urls[0].rstrip("/")
        existing = self.replica_sets.get(primary)
        if existing is None or existing.urls != tuple(url.rstrip("/") for url in urls):
            existing = self.replica_sets[primary] = ReplicaSet(urls)
        return existing

    async def send(self, request: Any, *, stream: bool = False, **kwargs: Any) -> Any:
        """Send ``request`` within the deadline; read its answer up to the cap (unless ``stream``); pass it to
        the observers. Inside a debate the request carries its session key and goes to its session's replica."""
        kwargs["follow_redirects"] = False
        key = session_key() if self.options.session_keys else None
        if key is not None:
            for name in SESSION_HEADERS:
                request.headers[name] = key
        placed = self._place(request, key) if self.replica_sets else None
        try:
            return await self._send_observed(request, stream, kwargs)
        finally:
            if placed is not None:
                placed[0].release(placed[1])

    def _place(self, request: Any, key: str | None) -> tuple[ReplicaSet, int] | None:
        """Move ``request`` to its session's replica when its URL is under a replicated base URL."""
        url = str(request.url)
        for replicas in self.replica_sets.values():
            if replicas.rewrite(url, 0) is None:
                continue
            index = replicas.acquire(key)
            if index:
                request.url = httpx2.URL(replicas.rewrite(url, index))
                request.headers["Host"] = request.url.netloc.decode("ascii")
            return replicas, index
        return None

    async def _send_observed(self, request: Any, stream: bool, kwargs: dict[str, Any]) -> Any:
        deadline = self.options.deadline_s
        response = None
        with anyio.move_on_after(deadline) as scope:
            response = await self._send_bounded(request, stream, kwargs)
        if response is None or scope.cancelled_caught:
            raise httpx2.TimeoutException(
                f"no complete answer from {public_url(str(request.url))} within {deadline:g} s (--timeout)",
                request=request,
            )
        for observer in self.observers:
            observer(request, response)
        return response

    async def _send_bounded(self, request: Any, stream: bool, kwargs: dict[str, Any]) -> Any:
        response = await super().send(request, stream=True, **kwargs)
        try:
            if 300 <= response.status_code < 400:
                raise RedirectError(str(request.url), response.status_code, response.headers.get("location"))
            limit = self.options.max_answer_bytes
            if limit is not None:
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > limit:
                    raise AnswerTooLargeError(str(request.url), limit, int(declared))
                response.stream = CappedStream(response.stream, limit, str(request.url))
            if not stream:
                await response.aread()
                if limit is not None and len(response.content) > limit:  # a compressed answer, decoded
                    raise AnswerTooLargeError(str(request.url), limit, len(response.content))
        except BaseException:
            await response.aclose()
            raise
        return response


class CappedStream(httpx2.AsyncByteStream):
    """The response's byte stream, raising ``AnswerTooLargeError`` once more than ``limit`` bytes came."""

    def __init__(self, inner: Any, limit: int, url: str) -> None:
        self.inner, self.limit, self.url = inner, limit, url

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                raise AnswerTooLargeError(self.url, self.limit, seen)
            yield chunk

    async def aclose(self) -> None:
        """Close the response's own stream."""
        await self.inner.aclose()


@dataclass(frozen=True)
class NetworkOptions:
    """The run's network settings that are not per role (none changes an answer; recorded in config.json)."""

    max_answer_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES  # --max-answer-bytes
    max_connections: int = DEFAULT_MAX_CONNECTIONS  # lowered to the open-file limit (``fd_budget``)
    fast_path: bool = False  # --fast-path: the opt-in private fast path (``fast_path.py``)
    session_keys: bool = True  # session keys in the routers' headers (``affinity.py``)

    def http_options(self, deadline_s: float | None) -> HttpOptions:
        """``HttpOptions`` of a client whose requests have ``deadline_s`` (a role's ``--timeout``)."""
        return HttpOptions(
            deadline_s=deadline_s,
            max_answer_bytes=self.max_answer_bytes,
            max_connections=self.max_connections,
            session_keys=self.session_keys,
        )
