"""A jury of scripted judges (planted models, each its own run as another model or provider would be): the
verdicts and scores combined as counted here by hand, a split jury left unscored (or a tie), the jurors'
agreement as the confidence, and the jury's run read by meta-eval and cascade."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

import debate_eval
from debate_eval.agents.errors import UserError
from debate_eval.tasks.cli.main import main

PLANTED = ("planted-length", "planted-copy", "planted-first")


def scripted_run(tmp_path: Path, model: str, dataset: str, aspect: str, limit: int, data: Path | None = None) -> Path:
    out = tmp_path / model
    argv = ["run", "--dataset", dataset, "--aspect", aspect, "--method", "geval", "--provider", "scripted"]
    argv += ["--data-dir", str(data)] if data else []
    assert main([*argv, "--model", model, "--limit", str(limit), "--out", str(out), "--no-progress"]) == 0
    return out


def lines(run: Path) -> dict[str, dict]:
    return {str(obj["item_id"]): obj for obj in map(json.loads, (run / "results.jsonl").open())}


@pytest.fixture
def pandalm_jurors(tmp_path: Path, dataset_path: Callable[[str], Path], shared_data_dir: Path) -> list[Path]:
    dataset_path("pandalm")  # skips (fails with DEBATE_EVAL_REQUIRE_DATA=1) when PandaLM is absent
    return [scripted_run(tmp_path, model, "pandalm", "preference", 40, shared_data_dir) for model in PLANTED]


def test_a_majority_of_three_and_its_confidence(pandalm_jurors: list[Path], tmp_path: Path) -> None:
    jury = debate_eval.jury(pandalm_jurors, tmp_path / "jury")
    jurors = [lines(run) for run in pandalm_jurors]
    assert len(jury) == 40
    for record in jury.records:
        votes = [j[record.key]["verdict"] for j in jurors]
        (top, count), *rest = Counter(votes).most_common()
        if rest and rest[0][1] == count:
            assert record.verdict is None and record.stop_reason == "jury_split"
        else:
            assert record.verdict == top
        assert record.confidence == pytest.approx(count / 3, abs=1e-6)
        assert record.details["jurors"]["planted-first"]["answer"] == "first"  # always prefers A
        assert record.human_label == jurors[0][record.key]["human_label"]
        assert record.llm_calls == sum(j[record.key]["llm_calls"] for j in jurors)


def test_two_jurors_split_unscored_or_tied(pandalm_jurors: list[Path], tmp_path: Path) -> None:
    pair = [pandalm_jurors[0], pandalm_jurors[2]]  # the longer response against always the first
    first, second = (lines(run) for run in pair)
    disagree = {key for key in first if first[key]["verdict"] != second[key]["verdict"]}
    assert disagree  # the planted judges differ on some pairs
    unscored = debate_eval.jury(pair, tmp_path / "unscored")
    assert {r.key for r in unscored.records if r.verdict is None} == disagree
    assert all(r.confidence is None for r in unscored.records if r.key in disagree)
    tied = debate_eval.jury(pair, tmp_path / "tied", split="combine")
    assert {r.key for r in tied.records if r.verdict == "tie"} == disagree
    assert all(r.confidence == 0.5 for r in tied.records if r.key in disagree)


def test_single_scores_by_mean(tmp_path: Path) -> None:
    runs = [scripted_run(tmp_path, model, "summeval", "coherence", 6) for model in PLANTED[:2]]
    jury = debate_eval.jury(runs, tmp_path / "jury", combine="mean")
    first, second = (lines(run) for run in runs)
    for record in jury.records:
        assert record.score == pytest.approx((first[record.key]["score"] + second[record.key]["score"]) / 2)
        assert record.human_score == first[record.key]["human_score"]


def test_the_jury_command_and_its_run_in_meta_eval_and_cascade(
    pandalm_jurors: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli-jury"
    assert main(["jury", *map(str, pandalm_jurors[:2]), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "40 items" in printed and "split" in printed
    assert main(["meta-eval", str(out), "--json"]) == 0
    capsys.readouterr()
    assert main(["cascade", str(out), str(pandalm_jurors[2]), "--alpha", "0.6", "--min-decided", "5"]) == 2
    assert "records no confidence" in capsys.readouterr().err  # G-Eval's single answers give none
    assert main(["jury", str(pandalm_jurors[0]), "--out", str(tmp_path / "one")]) == 2
    assert "two runs or more" in capsys.readouterr().err


def test_the_jury_never_writes_over_a_run(tmp_path: Path) -> None:
    """An --out that holds results (a juror's own run, or an earlier jury) is refused and left as it was."""
    runs = [scripted_run(tmp_path, model, "summeval", "coherence", 3) for model in PLANTED[:2]]
    before = (runs[0] / "results.jsonl").read_bytes()
    with pytest.raises(UserError, match="already holds results; write the jury into a new --out directory"):
        debate_eval.jury(runs, runs[0])
    assert (runs[0] / "results.jsonl").read_bytes() == before
    debate_eval.jury(runs, tmp_path / "jury")
    with pytest.raises(UserError, match="already holds results"):
        debate_eval.jury(runs, tmp_path / "jury")
