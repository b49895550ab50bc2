"""``debate_eval.label_page``, ``read_labels``, ``calibrate`` and ``meta_evaluate(labels=)``: the same numbers
as the commands (``label``, ``calibrate --json``, ``meta-eval --labels --json``), and the reader's one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import debate_eval
from debate_eval.tasks.cli.main import main

LENGTHS = (4, 8, 14, 18, 25, 33)  # words: the length judge scores 1, 1, 2, 2, 3, 3


def _run(folder: Path) -> debate_eval.Run:
    rows = [
        {"id": f"{i}-{k}", "article": f"Article {i}.", "summary": "w " * words, "system": f"s{k % 2}"}
        for i in range(6)
        for k, words in enumerate(LENGTHS)
    ]
    return debate_eval.evaluate(
        rows, aspect="completeness", criteria="Complete?", scale="1-5",
        fields={"source": "article", "output": "summary", "system": "system", "id": "id"},
        method="geval", provider="scripted", model="planted-length", out=str(folder / "run"), no_progress=True,
    )  # fmt: skip


def test_the_api_reads_labels_as_the_commands_do(api_env: Path, capsys: pytest.CaptureFixture) -> None:
    run = _run(api_env)
    page = debate_eval.label_page(run, api_env / "label.html", n=24, seed=2)
    assert isinstance(page, debate_eval.LabelPage) and len(page.item_ids) == 24 and page.choice == "stratified"
    assert page.path.read_text(encoding="utf-8").count('"item_id"') == 24
    scores = {record.key: record.score for record in run.records}
    labels = api_env / "labels.jsonl"
    lines = [json.dumps({"item_id": i, "rating": min(5.0, scores[i] + 1 + k % 2)}) for k, i in enumerate(page.item_ids)]
    labels.write_text("".join(line + "\n" for line in lines))
    read = debate_eval.read_labels(labels, run)
    assert [label.item_id for label in read] == list(page.item_ids)

    calibration = debate_eval.calibrate(run, labels, bootstrap=50, seed=4)
    assert (
        main(["calibrate", str(run.path), "--labels", str(labels), "--json", "--bootstrap", "50", "--seed", "4"]) == 0
    )
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(calibration.to_dict()))
    assert calibration.n_labelled == 24 and calibration.applied["n_unlabelled"] == 36 - 24

    report = debate_eval.meta_evaluate(run, labels=labels, bootstrap=0)
    assert main(["meta-eval", str(run.path), "--labels", str(labels), "--json", "--bootstrap", "0"]) == 0
    assert json.loads(capsys.readouterr().out) == report.to_dict()

    bad = [{"item_id": page.item_ids[0], "rating": 2}, {"item_id": "nope", "rating": 2}]
    labels.write_text("".join(json.dumps(line) + "\n" for line in bad))
    with pytest.raises(
        debate_eval.UserError, match=r"line 2 \(counted from 1\): item_id 'nope' is not an item of the run"
    ):
        debate_eval.read_labels(labels, run)
    assert len(debate_eval.read_labels(labels)) == 2  # without a run: the lines' own checks only
