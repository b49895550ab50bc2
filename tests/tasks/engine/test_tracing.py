"""OpenTelemetry spans of a run (agents/telemetry.py, opt-in): with a tracer provider set, one span for the
run, each item, each debate round and each model call, with the GenAI conventions and ``debate_eval.*``
attributes; no judged text, answer or secret unless ``trace_content``; none at all without a provider."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace
from support.integrations import integration_library

import debate_eval
from debate_eval.agents.telemetry import TRACER_NAME
from debate_eval.tasks.data.datasets import load_items, select_items

integration_library("opentelemetry.sdk", "otel")
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

SCRIPTED = {"provider": "scripted", "no_progress": True}
SECRET = "sk-test-DoNotLeak-7f3a9c41"


EXPORTER = InMemorySpanExporter()
PROVIDER = TracerProvider()  # one for the module: tracers made from it may be kept by the libraries
PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    """An SDK tracer provider with the in-memory exporter, as the global provider for the test (what
    ``trace.set_tracer_provider`` does, undone afterwards)."""
    EXPORTER.clear()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: PROVIDER)
    yield EXPORTER
    EXPORTER.clear()


def ours(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    """debate-eval's spans (AutoGen's runtime makes its own too while a provider is set)."""
    return [s for s in exporter.get_finished_spans() if s.instrumentation_scope.name == TRACER_NAME]


def texts(span: ReadableSpan) -> list[str]:
    """Every string an attribute of ``span`` holds."""
    found: list[str] = [span.name]
    for value in (span.attributes or {}).values():
        found += [v for v in value if isinstance(v, str)] if isinstance(value, tuple) else [str(value)]
    return found


def test_the_span_tree_of_a_two_item_debate_run(isolated_env: Path, spans: InMemorySpanExporter) -> None:
    os.environ["OPENAI_API_KEY"] = SECRET  # isolated_env's monkeypatch removes every OPENAI_ variable after
    run = debate_eval.evaluate("summeval", aspect="coherence", method="debate", limit=2, max_rounds=2, **SCRIPTED)
    found = ours(spans)
    by_id = {s.context.span_id: s for s in found}
    (root,) = [s for s in found if s.name.startswith("debate_eval.run")]
    assert root.parent is None and root.attributes is not None
    assert dict(root.attributes) == {
        "debate_eval.dataset": "summeval",
        "debate_eval.aspect": "coherence",
        "debate_eval.method": "debate",
        "debate_eval.items": 2,
        "debate_eval.items.finished": 2,
        "debate_eval.items.failed": 0,
    }
    items = [s for s in found if s.name == "debate_eval.item debate"]
    assert len(items) == 2 and all(s.parent is not None and s.parent.span_id == root.context.span_id for s in items)
    records = {r.item_id: r for r in run.records}
    for item in items:
        attributes = dict(item.attributes or {})
        record = records[attributes["debate_eval.item_id"]]
        assert attributes["debate_eval.score"] == record.score and record.score is not None
        assert attributes["debate_eval.parse_status"] == "parsed" and attributes["debate_eval.rounds"] == 2
        assert attributes["debate_eval.method"] == "debate" and attributes["debate_eval.aspect"] == "coherence"
        assert attributes["debate_eval.llm_calls"] == 5 and attributes["gen_ai.operation.name"] == "invoke_agent"
        rounds = sorted(
            (s for s in found if s.parent and s.parent.span_id == item.context.span_id),
            key=lambda s: s.start_time or 0,
        )
        assert [s.name for s in rounds] == ["debate_eval.round 0", "debate_eval.round 1", "debate_eval.round 2"]
        calls = []
        for number, round_span in enumerate(rounds):
            assert (round_span.attributes or {})["debate_eval.round"] == number
            children = [s for s in found if s.parent and s.parent.span_id == round_span.context.span_id]
            calls += sorted(children, key=lambda s: s.start_time or 0)
        # the scripted Critic never agrees: the opening score, then review and rescore in each round
        assert [(c.attributes or {})["debate_eval.role"] for c in calls] == ["scorer", *["critic", "scorer"] * 2]
        assert [(c.attributes or {})["debate_eval.round"] for c in calls] == [0, 1, 1, 2, 2]
        for call in calls:
            attributes = dict(call.attributes or {})
            assert call.name == "chat scripted" and call.kind is trace.SpanKind.CLIENT
            assert attributes["gen_ai.operation.name"] == "chat" and attributes["gen_ai.request.model"] == "scripted"
            assert attributes["debate_eval.cache_hit"] is False
        # each call's usage is its transcript entry's
        usage = [(m.usage["prompt_tokens"], m.usage["completion_tokens"]) for m in record.transcript if m.usage]
        assert [
            ((c.attributes or {})["gen_ai.usage.input_tokens"], (c.attributes or {})["gen_ai.usage.output_tokens"])
            for c in calls
        ] == usage
    assert all(s.parent is None or s.parent.span_id in by_id for s in found)  # one tree
    # no judged text, no answer, no secret on any span
    judged = [v for item in select_items(load_items("summeval"), limit=2) for v in item.inputs.values()]
    answers = [m.content for r in run.records for m in r.transcript if m.content]
    assert judged and answers
    for span in found:
        for text in texts(span):
            assert SECRET not in text
            assert not any(t[:60] in text for t in judged + answers), (span.name, text[:80])


def test_trace_content_puts_texts_on_the_calls_with_secrets_masked(
    isolated_env: Path, spans: InMemorySpanExporter
) -> None:
    os.environ["OPENAI_API_KEY"] = SECRET
    rows = [{"source": "The council met on Monday.", "output": f"The council met; key {SECRET} leaked.", "human": 3}]
    run = debate_eval.evaluate(
        rows,
        aspect="coherence",
        criteria="Is the summary coherent?",
        scale="1-5",
        max_rounds=1,
        trace_content=True,
        out="r",
        **SCRIPTED,
    )
    calls = [s for s in ours(spans) if s.name == "chat scripted"]
    assert len(calls) == 3
    first = json.loads(str((calls[0].attributes or {})["gen_ai.input.messages"]))
    prompt = "\n".join(part["content"] for message in first for part in message["parts"])
    assert "The council met; key [redacted] leaked." in prompt
    answers = [json.loads(str((c.attributes or {})["gen_ai.output.messages"]))[0]["parts"][0]["content"] for c in calls]
    assert answers == [m.content for m in run.records[0].transcript if m.usage]  # the models' answers
    assert not any(SECRET in text for span in ours(spans) for text in texts(span))


def test_no_provider_no_span(isolated_env: Path) -> None:
    exporter = InMemorySpanExporter()
    TracerProvider().add_span_processor(SimpleSpanProcessor(exporter))  # made, but not set
    debate_eval.evaluate("summeval", aspect="coherence", limit=1, max_rounds=1, **SCRIPTED)
    assert exporter.get_finished_spans() == ()


def test_the_command_line_reads_the_otel_environment(isolated_env: Path) -> None:
    """``OTEL_TRACES_EXPORTER=console``: the SDK's console exporter prints each span as JSON on stdout."""
    env = {**os.environ, "OTEL_TRACES_EXPORTER": "console", "OTEL_SERVICE_NAME": "judge-ci"}
    command = [sys.executable, "-m", "debate_eval.tasks.cli.main", "run", "--dataset", "summeval"]
    command += ["--aspect", "coherence", "--limit", "1", "--max-rounds", "1", "--provider", "scripted"]
    command += ["--no-progress", "--out", "r"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    found: list[dict[str, Any]] = []
    decoder, text, at = json.JSONDecoder(), done.stdout, 0
    while (at := text.find("{", at)) >= 0:
        try:
            value, end = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            at += 1
            continue
        if isinstance(value, dict) and "context" in value:
            found.append(value)
        at = end
    names = sorted(span["name"] for span in found if span["name"].startswith(("debate_eval.", "chat ")))
    rounds = ["debate_eval.round 0", "debate_eval.round 1"]
    assert names == ["chat scripted"] * 3 + ["debate_eval.item debate", *rounds, "debate_eval.run debate"]
    assert {span["resource"]["attributes"]["service.name"] for span in found} == {"judge-ci"}


def test_a_judges_spans_are_children_of_the_callers_span(isolated_env: Path, spans: InMemorySpanExporter) -> None:
    """``debate_eval.Judge`` runs its calls on a loop of its own thread: the caller's current span (an inspect
    sample's, a request's) still parents each judgment's item span, from the blocking and the async form (the
    call is handed to that loop with the caller's context variables, OpenTelemetry's context among them)."""
    import asyncio

    caller = trace.get_tracer("host program")
    judge_options = {"criteria": "Is the summary coherent?", "provider": "scripted", "max_rounds": 1}
    with debate_eval.Judge(**judge_options) as judge:
        with caller.start_as_current_span("sample 1") as sample:
            judge.score("The council approved the budget.", source="The council met and approved the budget.")

        async def from_a_loop() -> trace.Span:
            with caller.start_as_current_span("sample 2") as span:
                await judge.score_async("The council met.", source="The council met on Monday.")
                return span

        second = asyncio.run(from_a_loop())
    items = sorted((s for s in ours(spans) if s.name == "debate_eval.item debate"), key=lambda s: s.start_time or 0)
    assert [s.parent.span_id if s.parent else None for s in items] == [
        sample.get_span_context().span_id,
        second.get_span_context().span_id,
    ]
    assert all(s.context.trace_id == s.parent.trace_id for s in items if s.parent)
