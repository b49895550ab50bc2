"""The per-dataset scripts are thin wrappers over ``debate-eval run``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("script", "aspect"), [("run_summeval.py", "coherence"), ("run_topical_chat.py", "engagingness")]
)
def test_dataset_scripts_run_one_aspect(isolated_env: Path, script: str, aspect: str) -> None:
    out = isolated_env / "out"
    with ScriptedOpenAIServer() as server:
        args = ["--aspect", aspect, "--limit", "1", "--base-url", server.base_url, "--model", "m"]
        completed = subprocess.run(
            [sys.executable, str(ROOT / "scripts" / script), *args, "--out", str(out), "--no-preflight"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert completed.returncode == 0, completed.stderr
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert record["aspect"] == aspect and record["score"] == 3


def test_report_demo_script_is_an_entry_point_over_the_cli_layer() -> None:
    """``scripts/demos/report_demo.py`` runs the demo of ``tests/support/demo_runs.py`` (its runs: test_report.py)."""
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts/demos/report_demo.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert "usage: report_demo.py" in completed.stdout and "--screenshot" in completed.stdout


def test_bootstrap_coverage_benchmark_writes_its_table(tmp_path: Path) -> None:
    """``scripts/bench_bootstrap_coverage.py`` (the minimum-units rule's evidence) runs end to end, small."""
    out = tmp_path / "coverage.md"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_bootstrap_coverage.py"), "--out", str(out),
         "--replications", "40", "--resamples", "50"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    text = out.read_text(encoding="utf-8")
    assert "| mean per-document rho | 10 |" in text and "| accuracy (p = 0.75) | 2 |" in text
    assert "--replications 40 --resamples 50" in text


def test_equal_judges_benchmark_writes_its_table(tmp_path: Path) -> None:
    """``scripts/bench_equal_judges.py`` (the evidence for --compare's reported p and Holm) runs end to end, small."""
    out = tmp_path / "equal.md"
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_equal_judges.py"), "--out", str(out), "--docs", "12",
         "--replications", "2", "--resamples", "50"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    text = out.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| 12 | 2 |"))
    assert len(row.split("|")) == 10 and "--docs 12 --replications 2 --resamples 50" in text


def test_audit_demo_script_is_an_entry_point_over_the_cli_layer() -> None:
    """``scripts/demos/audit_demo.py`` runs the two audits (the README's card)."""
    completed = subprocess.run(
        [sys.executable, str(ROOT / "scripts/demos/audit_demo.py"), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert "scripted" in completed.stdout
