"""A tracer provider whose spans are not made (agents/telemetry.py), for runtimes whose spans go nowhere."""

from __future__ import annotations

from typing import Any

import pytest
from opentelemetry import trace

from debate_eval.agents import telemetry
from debate_eval.agents.telemetry import IdleTracerProvider, tracer_provider_set


def test_no_span_is_made_and_the_current_one_stays() -> None:
    tracer = IdleTracerProvider().get_tracer("autogen core")
    outer = trace.get_current_span()
    with tracer.start_as_current_span("publish", attributes={"message": "x"}) as span:
        assert span is trace.INVALID_SPAN and not span.is_recording()
        assert trace.get_current_span() is outer
    assert tracer.start_span("send") is trace.INVALID_SPAN


def test_an_error_inside_goes_through() -> None:
    tracer = IdleTracerProvider().get_tracer("autogen core")
    with pytest.raises(ValueError, match="boom"), tracer.start_as_current_span("process"):
        raise ValueError("boom")


def test_a_provider_is_set_only_when_someone_set_one(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not tracer_provider_set()  # the test process sets none: OpenTelemetry's proxy

    class Provider(trace.TracerProvider):
        def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
            return trace.NoOpTracer()

    monkeypatch.setattr(telemetry.trace, "get_tracer_provider", Provider)
    assert tracer_provider_set()
    monkeypatch.setattr(telemetry.trace, "get_tracer_provider", trace.NoOpTracerProvider)
    assert not tracer_provider_set()


@pytest.mark.parametrize(
    ("environ", "wanted"),
    [
        ({}, False),
        ({"OTEL_SERVICE_NAME": "judge"}, False),
        ({"OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
        ({"OTEL_TRACES_EXPORTER": "none,otlp"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, True),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"}, True),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"}, False),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_traces_are_requested_by_the_otel_environment(environ: dict[str, str], wanted: bool) -> None:
    assert telemetry.traces_requested(environ) is wanted


def test_no_provider_is_set_when_the_environment_asks_for_none() -> None:
    assert telemetry.configure_from_environment({"OTEL_TRACES_EXPORTER": "none"}) is False
    assert not tracer_provider_set()


def test_without_a_traced_item_a_model_call_makes_no_span() -> None:
    with telemetry.model_call("scorer", "m", "p", ()) as span:
        assert span is None
    telemetry.debate_round(1)  # no item in flight: nothing to do
    with telemetry.item_span(item_id="a", aspect="x", method="debate") as item:
        assert item is None  # no provider set


def test_trace_content_is_off_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(telemetry.CONTENT_ENV, raising=False)
    assert not telemetry.trace_content()
    monkeypatch.setenv(telemetry.CONTENT_ENV, "true")
    assert telemetry.trace_content()
    monkeypatch.delenv(telemetry.CONTENT_ENV)
    telemetry.set_trace_content(True)
    try:
        assert telemetry.trace_content()
    finally:
        telemetry.set_trace_content(False)


def evaluation_events(record: Any, *, content: bool, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The ``gen_ai.evaluation.result`` events on the item span of ``record`` (an SDK provider and the
    in-memory exporter set for the call)."""
    from support.integrations import integration_library

    integration_library("opentelemetry.sdk", "otel")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    telemetry.set_trace_content(content)
    try:
        with telemetry.item_span(item_id=str(record.item_id), aspect=record.aspect, method=record.method) as item:
            telemetry.item_result(item, record)
    finally:
        telemetry.set_trace_content(False)
    (span,) = exporter.get_finished_spans()
    return [event for event in span.events if event.name == "gen_ai.evaluation.result"]


def test_each_judgment_is_a_gen_ai_evaluation_result_event(monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_eval.agents.redaction import register_secrets
    from debate_eval.tasks.engine.record import Message, Record

    secret = "sk-test-EvalEvent-93b1"
    register_secrets([secret])
    transcript = (
        Message(index=0, agent="Commander", role="user", content="Judge this."),
        Message(index=1, agent="Scorer", role="assistant", content="Clear. Score: 4", usage={"prompt_tokens": 9}),
        Message(index=2, agent="Critic", role="assistant", content=f"NO_ISSUES {secret}", usage={"prompt_tokens": 9}),
    )
    scored = Record(item_id="a", dataset="d", aspect="coherence", score=4.0, decided_by="Scorer", transcript=transcript)
    (event,) = evaluation_events(scored, content=False, monkeypatch=monkeypatch)
    assert dict(event.attributes) == {
        "gen_ai.evaluation.name": "coherence",
        "gen_ai.evaluation.score.value": 4.0,
        "gen_ai.evaluation.score.label": "4",
        "debate_eval.method": "debate",
    }  # no explanation without trace content
    (event,) = evaluation_events(scored, content=True, monkeypatch=monkeypatch)
    assert event.attributes["gen_ai.evaluation.explanation"] == "Clear. Score: 4"  # the deciding answer
    critic = Record(item_id="b", dataset="d", aspect="coherence", score=2.5, decided_by="Critic", transcript=transcript)
    (event,) = evaluation_events(critic, content=True, monkeypatch=monkeypatch)
    assert secret not in event.attributes["gen_ai.evaluation.explanation"]
    assert event.attributes["gen_ai.evaluation.explanation"].startswith("NO_ISSUES ")
    pair = Record(item_id="c", dataset="d", aspect="overall", task_type="pairwise", verdict="first")
    (event,) = evaluation_events(pair, content=False, monkeypatch=monkeypatch)
    assert event.attributes["gen_ai.evaluation.score.label"] == "first"
    assert "gen_ai.evaluation.score.value" not in event.attributes
    failed = Record(item_id="e", dataset="d", aspect="coherence", error="APITimeoutError: the endpoint did not answer")
    (event,) = evaluation_events(failed, content=True, monkeypatch=monkeypatch)
    assert dict(event.attributes) == {
        "gen_ai.evaluation.name": "coherence",
        "debate_eval.method": "debate",
        "error.type": "APITimeoutError",
    }
