"""The typed record and the run directory against run directories written by version 0.1.0 (``fixtures/``:
DEBATE and G-Eval on SummEval, DEBATE pairwise with --swap on FairEval, scripted provider), whose records
name their method ``protocol``: every reader still reads them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from debate_eval import Message, Record, load_run
from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.records import load_results, protocol_of
from debate_eval.tasks.analysis.report.gather import load_run as gather_run
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine import compat
from debate_eval.tasks.engine.record import PARSER_VERSION
from debate_eval.tasks.engine.results import ResultsStore
from debate_eval.tasks.engine.rundir import RunDir

FIXTURES = Path(__file__).parent / "fixtures" / "run-0.1.0"
RUNS = {"debate": 3, "geval": 2, "pairwise": 2}
METHOD = {"debate": "debate", "geval": "geval", "pairwise": "debate"}


def lines(name: str) -> list[dict[str, object]]:
    text = (FIXTURES / name / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_a_line_of_0_1_0_round_trips_with_method_for_protocol(name: str) -> None:
    for obj in lines(name):
        assert "protocol" in obj and "method" not in obj
        expected = {("method" if key == "protocol" else key): value for key, value in obj.items()}
        record = Record.from_json(obj)
        assert record.method == METHOD[name] and record.parser_version is None
        assert record.to_json() == expected and list(record.to_json()) == list(expected)
        assert all(isinstance(message, Message) for message in record.transcript)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_load_run_reads_a_0_1_0_run(name: str) -> None:
    run = load_run(FIXTURES / name)
    assert len(run) == RUNS[name] and run.config_hash
    assert {record.method for record in run.records} == {METHOD[name]}
    frame = run.to_pandas()
    assert len(frame) == RUNS[name] and set(frame["method"]) == {METHOD[name]}
    first = run.records[0]
    assert first.ok and first.transcript and run.transcript(first.item_id)[0].content
    if name == "pairwise":
        assert first.pairwise and first.verdict in ("first", "second", "tie") and first.consistent is not None
    else:
        assert isinstance(first.score, float)


@pytest.mark.parametrize("name", sorted(RUNS))
def test_show_meta_eval_and_report_read_a_0_1_0_run(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    folder = FIXTURES / name
    first = lines(name)[0]["item_id"]
    assert main(["show", str(folder)]) == 0
    assert main(["show", str(folder), "--item", str(first)]) == 0
    assert main(["meta-eval", str(folder / "results.jsonl"), "--bootstrap", "0"]) == 0
    out = capsys.readouterr().out
    assert str(first) in out
    records = load_results([folder / "results.jsonl"])
    assert len(records) == RUNS[name] and {protocol_of(r) for r in records} == {METHOD[name]}
    gathered = gather_run(folder)
    assert len(gathered.records) == RUNS[name] and gathered.method == METHOD[name] and gathered.config


def test_a_0_1_0_run_resumes_with_nothing_to_do(tmp_path: Path) -> None:
    folder = tmp_path / "run"
    shutil.copytree(FIXTURES / "geval", folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    before = (folder / "results.jsonl").read_bytes()
    seen: list[Record] = []
    store = ResultsStore(folder, config, config["config_hash"], on_record=seen.append)
    try:
        assert store.done_ids() == {str(obj["item_id"]) for obj in lines("geval")} and len(seen) == 2
        assert store.tally_exact
    finally:
        store.close()
    assert (folder / "results.jsonl").read_bytes() == before


def test_new_records_name_their_method_and_parser_version() -> None:
    record = Record(item_id="1", dataset="summeval", aspect="coherence", method="geval", parser_version=PARSER_VERSION)
    line = record.to_json()
    assert line["method"] == "geval" and "protocol" not in line and line["parser_version"] == PARSER_VERSION
    assert Record.from_json(json.loads(json.dumps(line))) == record


def test_a_line_that_names_no_method_is_a_debate_record() -> None:
    assert Record.from_json({"item_id": 1, "dataset": "summeval", "aspect": "coherence"}).method == "debate"
    assert compat.DEFAULT_METHOD == "debate" and compat.METHOD_KEY_DROPPED_IN


def test_unknown_keys_are_kept() -> None:
    obj = {"item_id": "a", "dataset": "d", "aspect": "x", "method": "geval", "imported": {"file": "f"}}
    assert Record.from_json(obj).to_json()["imported"] == {"file": "f"}


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({"dataset": "d", "aspect": "x"}, "item_id"),
        ({"item_id": "a", "dataset": "d", "aspect": "x", "score": "5"}, "score"),
        ({"item_id": "a", "dataset": "d", "aspect": "x", "task_type": "pairwise", "consistent": 1}, "consistent"),
    ],
)
def test_from_json_names_file_line_and_field(obj: dict[str, object], field: str) -> None:
    with pytest.raises(UserError) as error:
        Record.from_json(obj, path="run/results.jsonl", line=4)
    assert str(error.value).startswith("run/results.jsonl: line 4 (counted from 1)") and field in str(error.value)


def test_iter_records_streams_and_skips_an_interrupted_last_line(tmp_path: Path) -> None:
    good = json.dumps({"item_id": "a", "dataset": "d", "aspect": "x"})
    (tmp_path / "results.jsonl").write_text(good + "\n" + good[:10], encoding="utf-8")
    records = RunDir(tmp_path).iter_records()
    assert next(records).item_id == "a"
    assert list(records) == []
