"""Shards (run --shard K/N) and merge: no item lost or repeated, one configuration, resume after kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.held_replies import HeldReplies

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.backends.shards import in_shard, parse_shard, shard_of

ITEMS = 24


def ids_of(path: Path) -> list[str]:
    return [json.loads(line)["item_id"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def strip_paths(value: object) -> object:
    """A meta-eval report without the fields that name its run directory."""
    if isinstance(value, dict):
        return {k: strip_paths(v) for k, v in value.items() if k not in ("run", "runs", "path", "source", "results")}
    if isinstance(value, list):
        return [strip_paths(v) for v in value]
    return value


def run_args(server: ScriptedOpenAIServer, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(ITEMS), "--method", "geval"]
    args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out)]
    return [*args, "--concurrency", "2", "--no-progress", "--no-preflight", *extra]


def test_parse_shard_counts_from_zero_and_refuses_in_one_line() -> None:
    assert parse_shard("0/4") == (0, 4) and parse_shard(" 3 / 4 ") == (3, 4)
    for bad in ("4/4", "1/0", "-1/3", "a/b", "2"):
        with pytest.raises(UserError, match=r"--shard: expected K/N with 0 <= K < N"):
            parse_shard(bad)


def test_shards_partition_the_ids_by_a_stable_hash() -> None:
    ids = [f"doc{i}-sys{i % 7}" for i in range(2000)]
    shards = [[i for i in ids if in_shard(i, (k, 4))] for k in range(4)]
    assert sorted(i for s in shards for i in s) == sorted(ids)  # none lost, none twice
    assert all(400 < len(s) < 600 for s in shards)  # spread evenly
    # the same in another process (Python's own hash is salted per process; this one is not)
    code = "from debate_eval.tasks.engine.backends.shards import shard_of; "
    code += "print([shard_of(f'doc{i}', 4) for i in range(50)])"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert other.stdout.strip() == str([shard_of(f"doc{i}", 4) for i in range(50)])


def test_shards_merged_equal_the_whole_run(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOpenAIServer() as server:
        assert main(run_args(server, isolated_env / "whole")) == 0
        shard_dirs = [isolated_env / f"s{k}" for k in range(3)]
        for k, out in enumerate(shard_dirs):
            assert main(run_args(server, out, "--shard", f"{k}/3")) == 0
    whole = ids_of(isolated_env / "whole" / "results.jsonl")
    parts = [ids_of(d / "results.jsonl") for d in shard_dirs]
    assert all(parts) and sorted(i for p in parts for i in p) == sorted(whole) and len(whole) == ITEMS
    capsys.readouterr()
    merged = isolated_env / "merged"
    assert main(["merge", str(merged), *map(str, shard_dirs)]) == 0
    assert f"{ITEMS} items ({ITEMS} finished, 0 failed)" in capsys.readouterr().out
    ids = ids_of(merged / "results.jsonl")
    assert sorted(ids) == sorted(whole) and len(set(ids)) == len(ids)
    config = json.loads((merged / "config.json").read_text(encoding="utf-8"))
    whole_config = json.loads((isolated_env / "whole" / "config.json").read_text())
    assert config["config_hash"] == whole_config["config_hash"]
    # the run options are the whole run's (no shard, one worker), but the directory
    assert {**config["run_options"], "out_dir": None} == {**whole_config["run_options"], "out_dir": None}
    summary = json.loads((merged / "summary.json").read_text())
    whole_summary = json.loads((isolated_env / "whole" / "summary.json").read_text())
    assert summary["finished"] == ITEMS
    # the whole run's summary fields; no this_invocation (a merge makes no model call), and where it came from
    assert set(summary) == set(whole_summary) - {"this_invocation"} | {"merged_from"}
    # the merged directory reads as any run: the same correlations as the whole run
    assert main(["meta-eval", str(merged), "--json"]) == 0
    merged_report = json.loads(capsys.readouterr().out)
    assert main(["meta-eval", str(isolated_env / "whole"), "--json"]) == 0
    assert strip_paths(json.loads(capsys.readouterr().out)) == strip_paths(merged_report)
    assert main(["show", str(merged)]) == 0
    import debate_eval  # and the Python API reads it as any run

    assert sorted(record.item_id for record in debate_eval.load_run(merged).records) == sorted(whole)
    # a merge into a directory that holds results is refused; the shards stay as they are
    assert main(["merge", str(merged), *map(str, shard_dirs)]) == 2
    assert "already holds results.jsonl" in capsys.readouterr().err


def test_an_item_in_two_shards_counts_once_and_a_failed_line_is_superseded(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAIServer() as server:
        a, b = isolated_env / "a", isolated_env / "b"
        assert main(run_args(server, a, "--shard", "0/2")) == 0
        assert main(run_args(server, b, "--shard", "1/2")) == 0
    lines_a = (a / "results.jsonl").read_text(encoding="utf-8").splitlines()
    lines_b = (b / "results.jsonl").read_text(encoding="utf-8").splitlines()
    # b also holds a failed line of an item a finished, and a repeat of a's first item (finished)
    failed = {**json.loads(lines_a[1]), "error": "ServerError: 500", "score": None}
    with (b / "results.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(failed) + "\n" + lines_a[0] + "\n")
    # and a's own file: a failed line first for one of b's items, then (in b) its finished line
    with (a / "results.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({**json.loads(lines_b[0]), "error": "Timeout", "score": None}) + "\n")
    capsys.readouterr()
    assert main(["merge", str(isolated_env / "m"), str(a), str(b)]) == 0
    out = capsys.readouterr().out
    records = [json.loads(x) for x in (isolated_env / "m" / "results.jsonl").read_text().splitlines()]
    ids = [r["item_id"] for r in records]
    assert len(ids) == len(set(ids)) == len(lines_a) + len(lines_b)
    assert all(r["error"] is None for r in records)
    assert "1 repeated finished lines counted once" in out and "2 failed lines superseded" in out


def test_a_merge_of_two_configurations_is_refused_naming_the_difference(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAIServer() as server:
        assert main(run_args(server, isolated_env / "a", "--shard", "0/2")) == 0
        assert main(run_args(server, isolated_env / "b", "--shard", "1/2", "--temperature", "0.5")) == 0
    capsys.readouterr()
    assert main(["merge", str(isolated_env / "m"), str(isolated_env / "a"), str(isolated_env / "b")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holds another configuration" in err and "temperature" in err
    assert not (isolated_env / "m" / "results.jsonl").exists()


def test_a_shard_still_running_is_not_merged(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A merge given a shard whose run still holds its lock refuses in one line, rather than merging part of it."""
    from debate_eval.tasks.engine.lock import RunLock

    shards = [isolated_env / "a", isolated_env / "b"]
    with ScriptedOpenAIServer() as server:
        for k, out in enumerate(shards):
            assert main(run_args(server, out, "--shard", f"{k}/2")) == 0
    capsys.readouterr()
    merged = isolated_env / "m"
    with RunLock(shards[1]):  # as a run of shard 1 still at work holds it
        assert main(["merge", str(merged), *map(str, shards)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith(f"debate-eval: error: {shards[1]} is still being written")
    assert f"pid {os.getpid()} on host" in err and not (merged / "results.jsonl").exists()
    assert main(["merge", str(merged), *map(str, shards)]) == 0  # once it has ended
    assert len(ids_of(merged / "results.jsonl")) == ITEMS


def test_a_refused_merge_shows_each_shards_value(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOpenAIServer() as server:
        assert main(run_args(server, isolated_env / "a", "--shard", "0/2")) == 0
        assert main(run_args(server, isolated_env / "b", "--shard", "1/2", "--geval-no-logprobs")) == 0
    capsys.readouterr()
    assert main(["merge", str(isolated_env / "m"), str(isolated_env / "a"), str(isolated_env / "b")]) == 2
    assert "geval.use_logprobs (true in a, false in b)" in capsys.readouterr().err


def test_shard_flag_errors_are_one_line(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--dataset", "summeval", "--aspect", "coherence", "--shard", "3/3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err] and "--shard: expected K/N" in err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_shard_killed_with_sigkill_resumes_and_merges_without_loss(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard_dirs = [isolated_env / "s0", isolated_env / "s1"]
    replies = HeldReplies()
    with ScriptedOpenAIServer(latency_s=0.05, reply=replies) as server:
        assert main(run_args(server, shard_dirs[0], "--shard", "0/2")) == 0
        args = run_args(server, shard_dirs[1], "--shard", "1/2")
        # the gate: the shard's fifth call is held (G-Eval: one call an item); at concurrency 2 a fifth call
        # goes out only once three items have finished and been written, and with no further answer at most
        # four items can finish, however late the kill lands
        replies.hold_after(4)
        process = subprocess.Popen(
            [sys.executable, "-m", "debate_eval.tasks.cli.main", *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        assert replies.wait_holding(), "the shard should have reached its fifth call"
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        replies.release()
        results = shard_dirs[1] / "results.jsonl"
        done_before = len(ids_of(results)) if results.exists() else 0
        expected = ITEMS - len(ids_of(shard_dirs[0] / "results.jsonl"))  # shard 1's items
        assert 3 <= done_before < expected, "the shard should have been killed mid-way"
        capsys.readouterr()
        assert main(args) == 0  # the same command resumes the shard
        assert f"{expected} items selected, {done_before} already done" in capsys.readouterr().out
        assert len(ids_of(results)) == len(set(ids_of(results))) == expected
    assert main(["merge", str(isolated_env / "m"), *map(str, shard_dirs)]) == 0
    ids = ids_of(isolated_env / "m" / "results.jsonl")
    assert len(ids) == len(set(ids)) == ITEMS


#: per million tokens; no cached-input column, so a cached prompt token costs as any prompt token
PRICES = "model,input_per_million,output_per_million\nscripted,3,15\nscripted-critic,0.5,2\n"


def debate_args(server: ScriptedOpenAIServer, out: Path, critic: str, *extra: str) -> list[str]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "6", "--method", "debate"]
    args += ["--base-url", server.base_url, "--model", "scripted", "--role-model", f"critic={critic}"]
    return [*args, "--out", str(out), "--no-cache", "--no-progress", "--no-preflight", *extra]


def priced_by_hand(results: Path) -> float:
    """The run's dollars from its records' tokens per role and the PRICES table, summed by hand."""
    per_million = {"scorer": (3, 15), "critic": (0.5, 2)}
    total = 0.0
    for line in results.read_text(encoding="utf-8").splitlines():
        for role, usage in json.loads(line)["usage"].items():
            prompt, completion = per_million[role]
            total += (usage["billed_prompt_tokens"] * prompt + usage["billed_completion_tokens"] * completion) / 1e6
    return total


@pytest.mark.parametrize("critic", ["scripted-critic", "unpriced-critic"])
def test_a_merged_run_is_priced_as_the_same_run_in_one_process(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, critic: str
) -> None:
    (isolated_env / "prices.csv").write_text(PRICES, encoding="utf-8")
    monkeypatch.setenv("DEBATE_EVAL_PRICES", str(isolated_env / "prices.csv"))
    shard_dirs = [isolated_env / f"s{k}" for k in range(2)]
    with ScriptedOpenAIServer() as server:
        assert main(debate_args(server, isolated_env / "whole", critic)) == 0
        assert main(debate_args(server, isolated_env / "workers", critic, "--workers", "2")) == 0
        for k, out in enumerate(shard_dirs):
            assert main(debate_args(server, out, critic, "--shard", f"{k}/2")) == 0
    assert main(["merge", str(isolated_env / "merged"), *map(str, shard_dirs)]) == 0
    summaries = [json.loads((isolated_env / d / "summary.json").read_text()) for d in ("whole", "workers", "merged")]
    whole, workers, merged = summaries
    assert merged["usage"] == workers["usage"] == whole["usage"] and set(whole["usage"]) == {"scorer", "critic"}
    assert merged["estimated_cost_usd"] == workers["estimated_cost_usd"] == whole["estimated_cost_usd"]
    if critic == "unpriced-critic":  # a model without a price: no made-up cost, in one process or merged
        assert merged["estimated_cost_usd"] is None
    else:
        assert merged["usage"]["critic"]["billed_completion_tokens"] > 0
        assert merged["estimated_cost_usd"] == pytest.approx(priced_by_hand(isolated_env / "merged" / "results.jsonl"))
