"""The fast paths change nothing that reaches the endpoint or a configured tracer."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from autogen_core.models import SystemMessage, UserMessage
from opentelemetry import trace

from debate_eval.agents.models.fast_path import DirectBodyClient, telemetry_idle, use_direct_body
from debate_eval.agents.models.pool import build_openai_client
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config, with_sampling


def test_the_direct_body_is_the_sdk_body_and_the_answer_the_same() -> None:
    messages = [SystemMessage(content="You are a Scorer."), UserMessage(content='Rate: ünïcode "q"', source="user")]
    with ScriptedOpenAIServer(top_logprobs={"3": -0.1, "4": -2.3}) as server:
        models = resolve_model_config(ModelOverrides(base_url=server.base_url, model="scripted"), environ={})
        settings = with_sampling(models.for_role("scorer"), top_logprobs=2, max_tokens=5)

        async def both() -> list:
            plain = build_openai_client(settings, server.base_url)
            direct = use_direct_body(build_openai_client(settings, server.base_url))
            assert isinstance(direct._client, DirectBodyClient)
            results = [await plain.create(messages), await direct.create(messages)]
            await plain.close()
            await direct.close()
            return results

        plain_result, direct_result = asyncio.run(both())
        sent = list(server.requests)
    assert len(sent) == 2 and sent[0] == sent[1]
    assert sent[1]["max_tokens"] == 5 and sent[1]["top_logprobs"] == 2 and sent[1]["stream"] is False
    assert direct_result.content == plain_result.content
    assert direct_result.usage == plain_result.usage
    assert direct_result.logprobs == plain_result.logprobs


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
    monkeypatch.setattr(fast_path.metadata, "version", lambda name: "9.0.0" if name == "openai" else real(name))
    assert fast_path.fast_path_problem() == "it was tested with openai 3.54.x, not 9.0.0"
    assert enable_fast_path() is False
    assert capsys.readouterr().err.splitlines() == [
        "debate-eval: --fast-path is off: it was tested with openai 3.54.x, not 9.0.0; using the default path"
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
