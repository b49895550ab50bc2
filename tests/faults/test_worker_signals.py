"""Signals to a ``--workers`` parent: SIGTERM stops the workers, saves what finished and exits 143 with one
line; after SIGKILL of the parent its workers notice and end. No child outlives the parent (checked by pid).

The run under test is the real command in a process of its own, gated as in ``test_interruptions.py`` so the
items past the first two cannot finish before the signal; here the gate holds (and the client waits) far
longer than the test waits for the processes to end, so a worker that ends did so because of the signal.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import ITEMS, Outcome, assert_clean, run_args, start_cli, wait_for_lines
from test_interruptions import Gate, gated, patient

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for the process tree")


def children_of(pid: int) -> set[int]:
    """The pids of ``pid``'s descendants now (read from /proc)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def wait_gone(pids: set[int], limit_s: float = 60) -> set[int]:
    """Wait (bounded) until none of ``pids`` runs; those still running."""
    deadline = time.monotonic() + limit_s
    running = {pid for pid in pids if alive(pid)}
    while running and time.monotonic() < deadline:
        time.sleep(0.05)
        running = {pid for pid in running if alive(pid)}
    return running


def wait_children(pid: int, count: int, limit_s: float = 60) -> set[int]:
    """Wait (bounded) until ``pid`` has at least ``count`` descendants; them."""
    deadline = time.monotonic() + limit_s
    found = children_of(pid)
    while len(found) < count and time.monotonic() < deadline:
        time.sleep(0.05)
        found = children_of(pid)
    return found


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_signalled_workers_parent_leaves_no_child(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, how: str
) -> None:
    out = fault_env / "run"
    gate = Gate()
    server = server_factory(script=gated(2, gate, hold_s=600))
    args = patient(run_args(server, out, "--workers", "2"), timeout_s=900)
    process = start_cli(args)
    try:
        assert wait_for_lines(out / "results.jsonl", 2, process) >= 2  # appended by the parent
        assert gate.wait_held(process)
        # The two workers, then every descendant at the moment of the signal: multiprocessing's resource
        # tracker too when it has started (it starts on first need, so a count including it would wait on timing).
        children = wait_children(process.pid, 2)
        assert len(children) >= 2, children
        children |= children_of(process.pid)
        process.send_signal(signal.SIGTERM if how == "SIGTERM" else signal.SIGKILL)
        process.wait(timeout=120)
        assert wait_gone(children) == set()  # every one ended (a tracker held the parent's output open)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        gate.set()
        if process.poll() is None:
            process.kill()
    kept = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert 2 <= len(kept) == len({r["item_id"] for r in kept}) < ITEMS
    if how == "SIGTERM":
        assert process.returncode == 143 and "Traceback" not in stdout + stderr, stderr
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert lines == [
            f"debate-eval: terminated; finished items are saved in {out}; rerun the same command to resume"
        ]
        assert not (out / ".debate-eval.lock").exists()
        assert json.loads((out / "summary.json").read_text())["finished"] == len(kept)
    else:
        assert process.returncode == -signal.SIGKILL
    rerun = cli(args)
    assert_clean(rerun, code=0, message=None, results=ITEMS, server=server)


def test_workers_above_the_items_or_the_cpus_are_capped(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from debate_eval.tasks.engine.backends import workers

    started: list[int] = []
    monkeypatch.setattr(workers, "_start", lambda context, worker, config: started.append(worker.k))
    monkeypatch.setattr(workers.ProcessBackend, "events", lambda self: iter([(k, workers.DONE, None) for k in started]))
    server = server_factory()
    outcome = cli(run_args(server, fault_env / "many", "--workers", "100000"))
    assert outcome.code == 0, outcome.output
    assert sorted(started) == list(range(ITEMS))  # one per item: no empty shard started
    assert f"debate-eval: note: --workers 100000 over {ITEMS} items: {ITEMS} started (one per item)" in outcome.stderr
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 1)
    started.clear()
    outcome = cli(run_args(server, fault_env / "cpus", "--workers", "100000", limit=8))
    assert sorted(started) == list(range(4))
    assert "debate-eval: note: --workers 100000 capped to 4 (4 per CPU, 1 CPUs here)" in outcome.stderr
