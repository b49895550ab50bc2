"""``debate_eval.cascade`` and ``debate_eval.Cascade``: thresholds from labelled runs, and live scripted judges
where the second judge is called only when the first is unsure; ``label_page``, ``read_labels``, ``calibrate``
and ``meta_evaluate(labels=)``: the same numbers as the commands (``label``, ``calibrate --json``, ``meta-eval
--labels --json``), and the reader's one-line errors."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from support.planted_judges import planted_runs

import debate_eval
from debate_eval.tasks.cli.main import main

CRITERIA = "Is the summary faithful to the article?"


class Counting:
    """A judge that counts its calls."""

    def __init__(self, judge: Any) -> None:
        self.judge, self.calls = judge, 0

    def score(self, output: str, **inputs: Any) -> Any:
        self.calls += 1
        return self.judge.score(output, **inputs)

    def compare(self, output_a: str, output_b: str, **inputs: Any) -> Any:
        self.calls += 1
        return self.judge.compare(output_a, output_b, **inputs)


def test_judge_2_is_called_only_when_judge_1_is_unsure(api_env: Path) -> None:
    # on the scripted provider the debate's Critic objects in every round (confidence 0) and self-consistency's
    # five samples agree (confidence 1)
    with (
        debate_eval.Judge(method="debate", criteria=CRITERIA, provider="scripted") as debate,
        debate_eval.Judge(method="self-consistency", criteria=CRITERIA, provider="scripted") as samples,
    ):
        first, second = Counting(debate), Counting(samples)
        escalated = debate_eval.Cascade([first, second], [0.5, 0.5]).score("A cat sat.", source="The cat sat.")
        assert escalated.decided_by == 1 and escalated.judgment.confidence == 1.0 and len(escalated.judgments) == 2
        assert (first.calls, second.calls) == (1, 1)
        trusted = debate_eval.Cascade([first, second], [0.0, 0.5]).score("A cat sat.", source="The cat sat.")
        assert trusted.decided_by == 0 and (first.calls, second.calls) == (2, 1)  # judge 2 not called
        left = debate_eval.Cascade([first, second], [0.5, float("inf")]).score("A cat sat.", source="The cat sat.")
        assert left.abstained and left.judgment is None and (first.calls, second.calls) == (3, 2)
        pair = debate_eval.Cascade([first, second], [0.5, 0.5]).compare("Paris.", "Rome.", question="Capital?")
        assert pair.decided_by == 1 and pair.judgment.verdict in ("first", "second", "tie")
    with pytest.raises(ValueError, match="one threshold per judge"):
        debate_eval.Cascade([first], [0.5, 0.5])


def test_cascade_from_runs_and_a_report_to_live_judges(tmp_path: Path) -> None:
    one, two, human = planted_runs(tmp_path)
    report = debate_eval.cascade([one, two], alpha=0.8, delta=0.1, seed=3)
    assert isinstance(report, debate_eval.CascadeReport) and report.names == ("cheap", "strong")
    assert report.to_dict()["test_items"] == 200 and report.calibration_items == 200
    by_mapping = debate_eval.cascade([one, two], alpha=0.8, labels={f"q{i}": v for i, v in enumerate(human)}, seed=3)
    assert by_mapping.to_dict() == report.to_dict()
    live = debate_eval.Cascade.from_report(["judge 1", "judge 2"], report)
    assert live.thresholds == tuple(t.value for t in report.thresholds)


def test_one_run_not_in_a_list_and_a_level_as_text_are_clear_errors(tmp_path: Path) -> None:
    """A single path given where a list of runs goes was read character by character ('r: no such results
    file', 'two jurors' runs have the same name'); a level given as text failed comparing str with int."""
    one, two, _ = planted_runs(tmp_path)
    for call, name in [
        (lambda: debate_eval.cascade(str(one), alpha=0.8), "cascade"),
        (lambda: debate_eval.select(one), "select"),
        (lambda: debate_eval.jury(str(one), tmp_path / "jury"), "jury"),
    ]:
        with pytest.raises(debate_eval.UserError, match=rf"{name} takes a list of runs, not one run"):
            call()
    with pytest.raises(ValueError, match=r"alpha must be between 0 and 1 \(exclusive\), not '0.8'"):
        debate_eval.cascade([one, two], alpha="0.8")  # type: ignore[arg-type]
    with pytest.raises(debate_eval.UserError, match="--n '5': give a number of items to label"):
        debate_eval.label_page(one, tmp_path / "label.html", n="5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"a threshold is a confidence in \[0, 1\] \(or math.inf"):
        debate_eval.Cascade(["judge 1"], thresholds=[1.5])
    assert debate_eval.Cascade(["judge 1", "judge 2"], thresholds=[math.inf, 0.0]).thresholds == (math.inf, 0.0)
    with pytest.raises(TypeError, match="a Cascade takes a list of judges"):
        debate_eval.Cascade("judge 1", thresholds=[0.5])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a Jury takes a list of judges"):
        debate_eval.Jury(object())  # type: ignore[arg-type]


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
