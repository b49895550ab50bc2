"""``debate-eval run`` end to end against a scripted OpenAI-compatible server on 127.0.0.1.

Covers: results/config/summary files and transcripts, no secret anywhere, resume and cache (a rerun makes
no model call), refusal of a different configuration, transient faults retried, a permanent error failing
only its item, a hang past the timeout, each protocol's message flow, and bad input giving one clear line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import Fault, ScriptedOpenAIServer, role_of_request
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.datasets import load_items

SECRET = "sk-test-SECRET-0123456789abcdef"
RESULT_FIELDS = {
    "item_id",
    "dataset",
    "aspect",
    "group_id",
    "system_id",
    "human_score",
    "score",
    "parse_status",
    "agreed",
    "rounds",
    "usage",
    "transcript",
}


def run_cli(server: ScriptedOpenAIServer, out: Path, *extra: str, limit: int = 3) -> int:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(limit)]
    args += ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress", *extra]
    return main(args)


def read_records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_run_writes_results_config_and_transcripts(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out) == 0
        calls = server.count
    records = read_records(out)
    assert len(records) == 3 and all(set(r) >= RESULT_FIELDS for r in records)
    first = records[0]
    assert first["dataset"] == "summeval" and first["method"] == "debate" and first["score"] == 3
    assert first["group_id"] == first["item_id"].split("/")[0] and first["human_score"] is not None
    assert first["rounds"] == 2 and first["agreed"] is False and first["parse_method"] == "labelled"
    assert [e["role"] for e in first["transcript"]] == [
        "commander", "scorer", "commander", "critic", "commander", "scorer", "commander", "critic",
        "commander", "scorer",
    ]  # fmt: skip
    assert first["usage"]["scorer"]["calls"] == 3 and first["usage"]["critic"]["calls"] == 2
    assert calls == 1 + 3 * 5  # the preflight request, then 5 calls per debate
    config = json.loads((out / "config.json").read_text())
    assert config["result_config"]["debate"]["critic"]["name"] == "devils-advocate"
    assert config["result_config"]["models"]["scorer"]["sampling"]["temperature"] == 0.0
    assert config["models"]["roles"]["scorer"]["api_key"] == "$OPENAI_API_KEY"
    for name in ("config.json", "results.jsonl", "summary.json"):
        assert SECRET not in (out / name).read_text(), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["finished"] == 3 and summary["llm_calls"] == 15 and summary["cached_calls"] == 0


def read_summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def test_rerun_resumes_and_makes_no_model_call(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DEBATE_EVAL_PRICES", str(isolated_env / "prices.csv"))
    (isolated_env / "prices.csv").write_text("model,input_per_million,output_per_million\nscripted,1000000,0\n")
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, limit=2) == 0
        before = server.count
        first = read_summary(out)
        assert run_cli(server, out, limit=2) == 0  # a finished run: nothing to do
        assert server.count == before
        noop = read_summary(out)  # the run's totals stay; this invocation made no call
        assert (noop["items"], noop["llm_calls"], noop["usage"]) == (2, 10, first["usage"])
        assert noop["estimated_cost_usd"] == first["estimated_cost_usd"] > 0
        assert noop["this_invocation"]["llm_calls"] == 0 and noop["this_invocation"]["already_done"] == 2
        assert noop["this_invocation"]["estimated_cost_usd"] == 0
        assert run_cli(server, out, limit=3) == 0  # extended by one item only
        assert server.count == before + 1 + 5
        extended = read_summary(out)
        printed = capsys.readouterr().out.strip().split("summeval/coherence")[-1]
        fresh = isolated_env / "fresh"  # another directory, same settings: everything from the cache
        assert run_cli(server, fresh, "--no-preflight", limit=3) == 0
        assert server.count == before + 6
    assert len(read_records(out)) == 3 and len({r["item_id"] for r in read_records(out)}) == 3
    cached = read_records(fresh)
    assert all(r["llm_calls"] == 0 and r["cached_calls"] == 5 for r in cached)
    assert (extended["items"], extended["finished"], extended["llm_calls"]) == (3, 3, 15)
    assert extended["estimated_cost_usd"] > first["estimated_cost_usd"]
    assert extended["this_invocation"]["llm_calls"] == 5 and extended["this_invocation"]["attempted"] == 1
    assert "this invocation: 1 finished, 0 failed" in printed and "5 model calls" in printed
    assert "run totals (3 items in results.jsonl): 3 finished" in printed and "15 to the model" in printed
    assert [e["cached"] for e in cached[0]["transcript"] if e["role"] == "scorer"] == [True, True, True]


def test_no_cache_calls_the_model_again(isolated_env: Path) -> None:
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, isolated_env / "a", "--no-preflight", limit=1) == 0
        assert run_cli(server, isolated_env / "b", "--no-preflight", "--no-cache", limit=1) == 0
        assert server.count == 10


def test_a_different_configuration_is_refused(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, limit=1) == 0
        assert run_cli(server, out, "--max-rounds", "1", limit=1) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "different configuration" in err[0] and "max_rounds" in err[0]


def test_a_refused_rerun_shows_the_short_values_that_differ(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, limit=1) == 0
        assert run_cli(server, out, "--max-rounds", "1", "--critic", "plain", limit=1) == 2
    err = capsys.readouterr().err.strip()
    assert "debate.max_rounds (2 in the run, 1 now)" in err  # the default, then the flag
    assert 'debate.critic.name ("devils-advocate" in the run, "plain" now)' in err
    assert "debate.critic.text," in err  # a prompt's text is only named


def test_a_failed_endpoint_check_does_not_lock_the_output_folder(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--out", str(out)]
    dead = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
    assert main([*args, "--base-url", dead, "--model", "scripted", "--no-progress", "--max-retries", "0"]) == 2
    assert "127.0.0.1:9" in capsys.readouterr().err
    with ScriptedOpenAIServer() as server:  # the corrected endpoint, same --out: no results yet, so no refusal
        assert run_cli(server, out, limit=1) == 0
    assert len(read_records(out)) == 1


def test_transient_faults_retry_and_a_permanent_error_fails_only_its_item(
    isolated_env: Path, shared_data_dir: Path
) -> None:
    items = load_items("summeval", shared_data_dir)
    poisoned = items[1].inputs["Summary"]
    out = isolated_env / "run"
    faults = [Fault(status=429, retry_after=0.01), Fault(status=500)]
    server = ScriptedOpenAIServer(faults=list(faults), fail_if_contains={poisoned: 400}).start()
    assert run_cli(server, out, "--concurrency", "1", "--no-preflight") == 1  # failures give exit 1
    records = {r["item_id"]: r for r in read_records(out)}
    failed = records[items[1].item_id]
    assert failed["score"] is None and failed["parse_status"] == "error" and "BadRequestError" in failed["error"]
    assert records[items[0].item_id]["score"] == 3 and records[items[2].item_id]["score"] == 3
    summary = json.loads((out / "summary.json").read_text())
    assert summary["this_invocation"]["transport"]["retries_by_reason"] == {"429": 1, "5xx": 1}
    assert summary["failed"] == 1 and summary["finished"] == 2

    server.fail_if_contains.clear()  # the endpoint recovers: the rerun retries the failed item only
    before = server.count
    assert run_cli(server, out, "--no-preflight") == 0
    assert server.count == before + 5
    server.stop()
    records_after = read_records(out)
    assert len(records_after) == 3 and not any(r["error"] for r in records_after)


def test_a_failed_item_keeps_the_calls_it_made_before_failing(isolated_env: Path) -> None:
    out = isolated_env / "run"
    # the Scorer answers, then every Critic request is refused: the debate fails after one model call
    with ScriptedOpenAIServer(fail_if_contains={"play a Devil": 400}) as server:
        assert run_cli(server, out, "--no-preflight", limit=1) == 1
        assert server.count == 2
    (record,) = read_records(out)
    assert record["error"] and "BadRequestError" in record["error"]
    assert record["llm_calls"] == 1 and record["cached_calls"] == 0
    assert record["usage"]["scorer"]["calls"] == 1 and record["usage"]["scorer"]["billed_prompt_tokens"] > 0
    summary = read_summary(out)
    assert summary["failed"] == 1 and summary["llm_calls"] == 1 and summary["usage"]["scorer"]["calls"] == 1
    assert summary["this_invocation"]["llm_calls"] == 1


def test_credentials_in_the_base_url_are_written_nowhere(isolated_env: Path) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        url = server.base_url.replace("http://", f"http://alice:{SECRET}@")
        assert main(["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--no-progress"]
                    + ["--base-url", url, "--model", "scripted", "--out", str(out)]) == 0  # fmt: skip
    config = json.loads((out / "config.json").read_text())
    assert config["models"]["roles"]["scorer"]["base_url"] == server.base_url
    for name in ("config.json", "results.jsonl", "summary.json"):
        assert SECRET not in (out / name).read_text(), name


def test_a_hang_past_the_timeout_is_retried(isolated_env: Path) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer(faults=[Fault(hang_s=10.0)]) as server:  # the other calls, even slow, are in time
        assert run_cli(server, out, "--timeout", "2", "--no-preflight", limit=1) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["this_invocation"]["transport"]["retries_by_reason"] == {"timeout": 1}
    assert summary["this_invocation"]["retries"] == 1


def system_messages_by_role(server: ScriptedOpenAIServer) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for request in server.requests:
        system = next((m["content"] for m in request["messages"] if m["role"] == "system"), "")
        seen.setdefault(role_of_request(request), set()).add(system)
    return seen


@pytest.mark.parametrize(
    ("protocol", "critic_start", "calls_per_item", "tiebreaker"),
    [
        ("debate", "Your role is to play a Devil's Advocate.", 5, False),
        ("multiagent", "Do you think this score is really accurate?", 5, False),
        ("tiebreaker", "Do you think this score is really accurate?", 6, True),
        ("both", "Your role is to play a Devil's Advocate.", 6, True),
    ],
)
def test_each_protocol_staffs_the_debate_as_the_paper(
    isolated_env: Path, protocol: str, critic_start: str, calls_per_item: int, tiebreaker: bool
) -> None:
    out = isolated_env / protocol
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--protocol", protocol, "--no-preflight", limit=2) == 0
        assert server.count == 2 * calls_per_item
        systems = system_messages_by_role(server)
    (critic,) = systems["critic"]
    assert critic.startswith(critic_start)
    assert ("tiebreaker" in systems) is tiebreaker
    records = read_records(out)
    if tiebreaker:
        assert all(r["decided_by"] == "TieBreaker" and r["score"] == 2 for r in records)
    else:
        assert all(r["decided_by"] == "Scorer" and r["score"] == 3 for r in records)


def test_geval_makes_one_call_and_weights_by_logprobs(isolated_env: Path) -> None:
    out = isolated_env / "geval"
    # p(3) = 0.5, p(4) = 0.3, p(2) = 0.2 -> expected score 3.1
    logprobs = {"3": -0.6931471805599453, "4": -1.2039728043259361, "2": -1.6094379124341003}
    with ScriptedOpenAIServer(top_logprobs=logprobs) as server:
        assert run_cli(server, out, "--protocol", "geval", "--no-preflight", limit=2) == 0
        assert server.count == 2
        assert all(r.get("logprobs") is True and r.get("top_logprobs") for r in server.requests)
        assert "evaluator" in system_messages_by_role(server)  # G-Eval's single agent has no system message
    for record in read_records(out):
        assert record["details"]["method"] == "logprob_weighted"
        assert record["score"] == pytest.approx(3.1)
        assert [e["role"] for e in record["transcript"]] == ["user", "evaluator"]


def test_geval_falls_back_to_the_parsed_score_without_logprobs(isolated_env: Path) -> None:
    out = isolated_env / "geval"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--protocol", "geval", "--geval-no-logprobs", "--no-preflight", limit=1) == 0
        assert "logprobs" not in server.requests[0]
    (record,) = read_records(out)
    assert record["details"]["method"] == "parsed" and record["score"] == 3


def test_show_prints_the_transcript(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--no-preflight", limit=1) == 0
    capsys.readouterr()
    assert main(["show", str(out)]) == 0
    assert "1 items" in capsys.readouterr().out
    assert main(["show", str(out), "--item", "1"]) == 0
    text = capsys.readouterr().out
    assert "--- [0] Commander -> Scorer (task)" in text and "--- [3] Critic" in text and "score 3" in text


def test_show_says_how_each_critic_message_was_read(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--no-preflight", limit=1) == 0  # the scripted Critic objects in both rounds
    capsys.readouterr()
    assert main(["show", str(out), "--item", "1"]) == 0
    critic = [line for line in capsys.readouterr().out.splitlines() if re.match(r"--- \[\d+\] Critic ", line)]
    assert len(critic) == 2 and all(line.endswith("read as an objection)") for line in critic), critic
    assert [e["agreed"] for e in read_records(out)[0]["transcript"] if e["role"] == "critic"] == [False, False]


def test_rescore_reparses_stored_answers_without_model_calls(isolated_env: Path) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert run_cli(server, out, "--no-preflight", limit=2) == 0
    results = out / "results.jsonl"
    broken = read_records(out)
    for record in broken:  # what an older, buggy parser might have written
        record.update(score=1.0, parse_status="parsed", parse_method="first_integer")
    results.write_text("".join(json.dumps(r) + "\n" for r in broken), encoding="utf-8")
    assert main(["rescore", str(results)]) == 0
    fixed = read_records(out)
    assert [r["score"] for r in fixed] == [3, 3] and all(r["parse_method"] == "labelled" for r in fixed)
    backups = list(out.glob("results.jsonl.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text().splitlines()[0])["score"] == 1.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dataset", "cnn", "--aspect", "coherence"], "unknown dataset 'cnn'"),
        (["--dataset", "summeval", "--aspect", "humour"], "humour"),
        (["--dataset", "summeval", "--aspect", "coherence", "--critic", "grumpy"], "unknown critic persona 'grumpy'"),
        (["--dataset", "summeval", "--aspect", "coherence", "--data-dir", "/nonexistent"], "/nonexistent"),
        (["--dataset", "summeval", "--aspect", "coherence", "--protocol", "tiebreaker", "--max-rounds", "0"], "round"),
    ],
)
def test_bad_input_gives_one_clear_line(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with ScriptedOpenAIServer() as server:
        code = main(["run", *args, "--limit", "1", "--base-url", server.base_url, "--model", "m", "--out", "o"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("debate-eval: error:") and message in err[0]
    assert "Traceback" not in err[0]


def test_unreachable_endpoint(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--out", "o"]
        + ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "cannot reach the model endpoint http://127.0.0.1:9/v1" in err[0]
    results = isolated_env / "o" / "results.jsonl"
    assert not results.exists() or results.read_text() == ""


def test_a_gguf_with_a_wrong_checksum_is_refused(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("xllamacpp", reason="--gguf needs the [embedded] extra (xllamacpp)")
    gguf = isolated_env / "model.gguf"
    gguf.write_bytes(b"GGUF not really a model")
    code = main(
        ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--out", "o"]
        + ["--gguf", str(gguf), "--gguf-sha256", "0" * 64]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "SHA-256 mismatch" in err[0] and "refusing to load" in err[0]


@pytest.mark.parametrize(
    ("strategy", "calls"), [("one-by-one", 4), ("simultaneous", 4), ("simultaneous-summarizer", 5)]
)
def test_chateval_runs_end_to_end_and_rescores(isolated_env: Path, strategy: str, calls: int) -> None:
    out = isolated_env / strategy
    with ScriptedOpenAIServer() as server:
        assert (
            run_cli(server, out, "--protocol", "chateval", "--chateval-strategy", strategy, "--no-preflight", limit=1)
            == 0
        )
        assert server.count == calls  # the default 2 referees x 2 turns (+ one summary between the turns)
    (record,) = read_records(out)
    assert record["score"] == 4 and record["decided_by"] == "referees" and record["parse_method"] == "referee_mean"
    assert set(record["usage"]) == ({"referee", "summarizer"} if "summarizer" in strategy else {"referee"})
    record.update(score=1.0)
    (out / "results.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    assert main(["rescore", str(out)]) == 0
    assert read_records(out)[0]["score"] == 4
