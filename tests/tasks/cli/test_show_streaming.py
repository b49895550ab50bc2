"""``show`` reads a run's records one at a time: the table keeps a row of text per item, ``--item`` reads the
record it prints again (each record read is tracked by a weak reference: the older ones are gone as it reads)."""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.cli import show
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.record import Record

ITEMS = 25


def write_run(folder: Path) -> Path:
    folder.mkdir()
    lines = []
    for i in range(ITEMS):
        transcript = [{"index": 0, "agent": "Evaluator", "role": "evaluator", "content": f"Answer {i}. Score: 3"}]
        lines.append(
            {
                "item_id": f"item-{i:02d}",
                "dataset": "summeval",
                "aspect": "coherence",
                "method": "geval",
                "human_score": 1 + i % 5,
                "score": 3.0,
                "parse_status": "parsed",
                "transcript": transcript,
            }
        )
    (folder / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return folder


@pytest.fixture
def tracked(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    seen: dict[str, Any] = {"refs": [], "most_alive": 0, "with_messages": 0}
    reader = show.iter_numbered_file

    def counting(*args: Any, **kwargs: Any) -> Iterator[tuple[int, Record]]:
        for number, record in reader(*args, **kwargs):
            seen["most_alive"] = max(seen["most_alive"], sum(1 for ref in seen["refs"][:-1] if ref() is not None))
            seen["refs"].append(weakref.ref(record))
            seen["with_messages"] += bool(record.transcript)
            yield number, record

    monkeypatch.setattr(show, "iter_numbered_file", counting)
    return seen


def test_the_table_keeps_no_record(tmp_path: Path, tracked: dict[str, Any], capsys: pytest.CaptureFixture) -> None:
    assert main(["show", str(write_run(tmp_path / "run"))]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + ITEMS + 1 and lines[-1].startswith(f"{ITEMS} items")
    assert len(tracked["refs"]) == ITEMS and tracked["most_alive"] == 0 and tracked["with_messages"] == 0


def test_one_item_is_found_without_holding_the_others(
    tmp_path: Path, tracked: dict[str, Any], capsys: pytest.CaptureFixture
) -> None:
    run = write_run(tmp_path / "run")
    assert main(["show", str(run), "--item", "item-07"]) == 0
    assert "Answer 7. Score: 3" in capsys.readouterr().out
    assert tracked["most_alive"] == 0 and tracked["with_messages"] == 0  # the scan reads no messages
    assert main(["show", str(run), "--item", "12"]) == 0  # a position
    assert "Answer 11. Score: 3" in capsys.readouterr().out
    assert main(["show", str(run), "--item", "item-1"]) == 2  # ten ids start with it
    assert "10 items start with it" in capsys.readouterr().err
