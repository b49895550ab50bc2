"""``debate-eval plan-labels`` (tasks/cli/plan_labels.py, tasks/analysis/ppi.py's planner): the human-only count
against scipy's t quantiles, the PPI++ count against the widths ppi-python's intervals reach on simulated data
with the planned labels, and the command's text, JSON and errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from debate_eval.tasks.analysis.ppi import human_only_labels, ppi_labels, ppi_width
from debate_eval.tasks.cli.main import main

ppi_py = pytest.importorskip("ppi_py", reason="the [ppi] extra")


def test_human_only_labels_is_the_smallest_n_whose_t_interval_fits() -> None:
    for sd, width in ((1.0, 0.5), (0.7, 0.2), (2.0, 1.5)):
        n = human_only_labels(sd, width)
        assert 2 * stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n) <= width
        assert 2 * stats.t.ppf(0.975, n - 2) * sd / np.sqrt(n - 1) > width
    assert human_only_labels(1.0, 0.5) == 64  # 2 * 1.96 / 0.5 squared is 61.5; the t interval needs 64


def test_ppi_labels_reach_the_planned_width_in_ppi_pythons_intervals() -> None:
    """Population: human ~ N(3, 1), judge = 0.8 human + 1 + N(0, 0.5); 2,000 outputs judged. The planned
    number of labels, used in 300 simulated studies, gives ppi_mean_ci intervals of about the target width."""
    sd_human, sd_judge = 1.0, float(np.sqrt(0.64 + 0.25))
    covariance, outputs, width = 0.8, 2000, 0.3
    n = ppi_labels(width, outputs, sd_human, sd_judge, covariance)
    assert (
        ppi_width(n, outputs, sd_human, sd_judge, covariance)
        <= width
        < ppi_width(n - 1, outputs, sd_human, sd_judge, covariance)
    )
    assert n < human_only_labels(sd_human, width)  # the judge saves labels
    rng = np.random.default_rng(41)
    widths = []
    for _ in range(300):
        human = rng.normal(3.0, 1.0, outputs)
        judge = 0.8 * human + 1.0 + rng.normal(0.0, 0.5, outputs)
        low, high = ppi_py.ppi_mean_ci(human[:n], judge[:n], judge[n:], alpha=0.05)
        widths.append(float(high[0] - low[0]) if np.ndim(high) else float(high - low))
    assert np.mean(widths) == pytest.approx(width, rel=0.04)
    assert ppi_labels(0.001, 500, sd_human, sd_judge, covariance) is None  # not reachable with 500 outputs


def pilot_run(folder: Path, labelled: int = 30) -> Path:
    rng = np.random.default_rng(42)
    records = []
    for i in range(200):
        for system in ("A", "B"):
            human = float(rng.normal(3.0, 0.8))
            records.append({
                "item_id": f"d{i}/{system}", "dataset": "mine.jsonl", "aspect": "quality", "protocol": "geval",
                "group_id": f"d{i}", "system_id": system, "score": human + float(rng.normal(0.5, 0.4)),
                "human_score": human if i < labelled else None,
            })  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def test_the_command_prints_the_plan_per_system(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = pilot_run(tmp_path / "pilot")
    assert main(["plan-labels", str(run), "--width", "0.3"]) == 0
    printed = capsys.readouterr().out
    assert "at most 0.3 wide" in printed and "mine.jsonl/quality:" in printed
    assert main(["plan-labels", str(run), "--width", "0.3", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    a = plan["parts"]["mine.jsonl/quality"]["A"]
    assert a["n_pilot"] == 30 and a["outputs"] == 200
    assert a["human_only"] == human_only_labels(a["sd_human"], 0.3)
    covariance = a["correlation"] * a["sd_human"] * a["sd_judge"]
    assert a["with_judge"] == ppi_labels(0.3, 200, a["sd_human"], a["sd_judge"], covariance)
    assert a["with_judge"] < a["human_only"]
    line = next(line for line in printed.splitlines() if line.startswith("  A: "))
    assert f"{a['human_only']} human-only, {a['with_judge']} with the judge (PPI++, of 200 judged outputs)" in line


def test_a_plan_from_a_small_pilot_says_it_is_rough(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Four pilot labels per system still give a number; the text says it rests on guessed spreads."""
    assert main(["plan-labels", str(pilot_run(tmp_path / "small", labelled=4)), "--width", "0.3"]) == 0
    printed = capsys.readouterr().out
    assert "pilot 4 labels" in printed
    assert printed.splitlines()[-1].startswith("rough: 2 plans rest on fewer than 30 pilot labels (")
    assert main(["plan-labels", str(pilot_run(tmp_path / "enough")), "--width", "0.3"]) == 0
    assert "rough:" not in capsys.readouterr().out


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run = pilot_run(tmp_path / "pilot")
    assert main(["plan-labels", str(run), "--width", "0"]) == 2
    assert (
        capsys.readouterr().err == "debate-eval: error: --width 0: give a positive interval width on the score scale\n"
    )
    assert main(["plan-labels", str(run), "--width", "1e-300"]) == 2  # (2 * 1.96 * sd / 1e-300) ** 2 > 1.8e308
    assert capsys.readouterr().err == (
        "debate-eval: error: --width 1e-300: so narrow an interval needs more labels than a float can count\n"
    )
    unrated = tmp_path / "unrated"
    unrated.mkdir()
    lines = (run / "results.jsonl").read_text().splitlines()
    (unrated / "results.jsonl").write_text(
        "".join(json.dumps({**json.loads(line), "human_score": None}) + "\n" for line in lines)
    )
    assert main(["plan-labels", str(unrated), "--width", "0.3"]) == 2
    err = capsys.readouterr().err
    assert "no system has 3 outputs with both a judge score and a human rating" in err and len(err.splitlines()) == 1
    pairwise = tmp_path / "pairwise"
    pairwise.mkdir()
    (pairwise / "results.jsonl").write_text(
        json.dumps({"item_id": "p", "dataset": "own", "aspect": "pref", "task_type": "pairwise", "verdict": "first",
                    "human_label": "first"}) + "\n"
    )  # fmt: skip
    assert main(["plan-labels", str(pairwise), "--width", "0.3"]) == 2
    assert "a pairwise run (verdicts); plan-labels plans the labels of scored outputs" in capsys.readouterr().err
