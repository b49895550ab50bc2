"""Choosing a judge from labels: planted judges of known quality (the planted best is chosen, and its held-out
p-value is scipy's exact binomial test on the discordant items counted here; equals are refused), single
scores, the command's output and errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import binomtest
from support.planted_judges import answers_right, labels, write_run

import debate_eval
from debate_eval.tasks.cli.main import main

N = 400


def planted_candidates(tmp_path: Path, accuracies: dict[str, float], seed: int = 0) -> tuple[list[Path], list[str]]:
    """One run per planted judge, each right on an item with its accuracy (independently)."""
    rng = np.random.default_rng(seed)
    human = labels(N, seed=seed + 100)
    runs = []
    for index, (name, accuracy) in enumerate(accuracies.items()):
        right = rng.uniform(size=N) < accuracy
        runs.append(
            write_run(tmp_path / name, answers_right(human, right), human, [None] * N, tokens=100 * (index + 1))
        )
    return runs, human


def test_the_planted_best_is_chosen_and_its_p_is_mcnemars(tmp_path: Path) -> None:
    runs, human = planted_candidates(tmp_path, {"simple": 0.6, "persona": 0.62, "strong": 0.85})
    selection = debate_eval.select(runs, seed=1)
    assert selection.best_on_dev == "strong" and selection.chosen == "strong" and selection.confirmed
    assert selection.statistic == "accuracy" and selection.dev_items + selection.test_items == N
    verdicts = {
        run.name: {json.loads(line)["item_id"]: json.loads(line)["verdict"] for line in (run / "results.jsonl").open()}
        for run in runs
    }
    label = {f"q{i}": v for i, v in enumerate(human)}
    held = selection.held_out
    simple_only = sum(verdicts["simple"][k] == label[k] and verdicts["strong"][k] != label[k] for k in held)
    strong_only = sum(verdicts["strong"][k] == label[k] and verdicts["simple"][k] != label[k] for k in held)
    assert selection.p_value == pytest.approx(binomtest(simple_only, simple_only + strong_only).pvalue)
    test_accuracy = {c.name: c.test for c in selection.candidates}
    assert test_accuracy["strong"] == pytest.approx(np.mean([verdicts["strong"][k] == label[k] for k in held]))
    costs = {c.name: c.tokens_per_item for c in selection.candidates}
    assert costs == {"simple": 100.0, "persona": 200.0, "strong": 300.0}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_are_refused_and_the_simplest_kept(tmp_path: Path, seed: int) -> None:
    runs, _ = planted_candidates(tmp_path, {"simple": 0.7, "other": 0.7, "third": 0.7}, seed=seed)
    selection = debate_eval.select(runs, seed=seed)
    assert selection.chosen == "simple" and not selection.confirmed
    assert "the simplest is kept" in selection.reason()


def test_single_scores_pick_the_less_noisy_judge(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    human = rng.uniform(1, 5, 300)
    runs = []
    for name, noise in (("noisy", 2.0), ("sharp", 0.3)):
        path = tmp_path / name
        path.mkdir()
        scores = human + rng.normal(0, noise, 300)
        with (path / "results.jsonl").open("w") as handle:
            for i, (h, s) in enumerate(zip(human, scores, strict=True)):
                line = {"item_id": i, "dataset": "own", "aspect": "quality", "method": name, "score": float(s)}
                handle.write(json.dumps({**line, "human_score": float(h)}) + "\n")
        runs.append(path)
    selection = debate_eval.select(runs)
    assert selection.statistic == "spearman" and selection.chosen == "sharp"
    assert selection.test_name == "paired bootstrap" and selection.p_value is not None and selection.p_value < 0.05


def test_select_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs, human = planted_candidates(tmp_path, {"simple": 0.6, "strong": 0.85})
    assert main(["select", *map(str, runs), "--seed", "1"]) == 0
    text = capsys.readouterr().out
    assert "strong" in text and "<- chosen" in text and "McNemar" in text
    file = tmp_path / "labels.jsonl"
    file.write_text("".join(json.dumps({"item_id": f"q{i}", "verdict": v}) + "\n" for i, v in enumerate(human)))
    assert main(["select", *map(str, runs), "--labels", str(file), "--json", "--seed", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["chosen"] == "strong"
    assert main(["select", str(runs[0])]) == 2
    assert "two runs or more" in capsys.readouterr().err


def test_candidates_without_a_figure_are_not_said_to_be_beaten(tmp_path: Path) -> None:
    """Constant scores have no Spearman: the simplest is kept because nothing can be compared, not because
    no candidate beat it."""
    runs = []
    for name in ("flat", "flatter"):
        path = tmp_path / name
        path.mkdir()
        lines = [{"item_id": i, "dataset": "own", "aspect": "quality", "method": name, "score": 3.0,
                  "human_score": float(1 + i % 5)} for i in range(40)]  # fmt: skip
        (path / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        runs.append(path)
    selection = debate_eval.select(runs)
    assert [candidate.dev for candidate in selection.candidates] == [None, None]
    assert selection.chosen == "flat" and selection.reason().startswith("no candidate has a spearman")


def test_labelled_items_not_judged_by_every_candidate_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs, _ = planted_candidates(tmp_path, {"simple": 0.6, "strong": 0.85})
    lines = (runs[1] / "results.jsonl").read_text(encoding="utf-8").splitlines()
    (runs[1] / "results.jsonl").write_text("\n".join(lines[:-40]) + "\n", encoding="utf-8")
    selection = debate_eval.select(runs)
    assert selection.not_shared_items == 40 and selection.dev_items + selection.test_items == len(lines) - 40
    assert main(["select", *map(str, runs)]) == 0
    assert "; 40 labelled items not judged by every candidate left out" in capsys.readouterr().out
