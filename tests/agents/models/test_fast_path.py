"""The opt-in fast path changes nothing that reaches the endpoint or a configured tracer, and is refused with
versions it was not tested with."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry import trace

from debate_eval.agents.models.fast_path import telemetry_idle
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer


def test_telemetry_is_idle_only_without_a_recording_provider() -> None:
    class Recording(trace.TracerProvider):
        def get_tracer(self, *args: object, **kwargs: object) -> trace.Tracer:
            return trace.NoOpTracer()

    assert telemetry_idle(None)  # no provider set in the test process
    assert telemetry_idle(trace.NoOpTracerProvider())
    assert not telemetry_idle(Recording())


def test_runtime_serialisation_is_skipped_only_when_nothing_reads_it() -> None:
    import logging

    from autogen_core import SingleThreadedAgentRuntime
    from autogen_core.models import UserMessage as Message

    from debate_eval.agents.models.fast_path import _original_try_serialize, quiet_idle_telemetry

    quiet_idle_telemetry()
    runtime = SingleThreadedAgentRuntime()
    events = logging.getLogger("autogen_core.events")
    level = events.level
    try:
        events.setLevel(logging.WARNING)
        assert runtime._try_serialize(Message(content="x", source="u")) == ""
        events.setLevel(logging.INFO)  # someone reads the event log: serialised as before
        message = Message(content="x", source="u")
        assert runtime._try_serialize(message) == _original_try_serialize(runtime, message) != ""
    finally:
        events.setLevel(level)


def test_the_fast_path_is_refused_in_one_line_with_versions_it_was_not_tested_with(
    monkeypatch: Any, capsys: Any
) -> None:
    from debate_eval.agents.models import fast_path
    from debate_eval.agents.models.pool import enable_fast_path

    real = fast_path.metadata.version
    monkeypatch.setattr(fast_path.metadata, "version", lambda name: "0.9.0" if name == "autogen-core" else real(name))
    assert fast_path.fast_path_problem() == "it was tested with autogen-core 0.7.5, not 0.9.0"
    assert enable_fast_path() is False
    assert capsys.readouterr().err.splitlines() == [
        "debate-eval: --fast-path is off: it was tested with autogen-core 0.7.5, not 0.9.0; using the default path"
    ]


def test_a_run_with_the_fast_path_writes_what_the_default_path_writes(isolated_env: Any) -> None:
    from debate_eval.agents.models.fast_path import _original_try_serialize
    from debate_eval.tasks.cli.main import main

    with ScriptedOpenAIServer() as server:
        runs = {}
        for name, extra in (("default", []), ("fast", ["--fast-path"])):
            out = isolated_env / name
            args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--no-cache",
                    "--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress",
                    "--concurrency", "1", *extra]  # fmt: skip
            assert main(args) == 0
            runs[name] = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        sent = list(server.requests)
    from autogen_core import SingleThreadedAgentRuntime

    assert SingleThreadedAgentRuntime._try_serialize is _original_try_serialize  # restored after the run

    def steady(record: dict[str, Any]) -> dict[str, Any]:  # what does not depend on timing
        turns = [{k: v for k, v in t.items() if k in ("agent", "role", "content", "to")} for t in record["transcript"]]
        return {"item_id": record["item_id"], "score": record["score"], "turns": turns, "usage": record["usage"]}

    assert [steady(r) for r in runs["fast"]] == [steady(r) for r in runs["default"]]
    half = len(sent) // 2
    assert sent[:half] == sent[half:]  # the same request bodies, in the same order
