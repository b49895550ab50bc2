"""The runner keeps no record: the records (and transcripts) alive during a many-item scripted run do not grow
with the items finished."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.registry import Item
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


def test_the_runner_holds_only_the_items_it_judges(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run takes each item from its file as a lane starts it: while the N-th item is judged, the items
    alive are those in flight (at most --concurrency), not one per item of the file."""
    from debate_eval.tasks.data.own_rows import RowItems
    from debate_eval.tasks.engine import session

    data = isolated_env / "rows.jsonl"
    with data.open("w", encoding="utf-8") as handle:
        for i in range(ITEMS):
            handle.write(json.dumps({"id": f"r{i}", "source": f"Source {i}. " * 10, "output": f"Output {i}."}) + "\n")
    samples: dict[int, int] = {}
    judged: list[str] = []
    made: weakref.WeakSet[Item] = weakref.WeakSet()  # every item made from a row of the file
    evaluate_one, row_item = session.evaluate_one, RowItems.item

    def recording_item(self: RowItems, *args: Any) -> Item | None:
        item = row_item(self, *args)
        if item is not None:
            made.add(item)
        return item

    def live_items() -> int:
        gc.collect()
        return len(made)

    async def counting_evaluate_one(evaluator: object, item: Item, *args: object, **kwargs: object) -> object:
        judged.append(item.item_id)
        if len(judged) in (ITEMS // 5, ITEMS):  # a fifth of the way, and the last item
            samples[len(judged)] = live_items()
        return await evaluate_one(evaluator, item, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session, "evaluate_one", counting_evaluate_one)
    monkeypatch.setattr(RowItems, "item", recording_item)
    args = ["run", "--dataset", str(data), "--criteria", "Is it good?", "--scale", "1-5", "--aspect", "quality"]
    args += ["--method", "geval", "--provider", "scripted", "--out", str(isolated_env / "run"), "--no-cache"]
    assert main([*args, "--concurrency", "16", "--no-progress"]) == 0
    assert sorted(judged) == sorted(f"r{i}" for i in range(ITEMS))
    assert set(samples) == {ITEMS // 5, ITEMS}
    # the items in flight (16), the one being handed to a lane, and none of the 2,000 of the file besides
    assert 1 <= samples[ITEMS // 5] <= 16 + 2 and 1 <= samples[ITEMS] <= 16 + 2, samples
