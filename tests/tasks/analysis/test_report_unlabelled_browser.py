"""The report of runs without human ratings (an unlabelled own file, single-score and pairwise) in headless
Chromium: no console error, the one line in place of the agreement tables, the score and verdict plots, every
item listed and its transcript opening. Needs the Debian package ``chromium`` (see test_report_browser.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate_eval.tasks.analysis.report import write_report
from debate_eval.tasks.cli.main import main

pytestmark = pytest.mark.browser
READY = "document.documentElement.getAttribute('data-report-ready') === '1'"
SCRIPTED = ["--provider", "scripted", "--no-progress", "--method", "geval"]


def _unlabelled_runs(folder: Path) -> list[Path]:
    single = folder / "outputs.jsonl"
    rows = [{"source": f"Article {i}: the council approved the budget.", "output": f"Summary {i}."} for i in range(5)]
    single.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    pairs = folder / "pairs.jsonl"
    rows = [{"question": f"Question {i}?", "output_a": f"A{i}.", "output_b": f"B{i}."} for i in range(3)]
    pairs.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    runs = [folder / "single", folder / "pairs"]
    assert main(["run", "--dataset", str(single), "--aspect", "quality", "--criteria", "Faithful?", "--scale", "1-5",
                 "--out", str(runs[0]), *SCRIPTED]) == 0  # fmt: skip
    assert main(["run", "--dataset", str(pairs), "--fields", "question=question,output_a=output_a,output_b=output_b",
                 "--aspect", "preference", "--out", str(runs[1]), *SCRIPTED]) == 0  # fmt: skip
    return runs


def test_unlabelled_runs_report_in_chromium(browser, tmp_path: Path, isolated_env: Path) -> None:
    runs = _unlabelled_runs(isolated_env)
    browser.open(write_report(runs, tmp_path / "unlabelled.html"))
    browser.wait_until(READY)
    assert browser.evaluate("document.querySelectorAll('p.no-human').length") == 2  # one line per run
    glance = browser.evaluate("document.querySelector('table.glance').textContent")
    assert glance.count("no human ratings") == 2
    plots = browser.evaluate("document.getElementById('plots').textContent")
    assert "score distribution" in plots and "verdicts (no human labels)" in plots and "vs human" not in plots
    assert browser.evaluate("document.querySelectorAll('#items-table tbody tr').length") == 5 + 3
    browser.click("#items-table tbody tr")
    assert browser.evaluate("document.getElementById('viewer').hidden") is False
    assert browser.evaluate("document.querySelectorAll('#viewer .msg').length") >= 1
    browser.click("#viewer-close")
    assert browser.errors() == []
