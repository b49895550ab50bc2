"""run --workers N: processes over shards of the items into one run directory; no loss, no duplicate, resume
after kill -9 of one worker, a shared response cache, rate budgets divided."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.held_replies import HeldReplies

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.backends.shards import in_shard
from debate_eval.tasks.engine.backends.workers import WORKERS_DIR, options_of_worker, worker_dir
from debate_eval.tasks.engine.run_config import RunOptions

ITEMS = 40


def ids_of(path: Path) -> list[str]:
    return [json.loads(line)["item_id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def spawned_children(pid: int) -> list[int]:
    """The worker processes (multiprocessing's spawn_main) whose parent is ``pid``, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def run_args(server: ScriptedOpenAIServer, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(ITEMS), "--method", "geval"]
    args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out)]
    return [*args, "--concurrency", "2", "--no-progress", "--no-preflight", *extra]


def test_worker_options_take_their_shard_and_a_share_of_the_budgets(tmp_path: Path) -> None:
    options = RunOptions(out_dir=tmp_path / "run", data_dir=tmp_path, rpm=600, tpm=90_000, workers=3)
    second = options_of_worker(options, 1, 3)
    assert second.shard == (1, 3) and second.workers == 1 and second.out_dir == worker_dir(tmp_path / "run", 1, 3)
    assert second.rpm == 200 and second.tpm == 30_000 and second.skip_done_of == tmp_path / "run"
    assert options_of_worker(RunOptions(out_dir=tmp_path, data_dir=tmp_path), 0, 2).rpm is None


def test_two_workers_write_every_item_once_and_share_the_cache(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert main(run_args(server, out, "--workers", "2")) == 0
        calls = server.count
        assert calls >= ITEMS - 2  # a few summeval items share one prompt (answered from the cache)
        ids = ids_of(out / "results.jsonl")
        assert len(ids) == len(set(ids)) == ITEMS
        assert not (out / WORKERS_DIR).exists()  # every worker line appended, the worker directories removed
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["finished"] == ITEMS and summary["workers"] == 2
        capsys.readouterr()
        assert main(run_args(server, out, "--workers", "2")) == 0  # resume: nothing left to do
        captured = capsys.readouterr()
        assert f"{ITEMS} items selected, {ITEMS} already done" in captured.out + captured.err
        # the response cache written by two processes at once answers a new run of the same items entirely
        assert main(run_args(server, isolated_env / "again", "--workers", "2")) == 0
        assert server.count == calls
    again = json.loads((isolated_env / "again" / "summary.json").read_text(encoding="utf-8"))
    assert again["cached_calls"] == ITEMS and again["llm_calls"] == 0


@pytest.mark.parametrize("rerun", [("--workers", "2"), ()], ids=["workers", "in-process"])
def test_lines_left_in_a_worker_directory_are_appended_not_run_again(
    isolated_env: Path, rerun: tuple[str, ...]
) -> None:
    """A --workers parent killed before it appended a worker's lines: the next run, with --workers or in one
    process, appends them first and judges only the rest."""
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        # as if a parent had been killed before appending worker 0's lines: its directory holds shard 0/2
        assert main(run_args(server, worker_dir(out, 0, 2), "--shard", "0/2", "--no-cache")) == 0
        shard0 = ids_of(worker_dir(out, 0, 2) / "results.jsonl")
        before = server.count
        assert main(run_args(server, out, *rerun, "--no-cache")) == 0
        assert server.count - before == ITEMS - len(shard0)  # only shard 1's items were judged
    ids = ids_of(out / "results.jsonl")
    assert len(ids) == len(set(ids)) == ITEMS and set(shard0) <= set(ids)
    assert not (out / WORKERS_DIR).exists()
    assert all(in_shard(i, (0, 2)) for i in shard0)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds the worker processes in /proc (Linux)")
def test_a_worker_killed_with_sigkill_is_started_again_for_its_remaining_items(isolated_env: Path) -> None:
    out = isolated_env / "run"
    replies = HeldReplies()
    with ScriptedOpenAIServer(latency_s=0.05, reply=replies) as server:
        args = run_args(server, out, "--workers", "2", "--no-cache")
        replies.hold_after(8)  # the gate: 8 calls answered, the next held (both workers have items left)
        parent = subprocess.Popen(
            [sys.executable, "-m", "debate_eval.tasks.cli.main", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert replies.wait_holding(), "the workers should have reached their ninth call"
        workers = spawned_children(parent.pid)
        assert len(workers) == 2, "both workers should be running"
        os.kill(workers[0], signal.SIGKILL)
        replies.release()
        _, err = parent.communicate(timeout=300)
    assert parent.returncode == 0, err
    assert "ended (exit status -9); started again for its unfinished items" in err
    ids = ids_of(out / "results.jsonl")
    assert len(ids) == len(set(ids)) == ITEMS
    records = [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert all(r["error"] is None for r in records)


def test_evaluate_with_workers_judges_own_rows_once_each(isolated_env: Path) -> None:
    import debate_eval

    rows = [{"id": f"r{i}", "source": f"text {i}", "output": f"summary {i} " * (i % 5 + 1)} for i in range(30)]
    run = debate_eval.evaluate(
        rows,
        aspect="coherence",
        method="geval",
        criteria="Is it coherent?",
        scale="1-5",
        provider="scripted",
        out=isolated_env / "run",
        workers=2,
        progress="none",
    )
    ids = [record.item_id for record in run.records]
    assert sorted(ids) == sorted(f"r{i}" for i in range(30))


def test_two_workers_against_a_rate_limited_endpoint_finish_every_item_once(isolated_env: Path) -> None:
    from support.rate_limited_server import Latency, RateLimitedServer

    # 60 requests per 2 s window; both workers learn it from the headers and share it (each refusal retried)
    server = RateLimitedServer(rpm=60, window_s=2.0, latency=Latency(0.01, 0.05))
    out = isolated_env / "run"
    with server:
        args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "64", "--method", "geval"]
        args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-cache"]
        assert main([*args, "--concurrency", "32", "--no-progress", "--no-preflight", "--workers", "2"]) == 0
        answered = server.stats.requests - server.stats.rate_limited
    records = [json.loads(x) for x in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == len({r["item_id"] for r in records}) == 64
    assert all(r["error"] is None for r in records)
    assert answered == 64  # one answered call an item: none lost, none made twice
