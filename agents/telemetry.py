"""AutoGen's runtime telemetry when nothing records it, through OpenTelemetry's public interfaces.

AutoGen's ``SingleThreadedAgentRuntime`` opens an OpenTelemetry span for every message it routes (about 45
per model call of a DEBATE team). While no tracer provider is set, OpenTelemetry hands out a proxy whose
tracers make no-op spans, each still made current and undone again. ``IdleTracerProvider`` is a tracer
provider (the public ``TracerProvider``/``Tracer`` interfaces) whose spans are not made at all: the current
span stays what it was, which while no provider is set is OpenTelemetry's invalid span anyway. The team
runtimes of ``debates/group_chat.py`` use it while ``tracer_provider_set()`` is false; with a provider set,
AutoGen's spans are made as AutoGen makes them.
"""

from __future__ import annotations

import contextlib
from typing import Any

from opentelemetry import trace


def tracer_provider_set() -> bool:
    """Whether an OpenTelemetry tracer provider is set (else OpenTelemetry hands out its proxy, whose spans are
    no-ops until one is set)."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider | trace.NoOpTracerProvider)


class _NoSpan(contextlib.AbstractContextManager[trace.Span]):
    """The context of a span that is not made: the current span stays what it was."""

    def __enter__(self) -> trace.Span:
        return trace.INVALID_SPAN

    def __exit__(self, *exc: object) -> None:
        return None


_NO_SPAN = _NoSpan()


class IdleTracer(trace.Tracer):
    """An OpenTelemetry tracer (the public ``Tracer`` interface) whose spans are not made at all, for runtimes
    whose spans would go nowhere: no no-op span is made current and undone for every routed message, as
    OpenTelemetry's ``NoOpTracer`` does (nothing can read it while no provider is set)."""

    def start_span(self, name: str, *args: Any, **kwargs: Any) -> trace.Span:
        """No span."""
        return trace.INVALID_SPAN

    def start_as_current_span(self, name: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """No span, and the current one unchanged."""
        return _NO_SPAN


class IdleTracerProvider(trace.TracerProvider):
    """Hands out ``IdleTracer``s (the public ``TracerProvider`` interface)."""

    def get_tracer(self, instrumenting_module_name: str, *args: Any, **kwargs: Any) -> trace.Tracer:
        """The one ``IdleTracer``."""
        return _IDLE_TRACER


_IDLE_TRACER = IdleTracer()
