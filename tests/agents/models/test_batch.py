"""``run --batch`` against the scripted batch endpoint: batch count, retries of failed lines, lost polls,
reruns that make no request, and a killed run that polls its batch instead of submitting it again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.batch_server import ScriptedBatchServer

from debate_eval.agents.models.batch_api import line_outcome, parse_output
from debate_eval.agents.models.batch_state import DONE, SUBMITTED, BatchState, request_key
from debate_eval.tasks.cli.main import main

ROUNDS = 2


def run_args(base_url: str, out: Path, *extra: str) -> list[str]:
    """``run --batch`` on 8 SummEval items, DEBATE with n = 2, every role on the scripted endpoint."""
    return [
        "run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "8", "--max-rounds", str(ROUNDS),
        "--model", "scripted", "--base-url", base_url, "--no-cache", "--no-progress", "--no-preflight",
        "--out", str(out), "--batch", "--batch-poll", "0.05", *extra,
    ]  # fmt: skip


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]


def check_scored(out: Path) -> None:
    found = records(out)
    assert len(found) == 8
    for record in found:
        assert record["error"] is None and record["score"] is not None, record["item_id"]
        assert record["llm_calls"] == 2 * ROUNDS + 1
        assert all(entry.get("batch") for entry in record["transcript"] if entry.get("usage"))


def test_eight_items_need_2n_plus_1_batches_and_a_rerun_makes_no_request(isolated_env: Path, capsys) -> None:
    out = isolated_env / "run"
    with ScriptedBatchServer(batch_delay_s=0.1, lifetime_s=600) as server:
        assert main(run_args(server.base_url, out)) == 0
        first = server.stats()
        assert first["batches"] == 2 * ROUNDS + 1  # one per sequential step, whatever the number of items
        assert first["requests"] == 0 and first["lines"] == 8 * (2 * ROUNDS + 1)
        check_scored(out)
        summary = json.loads((out / "summary.json").read_text())
        assert summary["this_invocation"]["transport"]["batch"]["batches"] == 2 * ROUNDS + 1
        assert "batch: 40 calls priced at the batch rate" in capsys.readouterr().out

        assert main(run_args(server.base_url, out)) == 0
        assert server.stats() == first  # no upload, no batch, no poll, no chat request


def test_failed_lines_are_retried_in_a_later_batch_and_lost_polls_are_survived(isolated_env: Path) -> None:
    out = isolated_env / "run"
    with ScriptedBatchServer(batch_delay_s=0.1, fail_every=6, drop_polls=2, lifetime_s=600) as server:
        assert main(run_args(server.base_url, out)) == 0
        stats = server.stats()
    check_scored(out)
    batch = json.loads((out / "summary.json").read_text())["this_invocation"]["transport"]["batch"]
    assert batch["failed_lines"] >= 2  # both kinds: a 500 in the output file and an error-file line
    assert stats["lines"] == 40 + batch["failed_lines"]
    assert stats["batches"] <= 2 * ROUNDS + 1 + batch["failed_lines"]


def test_a_killed_run_polls_its_submitted_batch_instead_of_paying_again(isolated_env: Path) -> None:
    out = isolated_env / "run"
    # the first batch completes only once the test says so (below): the kill lands before it, however late
    with ScriptedBatchServer(batch_delay_s=3600.0, lifetime_s=600) as server:
        command = [sys.executable, "-m", "debate_eval.tasks.cli.main", *run_args(server.base_url, out)]
        child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while server.stats()["batches"] < 1 and time.time() < deadline and child.poll() is None:
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)  # after the first batch was submitted, before it completed
        child.wait(timeout=10)
        assert server.stats()["batches"] == 1
        assert not (out / "results.jsonl").exists() or not records(out)  # no item finished
        polls_before = server.stats()["polls"].get("batch_scripted_1", 0)

        server.batch_delay_s = 0.1  # the later batches complete quickly
        assert main(run_args(server.base_url, out)) == 0
        stats = server.stats()
    check_scored(out)
    assert stats["batches"] == 2 * ROUNDS + 1  # the first batch was not submitted again
    assert stats["polls"]["batch_scripted_1"] > polls_before  # the rerun polled it
    assert stats["lines"] == 8 * (2 * ROUNDS + 1)  # nothing answered twice
    batch = json.loads((out / "summary.json").read_text())["this_invocation"]["transport"]["batch"]
    assert batch["resumed"] == 1 and batch["batches"] == 2 * ROUNDS


def test_state_round_trip_and_open_submissions(tmp_path: Path) -> None:
    state = BatchState.load(tmp_path / "batch")
    key = request_key("http://x/v1", {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert key == request_key("http://x/v1", {"messages": [{"content": "hi", "role": "user"}], "model": "m"})
    sub, data = state.prepare("http://x/v1", "m", [{"custom_id": key, "body": {}}])
    state.update(sub, status=SUBMITTED, batch_id="b1")
    again = BatchState.load(tmp_path / "batch")
    assert again.open_submission_of(key).batch_id == "b1"
    assert again.input_file(again.submissions[sub.id]) == data
    again.save_results({key: {"choices": []}})
    again.update(again.submissions[sub.id], status=DONE)
    (tmp_path / "batch" / "results.jsonl").open("a").write('{"key": "cut')  # a line cut by a kill
    third = BatchState.load(tmp_path / "batch")
    assert third.open_submission_of(key) is None and third.results[key] == {"choices": []}


def test_output_lines_map_to_statuses() -> None:
    text = "\n".join(
        [
            json.dumps({"custom_id": "a", "response": {"status_code": 200, "body": {"x": 1}}}),
            json.dumps({"custom_id": "b", "response": None, "error": {"code": "batch_expired", "message": "late"}}),
            json.dumps({"custom_id": "c", "response": None, "error": {"code": "invalid_request", "message": "no"}}),
            "not json",
        ]
    )
    found = parse_output(text)
    assert found["a"].status == 200 and found["b"].status == 503 and found["c"].status == 400
    assert "batch_expired" in line_outcome({"error": {"code": "batch_expired"}}).body["error"]["message"]


def test_batch_refuses_the_embedded_model(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--batch", "--no-progress"])
    assert code != 0
    assert "--batch needs an endpoint with the Batch API routes" in capsys.readouterr().err
