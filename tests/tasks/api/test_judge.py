"""``debate_eval.Judge``: typed judgments from ``score`` / ``compare`` (and their async twins, ``score_many``,
inside a running loop), nothing written without ``record_to``, resume with it, one rate limiter per endpoint
shared by two judges, and a cancelled call that leaves no half-written line. Against the scripted provider
and local test servers (127.0.0.1)."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import tempfile
import threading
from pathlib import Path

import pytest
from support.rate_limited_server import Latency, RateLimitedServer

import debate_eval
from debate_eval import UserError
from debate_eval.agents.models.providers.scripted_server import Fault, ScriptedOpenAIServer, default_reply
from debate_eval.agents.models.shared_limits import limiter_key, shared_limiters

CRITERIA = "Is the summary faithful to the article?"
SOURCE = "The council met on Monday and approved the budget."


def test_typed_judgments(api_env: Path) -> None:
    with debate_eval.Judge(criteria=CRITERIA, provider="scripted") as judge:  # DEBATE, scale 1-5
        judgment = judge.score("The budget was approved.", source=SOURCE, id="a")
        pair = judge.compare("Yes.", "No.", question="Was the budget approved?", swap=True)
    assert isinstance(judgment, debate_eval.Judgment) and judgment.ok and judgment.id == "a"
    assert (judgment.method, judgment.aspect, judgment.scale) == ("debate", "coherence", (1.0, 5.0))
    assert judgment.score == pytest.approx(3.0) and judgment.normalized_score == pytest.approx(0.5)
    assert judgment.parse_status == "parsed" and judgment.rounds == 2 and judgment.agreed is False
    assert all(isinstance(m, debate_eval.Message) for m in judgment.messages) and len(judgment.messages) > 2
    assert judgment.rationale in [m.content for m in judgment.messages]
    assert judgment.prompt_tokens > 0 and judgment.completion_tokens > 0 and judgment.error is None
    assert isinstance(pair, debate_eval.PairJudgment) and pair.verdict in ("first", "second", "tie")
    assert len(pair.verdicts) == 2 and isinstance(pair.consistent, bool) and pair.id.startswith("sha256:")
    with pytest.raises(Exception, match=r"frozen|cannot assign"):
        judgment.score = 5.0  # type: ignore[misc]


def test_async_twins_score_many_and_a_running_loop(api_env: Path) -> None:
    judge = debate_eval.Judge(method="geval", criteria=CRITERIA, provider="scripted")

    async def notebook_cell() -> list[debate_eval.Judgment]:
        blocking = judge.score("Approved.", source=SOURCE)  # a sync call while this thread's loop runs
        awaited = await judge.score_async("Approved.", source=SOURCE)
        return [blocking, awaited]

    try:
        first, second = asyncio.run(notebook_cell())
        assert first.score == second.score == pytest.approx(3.0) and first.id == second.id
        rows = [{"output": f"Summary {i}.", "source": SOURCE, "id": f"r{i}"} for i in range(5)]
        many = judge.score_many([*rows, "A bare output."], concurrency=3)
        assert [j.id for j in many[:5]] == [f"r{i}" for i in range(5)] and all(j.ok for j in many)
        with pytest.raises(UserError, match=r"row 1 \(counted from 1\): unknown key\(s\) human"):
            judge.score_many([{"output": "x", "human": 3}])
        with pytest.raises(UserError, match=r"^score_many: rows is one text, not a list of them"):
            judge.score_many("A bare output.")  # was judged as one row per character
        with pytest.raises(UserError, match=r"^Judge.score: output must be text, got NoneType$"):
            judge.score(None)  # type: ignore[arg-type]  # was: the template's '{{output}}' had no value
    finally:
        judge.close()
    judge.close()  # idempotent
    with pytest.raises(UserError, match="this Judge is closed"):
        judge.score("late")


def test_a_config_file_under_the_keywords(api_env: Path) -> None:
    (api_env / "judge.toml").write_text('method = "geval"\nmax_tokens = 64\n', encoding="utf-8")
    with debate_eval.Judge(method=None, criteria=CRITERIA, provider="scripted", config="judge.toml") as judge:
        assert judge.score("Approved.", source=SOURCE).method == "geval"
    with debate_eval.Judge(criteria=CRITERIA, provider="scripted", config="judge.toml", max_rounds=1) as judge:
        judgment = judge.score("Approved.", source=SOURCE)  # the keyword's default method wins over the file's
    assert (judgment.method, judgment.rounds) == ("debate", 1)


def test_options_are_checked_when_the_judge_is_built(api_env: Path) -> None:
    with pytest.raises(UserError, match="unknown method"):
        debate_eval.Judge(method="nope", criteria=CRITERIA, provider="scripted")
    judge = debate_eval.Judge(method="geval", provider="scripted")  # no criteria: compare works, score says why
    try:
        with pytest.raises(UserError, match='score\\(\\) needs criteria="one sentence'):
            judge.score("x")
        assert judge.compare("a", "b").ok
    finally:
        judge.close()


def test_nothing_is_written_without_record_to(api_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = api_env / "tmp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    before = sorted(p.name for p in api_env.iterdir())
    with debate_eval.Judge(method="geval", criteria=CRITERIA, provider="scripted", no_cache=True) as judge:
        assert judge.score("Approved.", source=SOURCE).ok and judge.compare("a", "b").ok
    assert sorted(p.name for p in api_env.iterdir()) == before and list(temp.iterdir()) == []


def test_record_to_appends_and_resumes(api_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    options = {"method": "geval", "criteria": CRITERIA, "model": "m", "no_preflight": True, "record_to": "judged"}
    with ScriptedOpenAIServer() as server:
        with debate_eval.Judge(base_url=server.base_url, **options) as judge:
            made = [judge.score(f"Summary {i}.", source=SOURCE, id=f"i{i}") for i in range(3)]
            calls = server.count
            with pytest.raises(UserError, match="records judgments of one configuration"):
                judge.score("No source given.", id="other")  # another prompt: another configuration
        assert calls == 3
        with debate_eval.Judge(base_url=server.base_url, **options) as judge:
            again = [judge.score(f"Summary {i}.", source=SOURCE, id=f"i{i}") for i in range(3)]
            assert server.count == calls  # answered from the run directory: no model call
            with pytest.raises(UserError, match="id 'i1' was judged on other inputs"):
                judge.score("Something else.", source=SOURCE, id="i1")
            judge.score("Summary 3.", source=SOURCE, id="i3")
            assert server.count == calls + 1
    assert [(j.id, j.score) for j in again] == [(j.id, j.score) for j in made]
    lines = (api_env / "judged" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["item_id"] for line in lines] == ["i0", "i1", "i2", "i3"]
    assert json.loads((api_env / "judged" / "summary.json").read_text(encoding="utf-8"))["items"] == 4
    run = debate_eval.load_run("judged")
    assert len(run.records) == 4 and run.records[0].score == pytest.approx(3.0)
    from debate_eval.tasks.cli.main import main

    capsys.readouterr()
    assert main(["show", "judged"]) == 0 and "4 items" in capsys.readouterr().out
    assert main(["meta-eval", "judged"]) == 2  # judgments carry no human rating
    assert main(["report", "judged", "--out", "judged.html"]) == 0


def test_two_judges_on_one_endpoint_share_one_limiter(api_env: Path) -> None:
    with RateLimitedServer(rpm=4, window_s=8.0, latency=Latency(0.0, 0.0)) as server:
        options = {"method": "geval", "criteria": CRITERIA, "model": "m", "no_preflight": True, "no_cache": True}
        with (
            debate_eval.Judge(base_url=server.base_url, **options) as first,
            debate_eval.Judge(base_url=server.base_url, aspect="fluency", **options) as second,
        ):
            for i in range(4):  # the endpoint's whole budget; its headers say so
                assert first.score(f"Summary {i}.", source=SOURCE).ok
            assert second.score("Another summary.", source=SOURCE).ok  # waits for the budget, is not refused
            limiters = {key: limiter for key, limiter in shared_limiters().items() if key[1] == server.base_url}
        assert len(limiters) == 1  # one budget for both judges (same endpoint, model and no key)
        ((key, limiter),) = limiters.items()
        assert key == ("openai", server.base_url, "m", "") and "sk-" not in repr(key)
        assert limiter.stats.calls == server.stats.requests == 5 and server.stats.rate_limited == 0


def test_the_limiter_key_fingerprints_the_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_eval.agents.models.settings import ModelSettings

    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-secret-value-1")
    settings = ModelSettings("openai", "m", base_url="http://127.0.0.1:9/v1", api_key_env="JUDGE_TEST_KEY")
    key = limiter_key(settings, "http://user:pw@127.0.0.1:9/v1")
    assert "sk-secret-value-1" not in repr(key) and "pw" not in key[1] and len(key[3]) == 16
    monkeypatch.setenv("JUDGE_TEST_KEY", "sk-secret-value-2")
    assert limiter_key(settings, "http://127.0.0.1:9/v1")[3] != key[3]  # another key, another budget


def test_a_cancelled_call_leaves_nothing_half_written(api_env: Path) -> None:
    release = threading.Event()

    def held(request: dict) -> str:
        if "Held summary." in json.dumps(request):
            release.wait(timeout=30)  # bounded: the test releases it as soon as the call is cancelled
        return default_reply(request)

    options = {"method": "geval", "criteria": CRITERIA, "model": "m", "no_preflight": True, "no_cache": True}

    async def scenario(base_url: str, server: ScriptedOpenAIServer) -> None:
        async with debate_eval.Judge(base_url=base_url, record_to="judged", **options) as judge:
            assert (await judge.score_async("Quick summary.", source=SOURCE, id="done")).ok
            call = asyncio.create_task(judge.score_async("Held summary.", source=SOURCE, id="held"))
            for _ in range(3000):  # until the server holds the call (bounded)
                if server.count >= 2:
                    break
                await asyncio.sleep(0.01)
            assert server.count == 2
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            release.set()
            lines = (api_env / "judged" / "results.jsonl").read_text(encoding="utf-8").splitlines()
            assert [json.loads(line)["item_id"] for line in lines] == ["done"]
            assert (await judge.score_async("Held summary.", source=SOURCE, id="held")).ok  # a new call, whole

    with ScriptedOpenAIServer(reply=held) as server:
        asyncio.run(scenario(server.base_url, server))
    lines = (api_env / "judged" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["item_id"] for line in lines] == ["done", "held"]


def test_the_endpoint_is_checked_once_at_the_first_call(api_env: Path) -> None:
    with ScriptedOpenAIServer() as server:
        options = {"method": "geval", "criteria": CRITERIA, "model": "m", "no_cache": True}
        judge = debate_eval.Judge(base_url=server.base_url, **options)
        assert server.count == 0  # built: no request yet
        with judge:
            judgments = [judge.score(f"Summary {i}.", source=SOURCE) for i in range(4)]
        assert all(j.ok for j in judgments)
        assert server.count == 1 + 4  # one endpoint check, then one call an item (G-Eval)


def test_judgments_name_their_system_and_the_summary_compares_systems(api_env: Path) -> None:
    # the planted length judge scores by length: the system writing longer outputs must win every pair
    options = {"method": "geval", "criteria": CRITERIA, "provider": "scripted", "model": "planted-length"}
    rows = []
    for number in range(12):
        source = f"{SOURCE} Item {number}."
        rows.append({"output": "Approved.", "source": source, "system": "terse"})
        rows.append({"output": " ".join(["The council approved the budget"] * 5), "source": source, "system": "full"})
    with debate_eval.Judge(record_to="systems", **options) as judge:
        judgments = judge.score_many(rows, concurrency=4)
        single = judge.score("Approved.", source=SOURCE, system="terse", id="one")
    assert [j.system for j in judgments] == [row["system"] for row in rows] and single.system == "terse"
    assert len({j.id for j in judgments}) == len(rows)  # the same source, two systems: two items
    summary = json.loads((api_env / "systems" / "summary.json").read_text(encoding="utf-8"))
    (block,) = summary["systems"].values()
    assert set(block["systems"]) == {"terse", "full"}
    assert block["systems"]["full"]["mean"] > block["systems"]["terse"]["mean"]
    (pair,) = block["pairs"]
    assert {pair["wins"], pair["losses"]} == {12, 0} and pair["ties"] == 0  # paired on the 12 shared sources


def test_a_judgment_an_older_parser_stored_is_read_again(api_env: Path) -> None:
    """A ``record_to`` directory written by an older parser: the stored judgment is read again from its
    transcript as this version reads it (no model call), returned, and appended so the directory agrees."""
    from debate_eval.debates.scoring import PARSER_VERSION

    options = {"method": "geval", "criteria": CRITERIA, "model": "m", "no_preflight": True, "record_to": "older"}
    options["geval_no_logprobs"] = True  # a parsed score (a weighted one keeps its value when read again)
    results = api_env / "older" / "results.jsonl"
    with ScriptedOpenAIServer() as server:
        with debate_eval.Judge(base_url=server.base_url, **options) as judge:
            first = judge.score("Summary.", source=SOURCE, id="s")
        line = json.loads(results.read_text(encoding="utf-8"))
        assert line["score"] == first.score == pytest.approx(3) and line["parser_version"] == PARSER_VERSION
        line.update(score=1.0, parse_method="older_rule", parser_version=PARSER_VERSION - 1)
        for entry in line["transcript"]:
            if isinstance(entry.get("score"), dict):
                entry["score"] = {**entry["score"], "value": 1.0, "method": "older_rule"}
        results.write_text(json.dumps(line) + "\n", encoding="utf-8")
        calls = server.count
        with debate_eval.Judge(base_url=server.base_url, **options) as judge:
            again = judge.score("Summary.", source=SOURCE, id="s")
            assert server.count == calls  # read again, not judged again
            assert judge.score("Summary.", source=SOURCE, id="s") == again  # the appended line is found next
        assert server.count == calls
    assert again == first  # every field as the first reading, score and how it was parsed included
    lines = [json.loads(text) for text in results.read_text(encoding="utf-8").splitlines()]
    read = [(x["score"], x["parser_version"]) for x in lines]
    assert read == [(1.0, PARSER_VERSION - 1), (first.score, PARSER_VERSION)]
    assert [record.score for record in debate_eval.load_run("older").records] == [first.score]


def test_the_first_error_in_score_many_stops_its_other_calls(api_env: Path) -> None:
    options = {"method": "geval", "criteria": CRITERIA, "provider": "scripted", "record_to": "judged"}
    with debate_eval.Judge(**options) as judge:
        judge.score("The first text.", source=SOURCE, id="taken")
    rows = [{"output": f"Summary {i}.", "source": SOURCE, "id": f"r{i}"} for i in range(30)]
    rows.insert(0, {"output": "Another text.", "source": SOURCE, "id": "taken"})
    with debate_eval.Judge(**options) as judge:
        with pytest.raises(UserError, match="id 'taken' was judged on other inputs"):
            judge.score_many(rows, concurrency=1)  # row 1 fails first; the 30 waiting calls are cancelled
        judge.score_many([{"output": "Later.", "source": SOURCE, "id": "later"}])  # the loop runs on
    lines = (api_env / "judged" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["item_id"] for line in lines] == ["taken", "later"]  # was: r0, r1, ... judged too


def test_a_judge_opens_its_models_with_the_run_options(api_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = {"method": "geval", "criteria": CRITERIA, "model": "m", "no_cache": True}
    rows = [{"source": SOURCE, "output": "Approved."}]
    monkeypatch.setenv("DEBATE_EVAL_SESSION_KEYS", "0")  # as for a run: no session key header
    with ScriptedOpenAIServer() as server:
        debate_eval.evaluate(rows, aspect="coherence", scale="1-5", base_url=server.base_url, **options)
        with debate_eval.Judge(base_url=server.base_url, **options) as judge:
            assert judge.score("Approved.", source=SOURCE).ok
        assert len(server.requests) == 4  # each: the endpoint check, then the item's one call
        assert server.requests[1] == server.requests[3]  # the same request for the same item
        assert not any("x-session-id" in headers for headers in server.headers)  # was: the judge sent it
    monkeypatch.delenv("DEBATE_EVAL_SESSION_KEYS")
    with ScriptedOpenAIServer() as server:
        judge = debate_eval.Judge(base_url=server.base_url, max_answer_bytes=8, **options)
        with judge, pytest.raises(UserError, match="over the cap of 8 bytes per answer"):
            judge.score("Approved.", source=SOURCE)  # was: the cap given was not applied


@pytest.mark.parametrize(
    ("option", "instead"),
    [
        ("limit", "give the texts to score()"),
        ("out", "record_to=DIR"),
        ("swap", "compare(..., swap=True)"),
        ("workers", "in this process"),
        ("progress", "score_many(..., progress=True)"),
    ],
)
def test_a_run_option_a_judge_has_no_use_for_is_refused(api_env: Path, option: str, instead: str) -> None:
    with pytest.raises(UserError) as refused:  # was: ignored
        debate_eval.Judge(method="geval", criteria=CRITERIA, provider="scripted", **{option: "x"})
    assert str(refused.value).startswith(f"Judge(): {option} is an option of a run over a dataset, not of a judge: ")
    assert instead in str(refused.value)


def test_refusals_name_the_judge_s_own_words(api_env: Path) -> None:
    with debate_eval.Judge(method="dialevalml", criteria=CRITERIA, provider="scripted") as judge:
        assert judge.score("Approved.", source=SOURCE).ok
        with pytest.raises(UserError) as refused:  # was: "...; dataset judge is pairwise"
            judge.compare("Yes.", "No.")
    assert str(refused.value).startswith("Judge.compare: method dialevalml judges single items only (")
    options = {"method": "geval", "criteria": CRITERIA, "provider": "scripted", "record_to": "judged"}
    with debate_eval.Judge(**options) as first, debate_eval.Judge(**options) as second:
        first.score("One.")
        with pytest.raises(UserError) as busy:
            second.score("Two.")
    with debate_eval.Judge(**options, temperature=0.5) as other, pytest.raises(UserError) as differs:
        other.score("Two.")
    assert "judged is in use by another debate-eval run" in str(busy.value)
    assert "judged holds results of a different configuration" in str(differs.value)
    assert all(
        "use another record_to" in str(e.value) or "use a new record_to" in str(e.value) for e in (busy, differs)
    )
    assert not any("--out" in str(e.value) for e in (busy, differs))  # was: "use another --out"


def test_a_judge_dropped_unclosed_lets_go_of_its_record_to(api_env: Path) -> None:
    options = {"method": "geval", "criteria": CRITERIA, "provider": "scripted", "record_to": "judged"}
    judge = debate_eval.Judge(**options)
    judge.score("One.")
    judge = debate_eval.Judge(**options)  # a notebook cell run again: the first judge is dropped, never closed
    gc.collect()
    with judge:
        assert judge.score("Two.").ok  # was: "judged is in use by another debate-eval run" (this process)
    lines = (api_env / "judged" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2


async def _cancel_while_waiting(judge: debate_eval.Judge, server: ScriptedOpenAIServer, rows: list) -> list[str]:
    """Cancel ``score_many`` (a Ctrl-C) while every debate's first call waits for its answer (the server hangs);
    the judges' loop's tasks once it is done with the call (its caller learns of the cancellation first)."""
    from debate_eval._loop import awaited  # runs a coroutine on the judges' loop

    call = asyncio.ensure_future(judge.score_many_async(rows, concurrency=len(rows)))
    for _ in range(1000):
        if server.count >= len(rows):
            break
        await asyncio.sleep(0.01)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call

    async def pending() -> list[str]:
        return [repr(task) for task in asyncio.all_tasks() if task is not asyncio.current_task()]

    for _ in range(1000):
        left = await awaited(pending())
        if not [task for task in left if "_score_many" in task]:
            break
        await asyncio.sleep(0.001)
    return left


def test_a_cancelled_score_many_leaves_no_task_reports(api_env: Path, caplog: pytest.LogCaptureFixture) -> None:
    rows = [{"output": f"Summary {i}.", "source": SOURCE} for i in range(4)]
    with ScriptedOpenAIServer(faults=[Fault(hang_s=1.0)] * len(rows)) as server:
        judge = debate_eval.Judge(
            criteria=CRITERIA, base_url=server.base_url, model="m", no_cache=True, no_preflight=True
        )
        with caplog.at_level(logging.WARNING, logger="asyncio"):
            asyncio.run(_cancel_while_waiting(judge, server, rows))
            judge.close()
            gc.collect()
    assert server.count >= len(rows)
    assert not [r for r in caplog.records if r.name == "asyncio"]  # was: "Task was destroyed but it is pending!"


def test_a_cancelled_call_stops_its_model_calls(api_env: Path) -> None:
    rows = [{"output": f"Summary {i}.", "source": SOURCE} for i in range(3)]
    with ScriptedOpenAIServer(faults=[Fault(hang_s=2.0)] * len(rows)) as server:
        judge = debate_eval.Judge(
            criteria=CRITERIA, base_url=server.base_url, model="m", no_cache=True, no_preflight=True
        )
        try:
            left = asyncio.run(_cancel_while_waiting(judge, server, rows))
        finally:
            judge.close()
    # was: AutoGen's tasks still waiting for the answers (then retrying them against the closed pool)
    assert not [task for task in left if "_process_" in task], left


def test_a_run_s_config_file_serves_a_judge_too(api_env: Path) -> None:
    (api_env / "run.toml").write_text(
        'dataset = "rows.jsonl"\nfields = "source=article,output=summary"\nlimit = 2\nshard = "1/2"\n'
        'out = "runs/rows"\nmethod = "geval"\ncriteria = "Is the summary faithful?"\n',
        encoding="utf-8",
    )
    with debate_eval.Judge(method=None, criteria=None, provider="scripted", config="run.toml") as judge:
        judgment = judge.score("Approved.", source=SOURCE)  # was: "--fields and --labels are for your own file"
    assert judgment.ok and judgment.method == "geval" and not (api_env / "runs").exists()
