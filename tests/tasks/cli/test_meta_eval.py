"""The ``meta-eval`` command."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from debate_eval.tasks.cli import meta_eval

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "analysis"))  # the analysis tests' record factories
from analysis_factories import group, write_jsonl


def _run_command(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    meta_eval.add_subparser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    status = args.handler(args)
    return status, capsys.readouterr().out


def test_command_prints_table_json_and_distribution(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3, 4], [2, 3, 4, 5]))
    status, out = _run_command(["meta-eval", str(path)], capsys)
    assert status == 0
    assert "summeval/coherence" in out
    assert "0.610" in out
    status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    assert status == 0
    assert json.loads(out)["summeval"]["coherence"]["spearman"] == pytest.approx(1.0)
    status, out = _run_command(["meta-eval", str(tmp_path), "--distribution"], capsys)
    assert status == 0
    assert "summeval/average" in out
    assert "Score distribution" in out


def test_json_has_ci95_per_dataset_and_aspect(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("d2", [1, 2, 3], [3, 2, 1])
    path = write_jsonl(tmp_path / "results.jsonl", records)
    status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    assert status == 0
    ci95 = json.loads(out)["summeval"]["coherence"]["ci95"]
    assert set(ci95) == {"spearman", "kendall", "pearson"}
    assert ci95["spearman"] == pytest.approx([-1.0, 1.0])  # groups at +1 and -1 (see test_bootstrap)
    status, out = _run_command(["meta-eval", str(path), "--json", "--bootstrap", "0"], capsys)
    assert json.loads(out)["summeval"]["coherence"]["ci95"] is None


def test_table_shows_intervals_and_published_tables(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3, 4], [2, 3, 4, 5]))
    status, out = _run_command(["meta-eval", str(path), "--reference"], capsys)
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("summeval/coherence "))
    assert "0.610" in row  # DEBATE Table 1 column still there
    assert "Published numbers" in out
    assert "G-Eval (Liu et al. 2023), Table 1: summeval, summary level" in out
    assert "0.582" in out
    assert "DEBATE (Kim et al. 2024), Table 1: summeval" in out
    assert "ChatEval (Chan" not in out  # ChatEval's own tables are on Topical-Chat and FairEval only
    assert "0.610" in out.split("Published numbers")[1]  # printed with the paper's decimals
    status, out = _run_command(["meta-eval", str(path), "--reference", "ChatEval"], capsys)
    assert "paper ChatEval" in out
    assert "Published numbers" not in out


def test_pairwise_run_table_and_reference(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    labels = ["first", "second", "tie", "first"]
    records = [
        {
            "item_id": f"q{i}",
            "dataset": "faireval",
            "aspect": "preference",
            "task_type": "pairwise",
            "verdict": "first",
            "human_label": h,
        }
        for i, h in enumerate(labels)
    ]
    path = write_jsonl(tmp_path / "results.jsonl", records)
    _status, out = _run_command(["meta-eval", str(path), "--reference"], capsys)
    row = next(line for line in out.splitlines() if line.startswith("faireval/preference"))
    assert row.split()[1:4] == ["4", "0", "0.500"]
    assert "ChatEval (Chan et al. 2023), Table 1: faireval, item level, pairwise" in out
    assert "63.8" in out
    _status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    entry = json.loads(out)["faireval"]["preference"]
    assert (entry["accuracy"], entry["kappa"], entry["task_type"]) == (0.5, 0.0, "pairwise")
    assert set(entry["ci95"]) == {"accuracy", "kappa", "macro_f1", "consistency", "agreement"}


def test_compare_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    humans = [1, 2, 3, 4, 5]
    run_a = [r for d in range(6) for r in group(f"d{d}", humans, [3, 1, 4, 2, 5][d % 2 :] + [3, 1, 4, 2, 5][: d % 2])]
    run_b = [r for d in range(6) for r in group(f"d{d}", humans, humans)]
    a = write_jsonl(tmp_path / "a.jsonl", run_a)
    (tmp_path / "b").mkdir()
    b = write_jsonl(tmp_path / "b" / "results.jsonl", run_b)
    status, out = _run_command(["meta-eval", str(a), str(tmp_path / "b"), "--compare", "--bootstrap", "200"], capsys)
    assert status == 0
    assert "B - A" in out
    assert str(b) in out
    spearman_line = next(line for line in out.splitlines() if line.strip().startswith("spearman"))
    _, value_a, value_b, delta, *_rest, p = spearman_line.split()
    assert float(value_b) == 1.0
    assert float(delta) == pytest.approx(1.0 - float(value_a), abs=1e-3)
    assert p == "<0.005"  # no resample of 200 reached 0: p is below 1/200
    status, out = _run_command(["meta-eval", str(a), str(b), "--compare", "--json"], capsys)
    (entry,) = json.loads(out)
    assert entry["n_shared"] == 30
    assert entry["differences"]["spearman"]["ci95"][0] > 0


def test_compare_needs_two_runs_and_bootstrap_not_negative(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from debate_eval.agents.errors import UserError

    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3], [1, 2, 3]))
    with pytest.raises(UserError, match="exactly two"):
        _run_command(["meta-eval", str(path), "--compare"], capsys)
    with pytest.raises(UserError, match="--bootstrap"):
        _run_command(["meta-eval", str(path), "--bootstrap", "-1"], capsys)
