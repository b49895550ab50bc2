"""``evaluate``: every kind of data in, the same engine as ``run`` (results on disk, resume), the same
one-line errors, inside a running event loop too."""

from __future__ import annotations

import asyncio
import csv
import json
import re
from pathlib import Path

import pytest

import debate_eval
from debate_eval import UserError
from debate_eval.tasks.cli.main import main

from .conftest import FIELDS, SCRIPTED

OWN = {"aspect": "faithfulness", "fields": FIELDS, "criteria": "Is the summary faithful to the article?"}


def test_a_dataset_name(api_env: Path) -> None:
    run = debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=3, out="runs/g", **SCRIPTED)
    assert run.path == Path("runs/g") and len(run.records) == 3
    record = run.records[0]
    assert isinstance(record, debate_eval.Record) and record.method == "geval" and record.score == pytest.approx(3.0)
    assert record.human_score is not None and record.transcript[0].role
    assert (run.path / "results.jsonl").is_file() and run.config["result_config"]["protocol"] == "geval"


def test_without_out_a_temporary_run_directory_is_kept(api_env: Path) -> None:
    run = debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=1, **SCRIPTED)
    assert run.path.name.startswith("debate-eval-") and run.results_file.is_file()


def test_method_options_and_run_options_by_keyword(api_env: Path) -> None:
    run = debate_eval.evaluate(
        "summeval", aspect="coherence", limit=1, max_rounds=1, critic="plain", max_tokens=64, out="r", **SCRIPTED
    )
    debate = run.config["result_config"]["debate"]
    assert debate["max_rounds"] == 1 and debate["critic"]["name"] == "plain"
    assert run.config["models"]["roles"]["scorer"]["sampling"]["max_tokens"] == 64
    with pytest.raises(UserError, match="unknown method option 'max_round'; did you mean max_rounds"):
        debate_eval.evaluate("summeval", aspect="coherence", max_round=1, **SCRIPTED)
    with pytest.raises(UserError, match=re.escape("evaluate(): limit: expected a whole number >= 1, got 0")):
        debate_eval.evaluate("summeval", aspect="coherence", limit=0, **SCRIPTED)


def test_a_rerun_into_the_same_folder_resumes(api_env: Path) -> None:
    first = debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=2, out="r", **SCRIPTED)
    again = debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=2, out="r", **SCRIPTED)
    assert again.summary["this_invocation"]["already_done"] == 2 and again.summary["this_invocation"]["attempted"] == 0
    assert [r.item_id for r in again.records] == [r.item_id for r in first.records]


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".json", ".parquet"])
def test_a_file_of_each_kind(api_env: Path, rows: list[dict[str, object]], suffix: str) -> None:
    path = api_env / f"mine{suffix}"
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif suffix == ".json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    elif suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        pandas = pytest.importorskip("pandas")
        pytest.importorskip("pyarrow", reason="the [hf] extra brings pyarrow")
        pandas.DataFrame(rows).to_parquet(path)
    run = debate_eval.evaluate(path, scale="1-5", out=api_env / "run", **OWN, **SCRIPTED)  # a PathLike
    assert sorted(r.human_score for r in run.records) == [1.0, 2.0, 3.0, 4.0]


def test_a_list_of_dicts_and_a_data_frame_give_the_same_run(api_env: Path, rows: list[dict[str, object]]) -> None:
    pandas = pytest.importorskip("pandas")
    listed = debate_eval.evaluate(rows, scale="1-5", out="a", **OWN, **SCRIPTED)
    framed = debate_eval.evaluate(pandas.DataFrame(rows), scale="1-5", out="b", **OWN, **SCRIPTED)
    by_id = {r.item_id: r.human_score for r in listed.records}
    assert by_id == {r.item_id: r.human_score for r in framed.records} == {f"row-{i}": float(i) for i in range(1, 5)}
    assert (listed.path / "data.jsonl").read_bytes() == (framed.path / "data.jsonl").read_bytes()
    assert listed.config["result_config"]["template"]["source"] == "criteria: Is the summary faithful to the article?"
    again = debate_eval.evaluate(rows, scale="1-5", out="a", **OWN, **SCRIPTED)  # the same rows: it resumes
    assert again.summary["this_invocation"]["already_done"] == 4
    with pytest.raises(UserError, match="holds other data"):
        debate_eval.evaluate(rows[:2], scale="1-5", out="a", **OWN, **SCRIPTED)


def test_a_hugging_face_dataset_object_and_a_saved_folder(api_env: Path, rows: list[dict[str, object]]) -> None:
    datasets = pytest.importorskip("datasets", reason="the [hf] extra")
    dataset = datasets.Dataset.from_list(rows)
    from_object = debate_eval.evaluate(dataset, scale="1-5", out="a", **OWN, **SCRIPTED)
    dataset.save_to_disk(str(api_env / "saved"))
    from_disk = debate_eval.evaluate(f"hf:{api_env / 'saved'}", scale="1-5", out="b", **OWN, **SCRIPTED)
    scores = {r.item_id: r.human_score for r in from_object.records}
    assert scores == {r.item_id: r.human_score for r in from_disk.records} and len(scores) == 4


def test_hf_data_through_a_local_cache_folder(
    api_env: Path, rows: list[dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder of data files read by datasets.load_dataset into a private Hugging Face cache, no network."""
    pytest.importorskip("datasets", reason="the [hf] extra")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(api_env / "hf-cache"))
    folder = api_env / "my_set"
    folder.mkdir()
    (folder / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    run = debate_eval.evaluate(f"hf://{folder}::train", scale="1-5", out="c", **OWN, **SCRIPTED)
    assert len(run.records) == 4 and any((api_env / "hf-cache").iterdir())


def test_an_hf_set_not_in_the_cache_is_one_line(api_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("datasets", reason="the [hf] extra")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(api_env / "empty-cache"))
    monkeypatch.setenv("HF_HOME", str(api_env / "empty-home"))
    with pytest.raises(UserError) as error:
        debate_eval.evaluate("hf:nobody/no_such_set", scale="1-5", **OWN, **SCRIPTED)
    assert str(error.value).startswith("hf:nobody/no_such_set: not in the local Hugging Face cache")
    assert "\n" not in str(error.value)


def test_without_the_datasets_package_the_extra_is_named(api_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "datasets", None)  # import datasets -> ImportError
    with pytest.raises(UserError, match=re.escape("hf:x: Hugging Face data needs the datasets package: pip install")):
        debate_eval.evaluate("hf:x", scale="1-5", **OWN, **SCRIPTED)


@pytest.mark.parametrize(
    ("change", "line"),
    [
        ({"y": "high"}, 'row 2 (counted from 1): column "y": expected a number, got "high"'),
        (
            {"y": 10**400},
            'row 2 (counted from 1): column "y": expected a finite number, got a whole number of 401 digits',
        ),
        ({"summ": None}, 'row 2 (counted from 1): column "summ": empty'),
        ({"summ": ["a", "list"]}, None),  # a value of the wrong type
    ],
)
def test_bad_rows_get_the_command_lines_errors(
    api_env: Path, rows: list[dict[str, object]], capsys: pytest.CaptureFixture[str], change: dict, line: str | None
) -> None:
    bad = [dict(r) for r in rows]
    bad[1].update(change)
    with pytest.raises(UserError) as error:
        debate_eval.evaluate(bad, scale="1-5", **OWN, **SCRIPTED)
    message = str(error.value)
    assert message.startswith("list of dicts: ")
    if line is None:
        return
    assert f"list of dicts: {line}" in message
    path = api_env / "bad.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in bad), encoding="utf-8")
    argv = ["run", "--dataset", str(path), "--aspect", "faithfulness", "--fields", "source=doc,output=summ,human=y"]
    assert main([*argv, "--criteria", "Faithful?", "--scale", "1-5", "--provider", "scripted"]) == 2
    assert f"{path}: {line}" in capsys.readouterr().err  # the same line, naming the file


def test_a_missing_column_is_the_command_lines_error(api_env: Path, rows: list[dict[str, object]]) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(rows).drop(columns=["y"])
    with pytest.raises(
        UserError, match=re.escape("DataFrame: --fields human=y: no such column (the file's columns: doc")
    ):
        debate_eval.evaluate(frame, scale="1-5", **OWN, **SCRIPTED)
    unmapped = {**OWN, "fields": {"output": "summ"}}  # no human column is fine; no source column is not
    with pytest.raises(UserError, match=re.escape("DataFrame: no column for source; map them with --fields source=")):
        debate_eval.evaluate(frame, scale="1-5", **unmapped, **SCRIPTED)
    with pytest.raises(UserError, match="expected a dataset name, a file path, a list of dicts"):
        debate_eval.evaluate(42, **OWN, **SCRIPTED)  # type: ignore[arg-type]


def test_criteria_needs_a_scale_for_own_data(api_env: Path, rows: list[dict[str, object]]) -> None:
    with pytest.raises(UserError, match=re.escape("--criteria needs the score range: add --scale LO-HI")):
        debate_eval.evaluate(rows, **OWN, **SCRIPTED)


def test_inside_a_running_event_loop(api_env: Path) -> None:
    """As in Jupyter: evaluate() called while a loop runs in this thread; and evaluate_async awaited."""

    async def notebook_cell() -> tuple[debate_eval.Run, debate_eval.Run]:
        blocking = debate_eval.evaluate("summeval", aspect="coherence", method="geval", limit=2, out="a", **SCRIPTED)
        awaited = await debate_eval.evaluate_async(
            "summeval", aspect="coherence", method="geval", limit=2, out="b", **SCRIPTED
        )
        return blocking, awaited

    blocking, awaited = asyncio.run(notebook_cell())
    assert len(blocking.records) == len(awaited.records) == 2


def test_a_config_file_under_the_keywords(api_env: Path) -> None:
    config = api_env / "run.toml"
    config.write_text('dataset = "summeval"\naspect = "coherence"\nmethod = "geval"\nlimit = 3\n', encoding="utf-8")
    run = debate_eval.evaluate(config=config, limit=1, out="r", **SCRIPTED)
    assert len(run.records) == 1 and run.records[0].method == "geval"
