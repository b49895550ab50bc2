"""AutoGen's runtime telemetry when nothing records it, through OpenTelemetry's public interfaces.

AutoGen's ``SingleThreadedAgentRuntime`` opens an OpenTelemetry span for every message it routes (about 45
per model call of a DEBATE team). While no tracer provider is set, OpenTelemetry hands out a proxy whose
tracers make no-op spans, each still made current and undone again. ``IdleTracerProvider`` is a tracer
provider (the public ``TracerProvider``/``Tracer`` interfaces) whose spans are not made at all: the current
span stays what it was, which while no provider is set is OpenTelemetry's invalid span anyway. The team
runtimes of ``debates/group_chat.py`` use it while ``tracer_provider_set()`` is false, and also while a provider
is set without ``content_traced()``: AutoGen's spans carry every routed message whole (the judged texts and the
models' answers), so they are made, as AutoGen makes them, only when content is asked for.

debate-eval's own spans, opt-in: while a tracer provider is set (``trace.set_tracer_provider`` in Python, or
``configure_from_environment()``, which the command line calls, from the usual ``OTEL_*`` variables), a run
makes one span for the run (``run_span``), one per item (``item_span``), one per debate round
(``debate_round``) and one per model call (``model_call``), with the OpenTelemetry GenAI semantic conventions
(``gen_ai.operation.name``, ``gen_ai.request.model``, ``gen_ai.usage.input_tokens``/``output_tokens``) and
``debate_eval.*`` attributes. Judged texts and answers are put on spans only with ``set_trace_content(True)``
(``--trace-content``, or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``), with every configured
secret masked; keys and URLs never. With no provider set nothing is made: a model call pays one
``ContextVar.get``.

Across processes the run's trace goes on by W3C trace context (``traceparent``/``tracestate``, OpenTelemetry's
configured propagators): ``trace_carrier()`` is the current context as such a carrier, ``continued_trace``
makes a carrier's context current (a ``--workers`` process, a Ray task: their spans become children of the
run's span), and ``environment_carrier()`` reads one from the ``TRACEPARENT``/``TRACESTATE`` environment
variables (OpenTelemetry's carrier for a process started by a traced one), which the command line continues.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import propagate, trace

from debate_eval.agents.context_value import bound
from debate_eval.agents.redaction import redact

TRACER_NAME = "debate_eval"
CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"  # the GenAI instrumentations' opt-in
OTEL_EXTRA = "pip install 'debate-eval[otel]'"


def tracer_provider_set() -> bool:
    """Whether an OpenTelemetry tracer provider is set (else OpenTelemetry hands out its proxy, whose spans are
    no-ops until one is set)."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider | trace.NoOpTracerProvider)


_NO_SPAN = contextlib.nullcontext(trace.INVALID_SPAN)  # a span not made: the current span stays what it was


class IdleTracer(trace.Tracer):
    """An OpenTelemetry tracer whose spans are not made at all, not even as no-op spans (see the module doc)."""

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


# --- debate-eval's own spans ---------------------------------------------------------------------------------

_CONTENT: list[bool] = [False]  # set_trace_content(); the environment's CONTENT_ENV also turns it on


def set_trace_content(on: bool) -> None:
    """Put judged texts and answers on spans (``--trace-content``); off by default. Secrets are masked."""
    _CONTENT[0] = bool(on)


def trace_content() -> bool:
    """Whether judged texts and answers go on spans: ``set_trace_content(True)`` or ``CONTENT_ENV=true``."""
    return _CONTENT[0] or os.environ.get(CONTENT_ENV, "").strip().lower() == "true"


def tracer() -> trace.Tracer | None:
    """debate-eval's tracer, or None while no tracer provider is set (then no span is made at all)."""
    if not tracer_provider_set():
        return None
    return trace.get_tracer(TRACER_NAME, _version())


@functools.cache
def _version() -> str | None:
    """The installed debate-eval's version (looked up once: ``importlib.metadata`` is slow)."""
    try:
        from importlib import metadata

        return metadata.version("debate-eval")
    except Exception:  # an uninstalled checkout
        return None


@dataclass
class ItemTrace:
    """The spans of one item in flight: the item's, and the current debate round's (model calls go under
    the round, else under the item)."""

    tracer: trace.Tracer
    span: trace.Span
    content: bool
    round: int | None = None
    round_span: trace.Span | None = None

    def parent(self) -> otel_context.Context:
        """The context a model call's span starts in."""
        return trace.set_span_in_context(self.round_span or self.span)

    def end_round(self) -> None:
        """End the open round's span, if any."""
        if self.round_span is not None:
            self.round_span.end()
            self.round_span = None


_ITEM: ContextVar[ItemTrace | None] = ContextVar("debate_eval_item_trace", default=None)


def _attributes(values: Mapping[str, Any]) -> dict[str, Any]:
    """Span attributes: None dropped, other non-primitive values as JSON."""
    found: dict[str, Any] = {}
    for key, value in values.items():
        if value is None:
            continue
        if isinstance(value, bool | int | float | str):
            found[key] = value
        elif isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
            found[key] = list(value)
        else:
            found[key] = json.dumps(value, default=str)
    return found


_RUN_CONTENT: ContextVar[bool] = ContextVar("debate_eval_trace_content", default=False)


def content_traced() -> bool:
    """Whether judged texts and answers go on spans here: ``trace_content()``, or the current run's (or
    judge's) own ``content`` (``run_span``, ``tracing_content``)."""
    return trace_content() or _RUN_CONTENT.get()


def tracing_content(on: bool) -> contextlib.AbstractContextManager[bool]:
    """While open, judged texts and answers go on spans when ``on`` (a judge's ``trace_content=True``), as a
    run's ``--trace-content`` puts them on its items' spans."""
    return bound(_RUN_CONTENT, bool(on) or _RUN_CONTENT.get())


@contextlib.contextmanager
def run_span(
    *, dataset: str, aspect: str, method: str, items: int, content: bool = False
) -> Iterator[trace.Span | None]:
    """The span of one run (current while it lasts, so the items' spans are its children; ``content``: its
    items' texts on their spans, ``--trace-content``); None, and nothing made, while no tracer provider is
    set."""
    found = tracer()
    if found is None:
        yield None
        return
    attributes = {
        "debate_eval.dataset": dataset,
        "debate_eval.aspect": aspect,
        "debate_eval.method": method,
        "debate_eval.items": items,
    }
    with (
        bound(_RUN_CONTENT, content),
        found.start_as_current_span(f"debate_eval.run {method}", attributes=_attributes(attributes)) as span,
    ):
        yield span


def run_result(span: trace.Span | None, *, finished: int, failed: int) -> None:
    """What the run did, on its span."""
    if span is not None and span.is_recording():
        span.set_attributes({"debate_eval.items.finished": finished, "debate_eval.items.failed": failed})


@contextlib.contextmanager
def item_span(*, item_id: str, aspect: str, method: str, dataset: str | None = None) -> Iterator[ItemTrace | None]:
    """The span of one item (current while it lasts): its debate's rounds and model calls go under it. None,
    and nothing made, while no tracer provider is set."""
    found = tracer()
    if found is None:
        yield None
        return
    attributes = {
        "gen_ai.operation.name": "invoke_agent",
        "debate_eval.item_id": item_id,
        "debate_eval.dataset": dataset,
        "debate_eval.aspect": aspect,
        "debate_eval.method": method,
    }
    with found.start_as_current_span(f"debate_eval.item {method}", attributes=_attributes(attributes)) as span:
        item = ItemTrace(found, span, content_traced())
        try:
            with bound(_ITEM, item):
                yield item
        finally:
            item.end_round()


EVALUATION_EVENT = "gen_ai.evaluation.result"  # the GenAI semantic conventions' evaluation event


def item_result(item: ItemTrace | None, record: Any) -> None:
    """An item's outcome on its span (``record``: the engine's typed record, its fields read as attributes):
    parsed score (or verdict), parse status, rounds, agreement, calls; a failed item's error kind (never its
    message) and an error status.

    And its judgment as the GenAI conventions' ``gen_ai.evaluation.result`` event on the span:
    ``gen_ai.evaluation.name`` (the aspect), ``gen_ai.evaluation.score.value`` (the parsed score),
    ``gen_ai.evaluation.score.label`` (a pairwise verdict, or the score as text), and, with content on only,
    ``gen_ai.evaluation.explanation`` (the deciding answer, secrets masked); a failed item: ``error.type``."""
    if item is None or not item.span.is_recording():
        return
    item.end_round()
    attributes = {
        f"debate_eval.{name}": getattr(record, name, None)
        for name in (
            "score",
            "verdict",
            "parse_status",
            "rounds",
            "agreed",
            "stop_reason",
            "decided_by",
            "llm_calls",
            "cached_calls",
        )
    }
    item.span.set_attributes(_attributes(attributes))
    score, verdict = getattr(record, "score", None), getattr(record, "verdict", None)
    event: dict[str, Any] = {
        "gen_ai.evaluation.name": getattr(record, "aspect", None),
        "gen_ai.evaluation.score.value": float(score) if score is not None else None,
        "gen_ai.evaluation.score.label": verdict
        if verdict is not None
        else (f"{score:g}" if score is not None else None),
        "debate_eval.method": getattr(record, "method", None),
    }
    error = getattr(record, "error", None)
    if error:
        event["error.type"] = kind = str(error).split(":", 1)[0]
        item.span.set_attribute("error.type", kind)
        item.span.set_status(trace.Status(trace.StatusCode.ERROR, kind))
    answer = _deciding_answer(record) if item.content else None
    if answer is not None:
        event["gen_ai.evaluation.explanation"] = redact(answer)
    item.span.add_event(EVALUATION_EVENT, attributes=_attributes(event))


def _deciding_answer(record: Any) -> str | None:
    """The deciding agent's last model answer (the record's ``decided_by``), else the last model answer."""
    answers = [m for m in getattr(record, "transcript", ()) if getattr(m, "usage", None) is not None]
    chosen = [m for m in answers if m.agent == getattr(record, "decided_by", None)] or answers
    return str(chosen[-1].content) if chosen else None


def debate_round(number: int) -> None:
    """The debate in flight is in round ``number`` (0: the opening score; k: the Critic's k-th review and what
    answers it): a new round starts a span under the item's (the previous round's span ends). Does nothing
    when the round is the current one, or while no item is traced."""
    item = _ITEM.get()
    if item is None or item.round == number:
        return
    item.end_round()
    item.round = number
    item.round_span = item.tracer.start_span(
        f"debate_eval.round {number}",
        context=trace.set_span_in_context(item.span),
        attributes={"debate_eval.round": number},
    )


@dataclass
class CallSpan:
    """The span of one model call in flight (``model_call``)."""

    span: trace.Span
    content: bool

    def result(
        self,
        *,
        input_tokens: int,
        output_tokens: int,
        cached: bool,
        finish_reason: str | None,
        answer: Any = None,
    ) -> None:
        """The call's usage, cache hit and finish reason (and, with content on, its answer, secrets masked)."""
        attributes: dict[str, Any] = {
            "gen_ai.usage.input_tokens": int(input_tokens),
            "gen_ai.usage.output_tokens": int(output_tokens),
            "debate_eval.cache_hit": bool(cached),
        }
        if finish_reason:
            attributes["gen_ai.response.finish_reasons"] = [str(finish_reason)]
        if self.content and isinstance(answer, str):
            message = {"role": "assistant", "parts": [{"type": "text", "content": redact(answer)}]}
            attributes["gen_ai.output.messages"] = json.dumps([message])
        self.span.set_attributes(attributes)


@contextlib.contextmanager
def model_call(
    role: str, model: str | None, provider: str | None, messages: Sequence[Any] = ()
) -> Iterator[CallSpan | None]:
    """The span of one model call of the item in flight, under its round (or its item), current while the
    call lasts; None, and nothing made, outside a traced item. ``messages`` (AutoGen ``LLMMessage``s) go on the
    span only with content on, secrets masked. An error ends the span with its type, never its message."""
    item = _ITEM.get()
    if item is None:
        yield None
        return
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": model,
        "gen_ai.provider.name": provider,
        "debate_eval.role": role,
        "debate_eval.round": item.round,
    }
    if item.content:
        attributes["gen_ai.input.messages"] = json.dumps([_message(m) for m in messages])
    span = item.tracer.start_span(
        f"chat {model}" if model else "chat",
        context=item.parent(),
        kind=trace.SpanKind.CLIENT,
        attributes=_attributes(attributes),
        record_exception=False,
    )
    try:
        with trace.use_span(span, end_on_exit=False, record_exception=False, set_status_on_exception=False):
            yield CallSpan(span, item.content)
    except BaseException as error:
        span.set_attribute("error.type", type(error).__qualname__)
        span.set_status(trace.Status(trace.StatusCode.ERROR, type(error).__qualname__))
        raise
    finally:
        span.end()


def _message(message: Any) -> dict[str, Any]:
    """An AutoGen ``LLMMessage`` in the GenAI conventions' message shape, secrets masked."""
    kind = type(message).__name__
    role = {"SystemMessage": "system", "UserMessage": "user", "AssistantMessage": "assistant"}.get(kind, "tool")
    content = getattr(message, "content", "")
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    return {"role": role, "parts": [{"type": "text", "content": redact(text)}]}


# --- the command line: a tracer provider from the OTEL_* environment --------------------------------------

_TRACES_ENV = ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def traces_requested(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the ``OTEL_*`` environment asks for traces: an exporter other than ``none``, or an OTLP endpoint,
    and the SDK not disabled (``OTEL_SDK_DISABLED=true``)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = [e.strip().lower() for e in env.get("OTEL_TRACES_EXPORTER", "").split(",") if e.strip()]
    if exporters:
        return any(e != "none" for e in exporters)
    return any(env.get(name, "").strip() for name in _TRACES_ENV[1:])


def configure_from_environment(environ: Mapping[str, str] | None = None) -> bool:
    """Set a tracer provider from the ``OTEL_*`` environment when it asks for traces and none is set yet:
    the OpenTelemetry SDK's ``TracerProvider`` (resource from ``OTEL_SERVICE_NAME``/``OTEL_RESOURCE_ATTRIBUTES``)
    with a batch processor per exporter of ``OTEL_TRACES_EXPORTER`` (default ``otlp``: the OTLP/HTTP exporter,
    which reads its own ``OTEL_EXPORTER_OTLP_*`` settings; ``console``: JSON on stdout). Returns whether
    spans are now recorded. Without the SDK (the ``otel`` extra) a note on stderr says what to install and
    the command goes on untraced."""
    env = os.environ if environ is None else environ
    if tracer_provider_set():
        return True
    if not traces_requested(env):
        return False
    names = [e.strip().lower() for e in env.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if e.strip()] or ["otlp"]
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter
    except ImportError:
        print(
            f"debate-eval: note: the OTEL_* environment asks for traces but the OpenTelemetry SDK is not "
            f"installed ({OTEL_EXTRA}); running without traces",
            file=sys.stderr,
        )
        return False
    exporters: list[SpanExporter] = []
    for name in names:
        if name == "none":
            continue
        if name == "console":
            exporters.append(ConsoleSpanExporter())
        elif name == "otlp":
            protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or ""
            try:
                if protocol.strip() == "grpc":
                    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
                else:
                    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            except ImportError:
                package = "opentelemetry-exporter-otlp-proto-grpc" if protocol.strip() == "grpc" else OTEL_EXTRA
                print(f"debate-eval: note: the OTLP exporter is not installed ({package}); no traces", file=sys.stderr)
                return False
            exporters.append(OTLPSpanExporter())
        else:
            print(
                f"debate-eval: note: OTEL_TRACES_EXPORTER={name} is not supported (otlp, console, none)",
                file=sys.stderr,
            )
    if not exporters:
        return False
    provider = TracerProvider(resource=Resource.create())
    for exporter in exporters:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)  # flushed and shut down at exit (the SDK's atexit hook)
    return tracer_provider_set()


# --- the run's trace in other processes: W3C trace context -------------------------------------------------

ENVIRONMENT_CARRIER = ("TRACEPARENT", "TRACESTATE", "BAGGAGE")  # OpenTelemetry's environment-variable carrier
FLUSH_TIMEOUT_MS = 10_000  # the most a worker waits for its spans to be exported before it ends


def trace_carrier() -> dict[str, str]:
    """The current trace context as a W3C carrier (``{"traceparent": ..., "tracestate": ...}``, by the
    configured propagators); empty while no tracer provider is set or no span is current (the run is not
    traced: nothing to continue)."""
    if not tracer_provider_set() or not trace.get_current_span().get_span_context().is_valid:
        return {}
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


def environment_carrier(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The trace context a parent process left in ``TRACEPARENT``/``TRACESTATE``/``BAGGAGE`` (OpenTelemetry's
    environment carrier), as the propagators' carrier; empty when there is none."""
    env = os.environ if environ is None else environ
    return {name.lower(): env[name] for name in ENVIRONMENT_CARRIER if env.get(name, "").strip()}


@contextlib.contextmanager
def continued_trace(carrier: Mapping[str, str] | None) -> Iterator[None]:
    """Make the trace context of ``carrier`` (``trace_carrier()`` of another process) current while the block
    runs, so the spans started in it are children of the span it names; nothing when it is empty."""
    if not carrier:
        yield
        return
    token = otel_context.attach(propagate.extract(dict(carrier)))
    try:
        yield
    finally:
        otel_context.detach(token)


@contextlib.contextmanager
def worker_trace(carrier: Mapping[str, str] | None) -> Iterator[None]:
    """A worker process or Ray task of a traced run (``carrier``: the run's ``trace_carrier()``; empty: the
    run is not traced, and nothing is done): a tracer provider from the ``OTEL_*`` environment as on the
    command line (``configure_from_environment``; a provider set already is kept), the run's trace context
    current while the block runs, and the spans exported before it ends (a Ray worker process outlives its
    task, and a batch processor would otherwise hold them)."""
    if not carrier:
        yield
        return
    configure_from_environment()
    try:
        with continued_trace(carrier):
            yield
    finally:
        flush = getattr(trace.get_tracer_provider(), "force_flush", None)
        if callable(flush):
            with contextlib.suppress(Exception):
                flush(FLUSH_TIMEOUT_MS)
