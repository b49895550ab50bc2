"""``--fast-path``: an opt-in, private fast path for the event loop at high concurrency.

It patches private internals of AutoGen and the OpenAI SDK, so it is off by default, guarded and pinned:
``fast_path_problem()`` checks the installed versions against the ones it was tested with (``TESTED``) and
that every internal it touches is there; otherwise the run prints one line and takes the default path
(public APIs only). Its gain is measured beside the default path in benchmarks/throughput.md
(scripts/bench_throughput.py). It changes nothing that reaches the endpoint (tests/agents/models/
test_fast_path.py): the same JSON body, the same HTTP client (proxies, deadline, answer cap).

1. The SDK request body. For every ``chat.completions.create`` the SDK walks the whole request body (every
message of the growing history) through ``async_maybe_transform`` against the ``CompletionCreateParams``
TypedDicts, to apply field aliases and encode files and dates. A chat body has none of those: AutoGen
already builds plain JSON dicts. At concurrency 32 that walk was the largest single cost of the event loop
(profile in benchmarks/throughput.md).

``use_direct_body(client)`` gives AutoGen's ``OpenAIChatCompletionClient`` an SDK client whose
``chat.completions.create`` posts the body as it is, with the SDK's own ``post`` (same URL, headers, auth,
timeout, response parsing into ``ChatCompletion``, errors). Everything else (``beta``, ``files``, ``close``)
is the SDK client unchanged. Streaming requests keep the SDK's path. If AutoGen's client does not hold an
``openai.AsyncOpenAI`` where expected, nothing is changed.

2. AutoGen's runtime telemetry when nothing records it. ``SingleThreadedAgentRuntime`` opens an
OpenTelemetry span around every message it routes and, for each delivery, serialises the whole message to
JSON as a span attribute, also when no tracer provider is configured (the spans are then no-ops and the
JSON is thrown away); it serialises every message once more for its ``autogen_core.events`` log, also when
that logger is off. ``quiet_idle_telemetry()`` makes the spans and attributes skip that work while no
OpenTelemetry tracer provider is set and ``AUTOGEN_DISABLE_RUNTIME_TRACING`` is not ``false`` (set a provider,
``opentelemetry.trace.set_tracer_provider``, and they are made as before), and the event log's JSON only
when that logger is enabled for INFO.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from importlib import metadata
from types import SimpleNamespace
from typing import Any

import openai
from autogen_core import SingleThreadedAgentRuntime
from autogen_core._telemetry._tracing import TraceHelper
from openai._base_client import make_request_options
from openai._types import NotGiven, Omit
from openai.types.chat import ChatCompletion
from opentelemetry import trace

_OPTION_NAMES = ("extra_headers", "extra_query", "extra_body", "timeout")
TESTED = {"autogen-core": "0.7.5", "openai": "3.54."}  # distribution -> the version (or prefix) tested


def fast_path_problem() -> str | None:
    """Why the fast path cannot be used with what is installed (None: it can)."""
    for name, tested in TESTED.items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            return f"{name} is not installed"
        if not (installed == tested or (tested.endswith(".") and installed.startswith(tested))):
            return f"it was tested with {name} {tested}{'x' if tested.endswith('.') else ''}, not {installed}"
    needed = [
        (TraceHelper, "trace_block"),
        (SingleThreadedAgentRuntime, "_create_otel_attributes"),
        (SingleThreadedAgentRuntime, "_try_serialize"),
        (openai.AsyncOpenAI, "post"),
    ]
    missing = [f"{owner.__name__}.{name}" for owner, name in needed if not callable(getattr(owner, name, None))]
    return f"internals it patches are missing: {', '.join(missing)}" if missing else None


class DirectCompletions:
    """``chat.completions`` with ``create`` posting the body without the TypedDict transform."""

    def __init__(self, client: openai.AsyncOpenAI) -> None:
        self._client = client

    async def create(self, **params: Any) -> Any:
        """Post a non-streaming chat completion; a streaming one goes through the SDK as usual."""
        if params.get("stream") is True:
            return await self._client.chat.completions.create(**params)
        options = {name: params.pop(name) for name in _OPTION_NAMES if name in params}
        body = {key: value for key, value in params.items() if not isinstance(value, NotGiven | Omit)}
        return await self._client.post(
            "/chat/completions",
            body=body,
            options=make_request_options(**options, security={"bearer_auth": True}),
            cast_to=ChatCompletion,
        )


class DirectBodyClient:
    """An ``openai.AsyncOpenAI`` whose ``chat.completions.create`` skips the body transform."""

    def __init__(self, client: openai.AsyncOpenAI) -> None:
        self._inner = client
        self.chat = SimpleNamespace(completions=DirectCompletions(client))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def use_direct_body(model_client: Any) -> Any:
    """Switch AutoGen's ``OpenAIChatCompletionClient`` to the direct body path (returns the client); a client
    of another kind is returned unchanged."""
    inner = getattr(model_client, "_client", None)
    if isinstance(inner, openai.AsyncOpenAI):
        model_client._client = DirectBodyClient(inner)
    return model_client


def telemetry_idle(tracer_provider: Any = None) -> bool:
    """True when AutoGen's runtime spans go nowhere: tracing disabled by AutoGen's own variable (read when
    ``quiet_idle_telemetry`` is called), or no tracer provider given and none set globally (OpenTelemetry's
    proxy then hands out no-op tracers)."""
    if _DISABLED is not None:
        return _DISABLED
    if tracer_provider is not None and not isinstance(tracer_provider, trace.ProxyTracerProvider):
        return isinstance(tracer_provider, trace.NoOpTracerProvider)
    provider = getattr(trace, "_TRACER_PROVIDER", None)  # the global provider once set (get_tracer_provider()
    return provider is None or isinstance(provider, trace.NoOpTracerProvider)  # reads os.environ: 7 us a span)


_DISABLED: bool | None = None  # AUTOGEN_DISABLE_RUNTIME_TRACING: "true" -> True, "false" -> False, else None
_original_trace_block = TraceHelper.trace_block
_original_otel_attributes = SingleThreadedAgentRuntime._create_otel_attributes
_original_try_serialize = SingleThreadedAgentRuntime._try_serialize
_EVENTS = logging.getLogger("autogen_core.events")


@contextlib.contextmanager
def _trace_block(self: TraceHelper, *args: Any, **kwargs: Any) -> Iterator[Any]:
    if telemetry_idle(self.tracer_provider):
        yield trace.INVALID_SPAN
        return
    with _original_trace_block(self, *args, **kwargs) as span:
        yield span


async def _otel_attributes(self: SingleThreadedAgentRuntime, *args: Any, **kwargs: Any) -> Any:
    if telemetry_idle(self._tracer_helper.tracer_provider):
        return {}
    return await _original_otel_attributes(self, *args, **kwargs)


def _try_serialize(self: SingleThreadedAgentRuntime, message: Any) -> str:
    if not _EVENTS.isEnabledFor(logging.INFO) and telemetry_idle(self._tracer_helper.tracer_provider):
        return ""  # read by nothing: the event log is off and the span attributes are not made
    return _original_try_serialize(self, message)


def restore_telemetry() -> None:
    """Undo ``quiet_idle_telemetry`` (AutoGen's own methods again)."""
    TraceHelper.trace_block = _original_trace_block  # type: ignore[method-assign]
    SingleThreadedAgentRuntime._create_otel_attributes = _original_otel_attributes  # type: ignore[method-assign]
    SingleThreadedAgentRuntime._try_serialize = _original_try_serialize  # type: ignore[method-assign]


def quiet_idle_telemetry() -> None:
    """Skip AutoGen's per-message span and message serialisation while nothing records them (idempotent)."""
    global _DISABLED
    _DISABLED = {"true": True, "false": False}.get(os.environ.get("AUTOGEN_DISABLE_RUNTIME_TRACING", ""))
    if _DISABLED is None and os.environ.get("OTEL_PYTHON_TRACER_PROVIDER"):  # a provider configured by name
        _DISABLED = False
    TraceHelper.trace_block = _trace_block  # type: ignore[assignment, method-assign]
    SingleThreadedAgentRuntime._create_otel_attributes = _otel_attributes  # type: ignore[method-assign]
    SingleThreadedAgentRuntime._try_serialize = _try_serialize  # type: ignore[method-assign]
