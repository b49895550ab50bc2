"""The runner keeps no record: the records (and transcripts) alive during a many-item scripted run do not grow
with the items finished."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest

from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.results import ResultsStore

ITEMS = 2000


def live_records() -> int:
    """Record objects and record-shaped dicts (an item id and a transcript) alive now."""
    gc.collect()
    count = 0
    for obj in gc.get_objects():
        if type(obj) is Record or (type(obj) is dict and "item_id" in obj and "transcript" in obj):
            count += 1
    return count


def test_the_runner_keeps_no_record(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = isolated_env / "rows.jsonl"
    with data.open("w", encoding="utf-8") as handle:
        for i in range(ITEMS):
            handle.write(json.dumps({"id": f"r{i}", "source": f"Source {i}. " * 10, "output": f"Output {i}."}) + "\n")
    samples: dict[int, int] = {}
    append = ResultsStore.append

    def counting_append(self: ResultsStore, record: object) -> None:
        append(self, record)  # type: ignore[arg-type]
        if self.written in (ITEMS // 5, ITEMS):  # a fifth of the way, and at the last item
            samples[self.written] = live_records()

    monkeypatch.setattr(ResultsStore, "append", counting_append)
    args = ["run", "--dataset", str(data), "--criteria", "Is it good?", "--scale", "1-5", "--aspect", "quality"]
    args += ["--method", "geval", "--provider", "scripted", "--out", str(isolated_env / "run"), "--no-cache"]
    assert main([*args, "--concurrency", "16", "--no-progress"]) == 0
    assert set(samples) == {ITEMS // 5, ITEMS}
    # at most the items in flight (16) and a few held by the code at hand, not one per finished item
    assert samples[ITEMS] <= samples[ITEMS // 5] + 20, samples
    assert samples[ITEMS] < 100, samples
