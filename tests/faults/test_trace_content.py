"""Judged texts and answers on spans only when asked: with a tracer provider set and no ``trace_content``, no
span of any library (AutoGen's runtime spans included) holds them; ``Judge(trace_content=True)`` puts them on
the model calls' spans as ``evaluate(..., trace_content=True)`` does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry import trace
from support.integrations import integration_library

import debate_eval

integration_library("opentelemetry.sdk", "otel")
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

EXPORTER = InMemorySpanExporter()
PROVIDER = TracerProvider()
PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
OUTPUT = "The council met on Monday and voted to close the bridge, residents said."
SOURCE = "Residents said the council voted on Monday to close the old bridge for repairs."
JUDGE = {"method": "debate", "criteria": "Is the summary faithful?", "provider": "scripted", "max_rounds": 1}


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """The in-memory exporter's provider as the global one for the test (undone afterwards)."""
    EXPORTER.clear()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: PROVIDER)
    yield EXPORTER
    EXPORTER.clear()


def strings(span: ReadableSpan) -> list[str]:
    """Every string an attribute of ``span`` holds."""
    found: list[str] = []
    for value in (span.attributes or {}).values():
        found += [str(v) for v in value] if isinstance(value, tuple) else [str(value)]
    return found


def test_no_span_holds_the_judged_texts_unless_asked(isolated_env: Path, spans: InMemorySpanExporter) -> None:
    with debate_eval.Judge(**JUDGE) as judge:
        judgment = judge.score(OUTPUT, source=SOURCE)
    answers = [m.content for m in judgment.messages if m.content]
    assert answers and spans.get_finished_spans()  # traced: debate-eval's spans are made
    for span in spans.get_finished_spans():
        for text in strings(span):
            assert OUTPUT[:40] not in text and SOURCE[:40] not in text, (span.name, text[:80])
            assert not any(answer[:40] in text for answer in answers), (span.name, text[:80])


def test_judge_trace_content_is_honoured(isolated_env: Path, spans: InMemorySpanExporter) -> None:
    with debate_eval.Judge(**JUDGE, trace_content=True) as judge:
        judgment = judge.score(OUTPUT, source=SOURCE)
    calls = [s for s in spans.get_finished_spans() if s.name == "chat scripted"]
    assert len(calls) == 3  # the opening score, the Critic's review, the rescore
    first = json.loads(str((calls[0].attributes or {})["gen_ai.input.messages"]))
    assert any(OUTPUT in part["content"] for message in first for part in message["parts"])
    answers = [json.loads(str((c.attributes or {})["gen_ai.output.messages"]))[0]["parts"][0]["content"] for c in calls]
    assert answers == [m.content for m in judgment.messages if m.usage]
