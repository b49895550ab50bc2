"""run --ray: the shards as Ray tasks on a local Ray instance (two CPUs), their lines streamed to the driver and
appended once; a lost task (its worker process killed) is submitted again for its remaining items."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.held_replies import HeldReplies

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main

ITEMS = 30


@pytest.fixture(scope="module")
def ray_instance(shared_data_dir: Path) -> Iterator[object]:
    """A local Ray instance for the module (Ray absent: skipped, or failed with DEBATE_EVAL_REQUIRE_RAY=1)."""
    try:
        import ray
    except ImportError:
        if os.environ.get("DEBATE_EVAL_REQUIRE_RAY") == "1":
            pytest.fail("Ray is missing and DEBATE_EVAL_REQUIRE_RAY=1: pip install 'debate-eval[ray]'")
        pytest.skip("Ray is not installed (pip install 'debate-eval[ray]')")
    # Ray's worker processes take the environment as it is now: the real data, and (where an installed Ray's
    # dashboard agent imports protos generated for a newer protobuf than the one installed) no version check
    saved = {
        name: os.environ.get(name) for name in ("DEBATE_EVAL_DATA_DIR", "TEMPORARILY_DISABLE_PROTOBUF_VERSION_CHECK")
    }
    os.environ["DEBATE_EVAL_DATA_DIR"] = str(shared_data_dir)
    os.environ.setdefault("TEMPORARILY_DISABLE_PROTOBUF_VERSION_CHECK", "true")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def ids_of(path: Path) -> list[str]:
    return [json.loads(line)["item_id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def request(server: ScriptedOpenAIServer, out: Path) -> dict[str, object]:
    return {
        "dataset": "summeval",
        "aspect": "coherence",
        "limit": ITEMS,
        "method": "geval",
        "base_url": server.base_url,
        "model": "scripted",
        "out": str(out),
        "concurrency": 2,
        "no_cache": True,
        "no_preflight": True,
        "progress": "none",
    }


def run_args(server: ScriptedOpenAIServer, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(ITEMS), "--method", "geval"]
    args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-cache"]
    return [*args, "--concurrency", "2", "--no-progress", "--no-preflight", *extra]


def test_ray_tasks_append_every_item_once(
    ray_instance: object, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert main(run_args(server, out, "--ray", "--workers", "2")) == 0
        assert server.count == ITEMS
        ids = ids_of(out / "results.jsonl")
        assert sorted(ids) == sorted(set(ids)) and len(ids) == ITEMS
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["finished"] == ITEMS and summary["workers"] == 2
        capsys.readouterr()
        assert main(run_args(server, out, "--ray")) == 0  # resume: nothing to do, no call
        captured = capsys.readouterr()
        assert f"{ITEMS} items selected, {ITEMS} already done" in captured.out + captured.err
        assert server.count == ITEMS
    assert main(["meta-eval", str(out), "--json"]) == 0


@pytest.mark.parametrize(("workers", "shards"), [(["--workers", "1"], 1), ([], 2)], ids=["workers-1", "no-workers"])
def test_an_explicit_workers_count_is_the_number_of_ray_shards(
    ray_instance: object, isolated_env: Path, workers: list[str], shards: int
) -> None:
    """``--workers 1`` under ``--ray`` is one shard; no ``--workers`` is one shard per CPU of the cluster (two)."""
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        args = [*run_args(server, out, "--ray", *workers)]
        args[args.index("--limit") + 1] = "4"
        assert main(args) == 0
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["finished"] == 4 and summary["workers"] == shards


def test_a_lost_ray_task_is_submitted_again_without_duplicates(
    ray_instance: object, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from debate_eval.tasks.engine import build
    from debate_eval.tasks.engine.backends.ray import RayBackend
    from debate_eval.tasks.engine.backends.workers import run_workers
    from debate_eval.tasks.engine.request import RunRequest

    out = isolated_env / "run"
    killed: list[int] = []
    replies = HeldReplies()
    replies.hold_after(6)  # the gate: 6 calls answered, the next held (no task can finish before the kill)
    with ScriptedOpenAIServer(latency_s=0.05, reply=replies) as server:
        config, options = build.build_run(RunRequest.from_mapping(request(server, out)))

        def on_start(k: int, pid: int) -> None:
            if k != 0 or killed:
                return

            def kill_after_gate() -> None:
                replies.wait_holding()
                os.kill(pid, signal.SIGKILL)
                replies.release()

            killed.append(pid)
            threading.Thread(target=kill_after_gate, daemon=True).start()

        backend = RayBackend(config, on_start=on_start)
        summary = asyncio.run(run_workers(config, options, backend=backend, shards=2))
    assert killed, "the first task of shard 0 should have started"
    assert "Ray task 1 of 2 ended" in capsys.readouterr().err
    ids = ids_of(out / "results.jsonl")
    assert len(ids) == len(set(ids)) == ITEMS
    assert summary.total.finished == ITEMS


def test_without_ray_the_run_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with ScriptedOpenAIServer() as server:
        assert main(run_args(server, isolated_env / "run", "--ray")) == 2
        assert server.count == 0
    err = capsys.readouterr().err.strip()
    assert err == "debate-eval: error: --ray needs Ray: pip install 'debate-eval[ray]'"


def test_ray_tasks_with_the_endpoints_limit_as_their_budget_stay_within_it(
    ray_instance: object, isolated_env: Path
) -> None:
    """``--rpm`` divided among the Ray tasks as among ``--workers``: 150 items (one call each) against an
    endpoint of 120 requests per minute (a continuously refilled bucket, full at start), ``--rpm 120``; what
    the endpoint recorded: each item's call answered once, at most 2% of requests refused with 429 (the
    limiter's target), no stretch of arrivals beyond the limit by more."""
    from support.rate_limited_server import Latency, RateLimitedServer, most_over_the_limit

    limit, items = 120, 150
    server = RateLimitedServer(rpm=limit, window_s=60.0, latency=Latency(0.01, 0.03), max_lifetime_s=300)
    out = isolated_env / "run"
    with server:
        args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(items), "--method", "geval"]
        args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-cache"]
        args += ["--concurrency", "32", "--no-progress", "--no-preflight", "--rpm", str(limit)]
        assert main([*args, "--ray", "--workers", "2"]) == 0
    stats = server.stats
    ids = ids_of(out / "results.jsonl")
    assert len(ids) == len(set(ids)) == items
    assert stats.answered == items and stats.requests == len(stats.arrivals) == items + stats.rate_limited
    assert stats.rate_limited <= 0.02 * stats.requests, f"{stats.rate_limited} of {stats.requests} got 429"
    assert most_over_the_limit(stats.arrivals, limit, 60.0) <= 0.02 * stats.requests


def test_ray_tasks_continue_the_drivers_trace(
    ray_instance: object, isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A traced driver (an SDK tracer provider, its spans kept in memory) passes its W3C trace context to each
    task with its arguments and its ``OTEL_*`` variables in the task's ``runtime_env``: each task exports
    to the OTLP receiver the variables name, its spans in the driver's trace, its run span a child of the
    driver's run span."""
    from support.integrations import integration_library

    integration_library("opentelemetry.exporter.otlp.proto.http", "otel")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from support.otlp_receiver import OtlpReceiver

    from debate_eval.agents.telemetry import TRACER_NAME

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)  # the driver's, for this test only
    out = isolated_env / "run"
    with OtlpReceiver() as receiver, ScriptedOpenAIServer() as server:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
        monkeypatch.setenv("OTEL_SERVICE_NAME", "judge-ray")
        assert main(run_args(server, out, "--ray", "--workers", "2")) == 0
        tasks = [span for span in receiver.spans if span.scope == TRACER_NAME]  # exported before each task ended
    driver = [s for s in exporter.get_finished_spans() if s.instrumentation_scope.name == TRACER_NAME]
    (run,) = [span for span in driver if span.name == "debate_eval.run geval"]
    trace_id, span_id = f"{run.context.trace_id:032x}", f"{run.context.span_id:016x}"
    assert {span.trace_id for span in tasks} == {trace_id}
    assert {span.resource.get("service.name") for span in tasks} == {"judge-ray"}
    shards = [span for span in tasks if span.name == "debate_eval.run geval"]
    assert len(shards) == 2 and {span.parent_id for span in shards} == {span_id}
    items = [span for span in tasks if span.name == "debate_eval.item geval"]
    assert sorted(span.attributes["debate_eval.item_id"] for span in items) == sorted(ids_of(out / "results.jsonl"))
    assert {span.parent_id for span in items} == {span.span_id for span in shards}


def test_an_address_that_takes_no_connection_fails_in_one_line_before_ray_init() -> None:
    """``ray.init`` retries an unreachable address for minutes without a word; the run says so at once."""
    import socket
    from types import SimpleNamespace

    from debate_eval.agents.errors import UserError
    from debate_eval.tasks.engine.backends.ray import start_ray

    with socket.socket() as probe:  # a port nothing listens on: bound, then closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    inits: list[dict[str, object]] = []
    fake_ray = SimpleNamespace(is_initialized=lambda: False, init=lambda **kwargs: inits.append(kwargs))
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(UserError) as caught:
            start_ray(fake_ray, address)
        assert str(caught.value) == f"--ray {address}: cannot reach the Ray cluster (Connection refused)"
    assert inits == []
    with socket.socket() as listening:  # an address that answers is handed to ray.init as it is
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        address = f"127.0.0.1:{listening.getsockname()[1]}"
        start_ray(fake_ray, address)
    start_ray(fake_ray, "auto")
    assert [call["address"] for call in inits] == [address, "auto"]


def test_starting_ray_keeps_the_runs_sigterm_handler() -> None:
    """ray.init puts in a SIGTERM handler of its own (a stack dump, exit status 134); the run's stays."""
    import signal
    from types import SimpleNamespace

    from debate_eval.tasks.engine.backends.ray import start_ray

    def rays_handler(signum: int, frame: object) -> None:
        raise AssertionError("Ray's handler")

    def the_runs(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    fake_ray = SimpleNamespace(
        is_initialized=lambda: False, init=lambda **kwargs: signal.signal(signal.SIGTERM, rays_handler)
    )
    previous = signal.signal(signal.SIGTERM, the_runs)
    try:
        start_ray(fake_ray, "local")
        assert signal.getsignal(signal.SIGTERM) is the_runs
    finally:
        signal.signal(signal.SIGTERM, previous)
