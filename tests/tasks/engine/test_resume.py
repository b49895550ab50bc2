"""A run killed with SIGKILL mid-way resumes: no duplicate, no truncated line, every item done."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.held_replies import HeldReplies

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main

ITEMS = 16


def count_lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_resume_after_sigkill(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "run"
    results = out / "results.jsonl"
    replies = HeldReplies()
    with ScriptedOpenAIServer(latency_s=0.05, reply=replies) as server:
        args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(ITEMS)]
        args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out)]
        args += ["--concurrency", "2", "--no-progress", "--no-preflight"]
        # five calls an item, two items at a time: after 30 answers at least five items finish (the two in
        # flight have at most four answers each) and at most six, whatever the machine's load
        replies.hold_after(30)
        process = subprocess.Popen(
            [sys.executable, "-m", "debate_eval.tasks.cli.main", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert replies.wait_holding(), "the run should have reached its 31st call"
        deadline = time.monotonic() + 60  # the gate: the finished items' lines are written
        while count_lines(results) < 4 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        replies.release()
        done_before = count_lines(results)
        assert 4 <= done_before < ITEMS, "the run should have been killed mid-way"
        with results.open("ab") as handle:  # and, as if the kill had landed mid-write, a torn last line
            handle.write(b'{"item_id": "dm-test-torn", "score": 3, "transcr')

        calls_before = server.count
        assert main(args) == 0
        assert server.count - calls_before <= (ITEMS - done_before) * 5 + 2 * 5  # only unfinished work
    assert "is incomplete (an interrupted write); skipped" in capsys.readouterr().err
    lines = results.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]  # every line is complete JSON
    ids = [r["item_id"] for r in records]
    assert len(ids) == ITEMS and len(set(ids)) == ITEMS and "dm-test-torn" not in ids
    assert all(r["error"] is None and r["score"] == 3 for r in records)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))  # both halves of the run
    assert summary["items"] == summary["finished"] == ITEMS
    assert summary["llm_calls"] + summary["cached_calls"] == ITEMS * 5
    assert summary["this_invocation"]["attempted"] == ITEMS - done_before


def test_a_last_line_without_its_newline_is_completed_before_appending(isolated_env: Path) -> None:
    out = isolated_env / "run"
    results = out / "results.jsonl"
    with ScriptedOpenAIServer() as server:
        args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--base-url", server.base_url]
        args += ["--model", "scripted", "--out", str(out), "--no-progress", "--no-preflight"]
        assert main([*args, "--limit", "1"]) == 0
        results.write_bytes(results.read_bytes().rstrip(b"\n"))  # complete JSON, newline lost
        assert main([*args, "--limit", "2"]) == 0
        assert main([*args, "--limit", "3"]) == 0  # and the file still reads
    records = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3 and len({r["item_id"] for r in records}) == 3 and results.read_bytes().endswith(b"\n")
