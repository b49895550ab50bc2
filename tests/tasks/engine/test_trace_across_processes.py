"""One trace across processes (agents/telemetry.py, engine/backends/workers.py): a traced ``run --workers 2`` passes its
W3C trace context to each worker process, whose spans (its shard's run span, items, model calls) are children
of the parent's run span; a ``debate-eval`` started with ``TRACEPARENT`` in its environment continues that
trace. Every process exports by the standard ``OTEL_EXPORTER_OTLP_ENDPOINT`` to an OTLP receiver on
127.0.0.1; the test checks the ids of what it received."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry import trace
from support.integrations import integration_library

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.telemetry import TRACER_NAME, continued_trace, environment_carrier, trace_carrier

integration_library("opentelemetry.exporter.otlp.proto.http", "otel")
from support.otlp_receiver import OtlpReceiver, ReceivedSpan  # noqa: E402

ITEMS = 6
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"  # the caller's trace (W3C's example ids)
CALLER_SPAN = "00f067aa0ba902b7"


def test_environment_carrier_reads_traceparent_and_the_context_goes_round(monkeypatch: pytest.MonkeyPatch) -> None:
    from opentelemetry.sdk.trace import TracerProvider

    environ = {"TRACEPARENT": f"00-{TRACE_ID}-{CALLER_SPAN}-01", "TRACESTATE": "vendor=1", "PATH": "/bin"}
    carrier = environment_carrier(environ)
    assert carrier == {"traceparent": environ["TRACEPARENT"], "tracestate": "vendor=1"}
    assert environment_carrier({"TRACEPARENT": " "}) == {}
    with continued_trace(carrier):
        assert trace_carrier() == {}  # no tracer provider: the run is not traced, nothing to hand on
    provider = TracerProvider()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)  # as trace.set_tracer_provider, undone
    assert trace_carrier() == {}  # no span: nothing to continue
    with continued_trace(carrier):
        assert trace_carrier() == carrier  # what a worker is given, it passes on unchanged
    assert trace_carrier() == {}


def ours(spans: list[ReceivedSpan]) -> list[ReceivedSpan]:
    return [span for span in spans if span.scope == TRACER_NAME]


def test_worker_processes_continue_the_runs_trace(isolated_env: Path) -> None:
    out = isolated_env / "run"
    with OtlpReceiver() as receiver, ScriptedOpenAIServer() as server:
        env = {
            **os.environ,
            "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
            "OTEL_SERVICE_NAME": "judge-ci",
            "TRACEPARENT": f"00-{TRACE_ID}-{CALLER_SPAN}-01",
        }
        command = [sys.executable, "-m", "debate_eval.tasks.cli.main", "run", "--dataset", "summeval"]
        command += ["--aspect", "coherence", "--limit", str(ITEMS), "--method", "geval", "--workers", "2"]
        command += ["--base-url", server.base_url, "--model", "scripted", "--no-cache", "--no-preflight"]
        command += ["--no-progress", "--out", str(out)]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, done.stderr
        spans = ours(receiver.spans)  # every process exported before it ended
    records = [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines() if x]
    assert len(records) == ITEMS
    assert {span.trace_id for span in spans} == {TRACE_ID}  # one trace: the caller's
    assert {span.resource.get("service.name") for span in spans} == {"judge-ci"}
    runs = [span for span in spans if span.name == "debate_eval.run geval"]
    (parent,) = [span for span in runs if span.parent_id == CALLER_SPAN]  # the parent process's run span
    assert parent.attributes["debate_eval.items"] == ITEMS
    shards = [span for span in runs if span.parent_id == parent.span_id]  # one per worker process
    assert len(shards) == 2 and len(runs) == 3
    assert sum(span.attributes["debate_eval.items"] for span in shards) == ITEMS
    items = [span for span in spans if span.name == "debate_eval.item geval"]
    assert sorted(span.attributes["debate_eval.item_id"] for span in items) == sorted(r["item_id"] for r in records)
    assert {span.parent_id for span in items} == {span.span_id for span in shards}
    calls = [span for span in spans if span.name == "chat scripted"]
    assert len(calls) == ITEMS and {span.parent_id for span in calls} == {span.span_id for span in items}
