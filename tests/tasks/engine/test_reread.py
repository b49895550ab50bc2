"""A resume under a newer parser reads the older records again from their transcripts, with no model call."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.debates.scoring import PARSER_VERSION
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine import reread
from debate_eval.tasks.engine.reread import mixed_versions_warning
from debate_eval.tasks.engine.rundir import RunDir

ITEMS = 4
OLDER = PARSER_VERSION - 1
OLD_SCORE = 1.0  # what the "older parser" read; the scripted judge answers 3


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as started:
        yield started


def run_args(server: ScriptedOpenAIServer, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(ITEMS)]
    return [*args, "--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress", *extra]


def lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def as_older_parser(out: Path, change: Any = None) -> None:
    """Rewrite the run's records as an older parser would have read them: another score, another version (the
    first record written before versions: no ``parser_version``); ``change(index, line)`` edits a line more."""
    rewritten = []
    for index, line in enumerate(lines(out)):
        line.update(score=OLD_SCORE, parse_method="older_rule", parse_reason="read by an older parser")
        for entry in line["transcript"]:
            if isinstance(entry.get("score"), dict):
                entry["score"] = {**entry["score"], "value": OLD_SCORE, "method": "older_rule"}
        if index == 0:
            del line["parser_version"]
        else:
            line["parser_version"] = OLDER
        if change is not None:
            change(index, line)
        rewritten.append(json.dumps(line) + "\n")
    (out / "results.jsonl").write_text("".join(rewritten), encoding="utf-8")


def finished_run(server: ScriptedOpenAIServer, out: Path) -> None:
    assert main(run_args(server, out)) == 0
    assert all(line["score"] == 3 and line["parser_version"] == PARSER_VERSION for line in lines(out))


def test_a_resume_rereads_the_older_records_without_a_model_call(
    isolated_env: Path, server: ScriptedOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    finished_run(server, out)
    first_reading = lines(out)
    as_older_parser(out)
    capsys.readouterr()
    received = server.count
    assert main(run_args(server, out)) == 0
    assert server.count == received  # no model call
    after = lines(out)
    assert after == first_reading  # every field as the run first read it, transcript entries included
    assert len(after) == ITEMS
    assert all(line["score"] == 3 and line["parser_version"] == PARSER_VERSION for line in after)
    assert all(line["parse_method"] != "older_rule" for line in after)
    scored = [entry["score"] for line in after for entry in line["transcript"] if isinstance(entry.get("score"), dict)]
    assert scored and all(score["value"] == 3 and score["method"] != "older_rule" for score in scored)
    err = capsys.readouterr().err
    assert f"parser version {PARSER_VERSION}: re-read {ITEMS} finished records of parser version none, {OLDER} " in err
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["this_invocation"]["reread"] == {
        "to_version": PARSER_VERSION,
        "records": ITEMS,
        "from_versions": {"none": 1, str(OLDER): ITEMS - 1},
        "kept": 0,
        "kept_items": {},
    }
    assert summary["score_distribution"] == {"3": ITEMS}  # the totals count the new readings
    assert not list(out.glob(".*.tmp"))

    assert main(run_args(server, out)) == 0  # nothing older left: nothing re-read, nothing said
    assert "re-read" not in capsys.readouterr().err
    assert "reread" not in json.loads((out / "summary.json").read_text(encoding="utf-8"))["this_invocation"]


def test_a_record_that_cannot_be_reread_keeps_its_reading_and_is_named(
    isolated_env: Path, server: ScriptedOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    finished_run(server, out)
    lost = lines(out)[2]["item_id"]

    def no_transcript(index: int, line: dict[str, Any]) -> None:
        if index == 2:
            line["transcript"] = []

    as_older_parser(out, no_transcript)
    capsys.readouterr()
    received = server.count
    assert main(run_args(server, out)) == 0
    assert server.count == received
    by_id = {line["item_id"]: line for line in lines(out)}
    assert by_id[lost]["score"] == OLD_SCORE and by_id[lost]["parser_version"] == OLDER  # its old reading
    assert all(line["score"] == 3 for item, line in by_id.items() if item != lost)
    err = capsys.readouterr().err
    assert f"re-read {ITEMS - 1} finished records" in err
    assert "1 finished records of an older version could not be re-read" in err
    reread_summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))["this_invocation"]["reread"]
    assert reread_summary["kept"] == 1 and reread_summary["kept_items"] == {lost: f"{lost}: no transcript"}

    # the readers say that the run mixes two parsers
    assert main(["meta-eval", str(out), "--bootstrap", "0"]) == 0
    warning = capsys.readouterr().err
    assert f"were read by different parser versions (1 by version {OLDER}, {ITEMS - 1} by version" in warning
    assert len(warning.strip().splitlines()) == 1
    from debate_eval.tasks.analysis.report.gather import load_run

    load_run(out)
    assert "different parser versions" in capsys.readouterr().err


def test_a_run_killed_while_rereading_keeps_its_file_whole(
    isolated_env: Path, server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = isolated_env / "run"
    finished_run(server, out)
    as_older_parser(out)
    before = (out / "results.jsonl").read_bytes()
    calls = []
    real = reread.reread_record

    def dies_midway(*args: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # as a kill would land, with two records already re-read
        return real(*args)

    monkeypatch.setattr(reread, "reread_record", dies_midway)
    received = server.count
    assert main(run_args(server, out), as_program=True) == 130  # "interrupted; finished items are saved"
    assert len(calls) == 3
    assert (out / "results.jsonl").read_bytes() == before  # the old file, whole
    assert not list(out.glob(".*.tmp"))
    assert len(list(RunDir(out).iter_records())) == ITEMS  # readable
    monkeypatch.setattr(reread, "reread_record", real)
    stale = out / ".results.jsonl.99999.reread.tmp"  # as a kill -9 mid-rewrite would leave it
    stale.write_bytes(before[:100])
    assert main(run_args(server, out)) == 0  # the next resume does the work
    assert not stale.exists()
    assert server.count == received
    assert all(line["score"] == 3 and line["parser_version"] == PARSER_VERSION for line in lines(out))


def test_each_aspect_is_read_again_on_its_own_scale(
    isolated_env: Path, server: ScriptedOpenAIServer, dataset_path: Callable[[str], Path]
) -> None:
    dataset_path("fed_turn")
    out = isolated_env / "scales"
    # G-Eval's evaluator answers "3": out of relevant's 0-2, inside overall's 0-4
    args = ["run", "--dataset", "fed_turn", "--aspect", "relevant,overall", "--protocol", "geval"]
    args += ["--geval-no-logprobs", "--limit", "2", "--base-url", server.base_url, "--model", "scripted"]
    args += ["--out", str(out), "--no-progress"]
    assert main(args) == 0
    readings = {(line["item_id"], line["aspect"]): (line["score"], line["parse_status"]) for line in lines(out)}
    assert readings[("turn-001", "overall")] == (3.0, "parsed")
    assert readings[("turn-001", "relevant")] == (None, "out_of_range")
    as_older_parser(out)
    received = server.count
    assert main(args) == 0
    assert server.count == received
    assert {(line["item_id"], line["aspect"]): (line["score"], line["parse_status"]) for line in lines(out)} == readings
    assert all(line["parser_version"] == PARSER_VERSION for line in lines(out))


def test_pairwise_verdicts_are_read_again_in_both_orders(
    isolated_env: Path, dataset_path: Callable[[str], Path]
) -> None:
    dataset_path("pandalm")
    out = isolated_env / "pairwise"
    args = ["run", "--dataset", "pandalm", "--aspect", "preference", "--protocol", "geval", "--limit", "3", "--swap"]
    args += ["--no-cache", "--out", str(out), "--no-progress", "--model", "scripted"]
    with ScriptedOpenAIServer(reply=lambda request: "[[A]]") as server:  # always the response shown first
        assert main([*args, "--base-url", server.base_url]) == 0
        readings = [(line["verdict"], line["verdicts"], line["consistent"]) for line in lines(out)]
        assert readings == [("tie", {"original": "first", "swapped": "second"}, False)] * 3
        readings_of = lines(out)

        def as_older(index: int, line: dict[str, Any]) -> None:  # what an older verdict parser made of them
            line.update(verdict="second", verdicts={"original": "second", "swapped": "first"}, consistent=True)
            line.update(score=None, parse_method=readings_of[index]["parse_method"])  # no score: a verdict

        as_older_parser(out, as_older)
        received = server.count
        assert main([*args, "--base-url", server.base_url]) == 0
        assert server.count == received
    assert [(line["verdict"], line["verdicts"], line["consistent"]) for line in lines(out)] == readings
    assert lines(out) == readings_of  # every field as the run first wrote it, transcript entries included


def test_a_run_of_a_newer_parser_is_refused(
    isolated_env: Path, server: ScriptedOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    finished_run(server, out)
    records = lines(out)
    records[1]["parser_version"] = PARSER_VERSION + 1
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    before = (out / "results.jsonl").read_bytes()
    assert main(run_args(server, out)) == 2
    err = capsys.readouterr().err.strip()
    assert f"1 records were read by parser version {PARSER_VERSION + 1}, newer than" in err
    assert len(err.splitlines()) == 1
    assert (out / "results.jsonl").read_bytes() == before


def test_a_resume_with_workers_rereads_too(
    isolated_env: Path, server: ScriptedOpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    finished_run(server, out)
    as_older_parser(out)
    received = server.count
    assert main(run_args(server, out, "--workers", "2")) == 0  # every item done: no worker starts
    assert server.count == received
    assert all(line["score"] == 3 and line["parser_version"] == PARSER_VERSION for line in lines(out))
    assert f"re-read {ITEMS} finished records" in capsys.readouterr().err


def test_rescore_names_the_current_parser(isolated_env: Path, server: ScriptedOpenAIServer) -> None:
    out = isolated_env / "run"
    finished_run(server, out)
    as_older_parser(out)
    assert main(["rescore", str(out)]) == 0
    assert all(line["score"] == 3 and line["parser_version"] == PARSER_VERSION for line in lines(out))


def test_one_parser_version_is_no_warning() -> None:
    same = [{"item_id": "a", "dataset": "d", "aspect": "x", "parser_version": 2}] * 2
    failed = {"item_id": "b", "dataset": "d", "aspect": "x", "error": "boom", "parser_version": 1}
    assert mixed_versions_warning([*same, failed], "run") is None  # a failed item was read by no parser
    assert mixed_versions_warning([*same, {**failed, "error": None}], "run") is not None
