"""A run directory written by an earlier version is read unchanged: ``fixtures/run-e660457`` is a three-item
scripted DEBATE run (``run --dataset summeval --aspect coherence --limit 3 --provider scripted``) written by the
code at commit e660457, before the engine was split into the Session, the run directory and the backends.
``show``, ``meta-eval``, ``report`` read it and a resume finds every item done, adding nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from debate_eval.tasks.cli.main import main

FIXTURE = Path(__file__).parent / "fixtures" / "run-e660457"


@pytest.fixture
def earlier_run(isolated_env: Path) -> Path:
    out = isolated_env / "earlier"
    shutil.copytree(FIXTURE, out)
    return out


def item_ids() -> list[str]:
    """The item ids of the fixture's lines, read with json alone."""
    text = (FIXTURE / "results.jsonl").read_text(encoding="utf-8")
    return [json.loads(line)["item_id"] for line in text.splitlines()]


def test_show_lists_every_item(earlier_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(earlier_run)]) == 0
    shown = capsys.readouterr().out
    assert len(item_ids()) == 3 and all(item_id in shown for item_id in item_ids())
    assert "3 items" in shown


def test_meta_eval_counts_every_item(earlier_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["meta-eval", str(earlier_run), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["summeval"]["coherence"]["n_items"] == len(item_ids())


def test_report_shows_every_item(earlier_run: Path, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    assert main(["report", str(earlier_run), "--out", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert all(item_id in html for item_id in item_ids())


def test_a_resume_finds_every_item_done(earlier_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = (earlier_run / "results.jsonl").read_bytes()
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "3", "--provider", "scripted"]
    assert main([*args, "--out", str(earlier_run), "--no-progress"]) == 0
    assert "3 items selected, 3 already done" in capsys.readouterr().out
    assert (earlier_run / "results.jsonl").read_bytes() == before  # nothing run again, nothing rewritten
    summary = json.loads((earlier_run / "summary.json").read_text(encoding="utf-8"))
    assert summary["this_invocation"]["finished"] == 0 and summary["finished"] == 3
