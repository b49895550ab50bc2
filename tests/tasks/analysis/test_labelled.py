"""Judges on labelled items: agreement with a label (verdicts equal, scores within the tolerance), the runs'
labels or a labels file's alone, and the one-line refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.planted_judges import write_run

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.labelled import agrees, align, labels_of_file, load_judge


def test_agreement_with_a_label() -> None:
    assert agrees("first", "first", True, 0.5) and not agrees("tie", "first", True, 0.5)
    assert agrees(4.0, 4.333, False, 0.5) and not agrees(4.0, 3.333, False, 0.5)
    assert not agrees(None, "first", True, 0.5)


def test_align_uses_the_runs_labels_or_the_files_alone(tmp_path: Path) -> None:
    human = ["first", "second", "first", "second"]
    one = load_judge(write_run(tmp_path / "one", ["first", "first", "first", "second"], human, [0.9, 0.8, None, 0.6]))
    two = load_judge(write_run(tmp_path / "two", ["second", "second", "first", "first"], human, [0.7, 0.5, 0.4, 0.3]))
    aligned = align([one, two])
    assert aligned.keys == ("q0", "q1", "q2", "q3") and aligned.names == ("one", "two")
    assert aligned.correct[0].tolist() == [True, False, True, True]
    assert aligned.correct[1].tolist() == [False, True, True, False]
    assert aligned.confidence[0][2] != aligned.confidence[0][2]  # no confidence: NaN
    only = align([one, two], {"q1": "first", "q3": "first"})  # a file's labels alone
    assert only.keys == ("q1", "q3") and only.unlabelled == ("q0", "q2")
    assert only.correct[0].tolist() == [True, False]


def test_labels_of_a_file_are_checked_against_the_run(tmp_path: Path) -> None:
    human = ["first", "second"]
    run = write_run(tmp_path / "run", human, human, [0.9, 0.8])
    file = tmp_path / "labels.jsonl"
    lines = [{"item_id": "q0", "verdict": "second", "annotator": "a"}, {"item_id": "q0", "verdict": "second"}]
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert labels_of_file(file, run) == {"q0": "second"}
    file.write_text(json.dumps({"item_id": "q9", "verdict": "first"}) + "\n")
    with pytest.raises(UserError, match=r"labels.jsonl: line 1 \(counted from 1\)"):
        labels_of_file(file, run)


def test_refusals(tmp_path: Path) -> None:
    human = ["first", "second"]
    pair = load_judge(write_run(tmp_path / "pair", human, human, [0.9, 0.8]))
    other = load_judge(write_run(tmp_path / "other", human, ["second", "second"], [0.9, 0.8]))
    single = tmp_path / "single"
    single.mkdir()
    line = {"item_id": "q0", "dataset": "d", "aspect": "a", "method": "m", "score": 3, "human_score": 3}
    (single / "results.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(UserError, match="mix pairwise and single-score"):
        align([pair, load_judge(single)])
    with pytest.raises(UserError, match="different human labels"):
        align([pair, other])
    with pytest.raises(UserError, match="no results"):
        (tmp_path / "empty").mkdir()
        (tmp_path / "empty" / "results.jsonl").write_text("")
        load_judge(tmp_path / "empty")
