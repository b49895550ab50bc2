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
