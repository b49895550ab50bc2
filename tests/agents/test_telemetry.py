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
