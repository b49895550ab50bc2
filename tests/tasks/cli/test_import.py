"""``debate-eval import``: a run directory that show, rescore and meta-eval accept; unmatched ids listed."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from debate_eval.tasks.cli.main import main

DOC = "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2"
PROMPT = "Evaluation Criteria:\n\nConsistency (1-5) - the factual alignment between the summary and the source."


@pytest.fixture(autouse=True)
def data(shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEBATE_EVAL_DATA_DIR", str(shared_data_dir))


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def authors_file(tmp_path: Path) -> Path:
    rows = [
        {"doc_id": DOC, "system_id": system, "prompt": PROMPT, "scores": {}, "coherence": f"- Consistency: {score}"}
        for system, score in [("M11", 1), ("M13", 5), ("M1", 4), ("M14", 5), ("M15", 3)]
    ]
    rows += [{"doc_id": f"dm-test-missing{i}", "system_id": "M0", "prompt": PROMPT, "coherence": "3"} for i in range(7)]
    path = tmp_path / "released.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_import_then_show_meta_eval_and_rescore(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out_dir = tmp_path / "run"
    status, out, _ = run(["import", "debate-authors", str(authors_file(tmp_path)), "--out", str(out_dir)], capsys)
    assert status == 0
    assert "7 rows matched no item of summeval and are not in the run (first five: dm-test-missing0/M0," in out
    assert "dm-test-missing4/M0)" in out
    assert "dm-test-missing5/M0" not in out
    assert "5 items of summeval/consistency (debate); parse: 5 parsed, 0 no_score" in out
    config = json.loads((out_dir / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["template"]["scale"] == "1-5"
    status, out, _ = run(["meta-eval", str(out_dir), "--json"], capsys)
    entry = json.loads(out)["summeval"]["consistency"]
    assert (entry["n_items"], entry["n_missing"], entry["protocol"]) == (5, 0, "debate")
    assert entry["ci95"] == "too few groups (n=1)"  # one group: the minimum-units rule, no numbers
    assert entry["paper"] == {"per-group": None}  # an imported run: no paper row unless asked
    status, out, _ = run(["show", str(out_dir), "--item", "2"], capsys)
    assert "- Consistency: 5" in out
    # rescore accepts the directory and lists ids the dataset does not hold instead of skipping them silently
    results = out_dir / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines()
    stray = json.loads(lines[0]) | {"item_id": "not-a-summeval-item"}
    results.write_text("\n".join([*lines, json.dumps(stray)]) + "\n", encoding="utf-8")
    status, out, _ = run(["rescore", str(out_dir), "--dry-run"], capsys)
    assert status == 0
    assert "0 scores changed" in out
    assert "1 items match no item of summeval and were left as they are (first five: not-a-summeval-item)" in out


def test_import_refuses_a_directory_with_results(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = authors_file(tmp_path)
    assert run(["import", "debate-authors", str(path), "--out", str(tmp_path / "run")], capsys)[0] == 0
    status, out, err = run(["import", "debate-authors", str(path), "--out", str(tmp_path / "run")], capsys)
    assert status == 2
    assert "already holds results" in err
    assert "rows imported" not in out  # refused before reading, not after saying it imported


def test_import_pandalm_and_nothing_matched(
    tmp_path: Path, capsys: pytest.CaptureFixture, dataset_path: Callable[[str], Path]
) -> None:
    dataset_path("pandalm")  # does not ship with the package: skips with the reason outside the CI layout
    path = tmp_path / "gpt.json"
    path.write_text(json.dumps([{"idx": "1", "gpt_result": "1"}, {"idx": "3", "gpt_result": "2"}]), encoding="utf-8")
    status, out, _ = run(["import", "pandalm", str(path), "--out", str(tmp_path / "p")], capsys)
    assert status == 0
    assert "verdicts: first 1, second 1, tie 0, no verdict 0" in out
    status, out, _ = run(["meta-eval", str(tmp_path / "p"), "--json", "--bootstrap", "0"], capsys)
    assert json.loads(out)["pandalm"]["preference"]["accuracy"] == 0.5  # items 1 and 3 are both "first"
    path.write_text(json.dumps([{"idx": "nope", "gpt_result": "1"}]), encoding="utf-8")
    status, out, err = run(["import", "pandalm", str(path), "--out", str(tmp_path / "q")], capsys)
    assert status == 2
    assert "1 rows matched no item of pandalm" in out
    assert "nothing to write" in err
    assert not (tmp_path / "q").exists()
