"""Ctrl-C and kill -9 mid-run, then a rerun; two runs on one directory.

The run under test is the real command in a process of its own. A gate in the fault server answers the
requests of the first items it receives and holds every request of any other item until the test opens it,
so those items cannot finish before the signal however the machine is loaded: the gate is on what the
server received, not on what the client has written.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import ITEMS, Action, Outcome, assert_clean, assert_no_key, run_args, start_cli, wait_for_lines

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def item_texts() -> list[str]:
    """The judged texts of the suite's items (every request about an item quotes its text)."""
    from debate_eval.tasks.data.datasets import load_items, select_items

    texts = [item.inputs["Summary"] for item in select_items(load_items("summeval"), limit=ITEMS)]
    assert len(set(texts)) == ITEMS
    return texts


class Gate(threading.Event):
    """Opened by the test; ``held`` counts the requests it held."""

    held = 0

    def wait_held(self, process: Any, limit_s: float = 60) -> bool:
        """Wait (bounded) until a request is held or ``process`` ended; whether one is held."""
        deadline = time.monotonic() + limit_s
        while not self.held and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        return bool(self.held)


def gated(items: int, gate: Gate, hold_s: float = 30) -> Callable[[int, dict[str, Any]], Action | None]:
    """Answer the requests of the first ``items`` items the server receives (and requests about no item:
    the endpoint check); hold each request about any other item until ``gate`` opens (at most ``hold_s``)."""
    texts, admitted, lock = item_texts(), [], threading.Lock()

    def script(number: int, request: dict[str, Any]) -> Action | None:
        body = json.dumps(request.get("messages"), ensure_ascii=False)
        about = [text for text in texts if json.dumps(text, ensure_ascii=False)[1:-1] in body]
        with lock:
            for text in about:
                if text not in admitted and len(admitted) < items:
                    admitted.append(text)
            held = any(text not in admitted for text in about)
            gate.held += held
        if held:
            gate.wait(hold_s)  # bounded: the test opens the gate as soon as the run under test has stopped
        return None

    return script


def patient(args: list[str], timeout_s: float = 60) -> list[str]:
    """``args`` with a timeout longer than the gate holds a request (so a held item cannot time out, fail
    and write its line before the signal)."""
    args = list(args)
    args[args.index("--timeout") + 1] = str(timeout_s)
    return args


def endpoint_checks(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pre-flight requests among ``requests`` (one per run that got as far as its endpoint check)."""
    return [r for r in requests if "Reply with OK." in json.dumps(r.get("messages"))]


@pytest.mark.parametrize("how", ["SIGINT", "SIGKILL"])
def test_an_interrupted_run_keeps_its_results_and_a_rerun_finishes(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, how: str
) -> None:
    out = fault_env / "run"
    gate = Gate()
    server = server_factory(script=gated(2, gate))
    args = patient(run_args(server, out))
    process = start_cli(args)
    try:
        assert wait_for_lines(out / "results.jsonl", 2, process) >= 2
        assert gate.wait_held(process)  # another item's request reached the server and is held there
        process.send_signal(signal.SIGINT if how == "SIGINT" else signal.SIGKILL)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        gate.set()
        if process.poll() is None:
            process.kill()
    kept = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert 2 <= len(kept) == len({r["item_id"] for r in kept}) < ITEMS  # whole lines only, the run cut short
    lines = [line for line in stderr.splitlines() if line.strip()]
    if how == "SIGINT":
        assert process.returncode == 130 and "Traceback" not in stderr + stdout
        assert lines == [
            f"debate-eval: interrupted; finished items are saved in {out}; rerun the same command to resume"
        ]
        assert not (out / ".debate-eval.lock").exists()
        assert json.loads((out / "summary.json").read_text())["finished"] == len(kept)
    else:
        assert process.returncode == -signal.SIGKILL
        assert (out / ".debate-eval.lock").exists()  # left behind by the killed run: stale
    assert_no_key(stdout + stderr, out)
    before = server.count
    rerun = cli(args)
    assert_clean(rerun, code=0, message=None, results=ITEMS, server=server)
    assert server.count - before <= 1 + (ITEMS - len(kept)) * 3  # the check, then only unfinished items
    notes = [line for line in rerun.error_lines() if "took over the lock" in line]
    if how == "SIGKILL":
        assert len(notes) == 1 and f"pid {process.pid} on host {socket.gethostname()}" in notes[0]
    else:
        assert notes == []


def test_a_second_run_on_the_same_directory_refuses_and_the_first_loses_nothing(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    out = fault_env / "run"
    gate = Gate()
    server = server_factory(script=gated(1, gate))
    args = patient(run_args(server, out))
    first = start_cli(args)
    try:
        assert wait_for_lines(out / "results.jsonl", 1, first) >= 1
        checks = len(endpoint_checks(server.requests))  # the first run's check is long done
        second = cli(args)
        assert len(endpoint_checks(server.requests)) == checks  # the refused run sent nothing: no double cost
        gate.set()
        stdout, stderr = first.communicate(timeout=60)
    finally:
        gate.set()
        if first.poll() is None:
            first.kill()
    message = f"is in use by another debate-eval run (pid {first.pid} on host {socket.gethostname()}"
    assert_clean(second, code=2, message=message, results=ITEMS, server=server)  # the first run's results
    assert first.returncode == 0 and "Traceback" not in stdout + stderr
    assert_no_key(stdout + stderr, out)
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == len({r["item_id"] for r in records}) == ITEMS
    assert not (out / ".debate-eval.lock").exists() and not list(out.glob("*.tmp")) and not list(out.glob(".*.tmp"))
    assert os.listdir(out)  # and the directory is usable again:
    assert cli(args).code == 0


def test_rescore_refuses_to_rewrite_under_a_running_run(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    from debate_eval.tasks.engine.lock import RunLock

    server = server_factory()
    out = fault_env / "run"
    assert cli(run_args(server, out)).code == 0
    before = (out / "results.jsonl").read_bytes()
    with RunLock(out):  # as a run on this directory would hold it
        outcome = cli(["rescore", str(out)])
    assert_clean(outcome, code=2, message="is in use by another debate-eval run", results=ITEMS, server=server)
    assert (out / "results.jsonl").read_bytes() == before and not list(out.glob("results.jsonl.bak-*"))


def test_audit_refuses_an_out_folder_a_run_is_using(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    from debate_eval.tasks.engine.lock import RunLock

    out = fault_env / "run"
    out.mkdir()
    with RunLock(out):  # a run under way in this folder
        audit = cli(["audit", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2",
                     "--provider", "scripted", "--facets", "agreement", "--out", str(out)])  # fmt: skip
        assert audit.code == 2 and "Traceback" not in audit.output, audit.output
        assert "is in use by another debate-eval run" in audit.stderr, audit.stderr
        assert sorted(path.name for path in out.iterdir()) == [".debate-eval.lock"]  # nothing written beside it
