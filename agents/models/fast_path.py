"""``--fast-path``: an opt-in, private fast path for AutoGen's runtime at high concurrency.

It patches private methods of AutoGen's ``SingleThreadedAgentRuntime`` and ``TraceHelper``, so it is off by
default, guarded and pinned: ``fast_path_problem()`` checks the installed autogen-core against the version it
was tested with (``TESTED``) and that every method it replaces is there; otherwise the run prints one line and
takes the default path (public APIs only). The patches are undone when the run's ``ClientPool`` closes. Its
gain is measured beside the default path in benchmarks/throughput.md (scripts/bench_throughput.py). It
changes nothing that reaches the endpoint or a configured tracer (tests/agents/models/test_fast_path.py).

AutoGen's runtime telemetry when nothing records it. ``SingleThreadedAgentRuntime`` opens an
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
from typing import Any

from autogen_core import SingleThreadedAgentRuntime
from opentelemetry import trace

from debate_eval.agents.models import autogen_private
from debate_eval.agents.models.autogen_private import TraceHelper  # private: opt-in only, version-checked
from debate_eval.agents.telemetry import IdleTracerProvider

TESTED = {"autogen-core": autogen_private.TESTED["autogen-core"]}  # distribution -> the version it was tested with


def fast_path_problem() -> str | None:
    """Why the fast path cannot be used with what is installed (None: it can)."""
    for name, tested in TESTED.items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            return f"{name} is not installed"
        if installed != tested:
            return f"it was tested with {name} {tested}, not {installed}"
    needed = [
        (TraceHelper, "trace_block"),
        (SingleThreadedAgentRuntime, "_create_otel_attributes"),
        (SingleThreadedAgentRuntime, "_try_serialize"),
    ]
    missing = [f"{owner.__name__}.{name}" for owner, name in needed if not callable(getattr(owner, name, None))]
    return f"internals it patches are missing: {', '.join(missing)}" if missing else None


def telemetry_idle(tracer_provider: Any = None) -> bool:
    """True when AutoGen's runtime spans go nowhere: tracing disabled by AutoGen's own variable (read when
    ``quiet_idle_telemetry`` is called), or no tracer provider given and none set globally (OpenTelemetry's
    proxy then hands out no-op tracers)."""
    if _DISABLED is not None:
        return _DISABLED
    if isinstance(tracer_provider, IdleTracerProvider):  # a team runtime's while no provider is set
        return True
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
