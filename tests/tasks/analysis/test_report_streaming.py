"""The report reads a run's records one at a time: it keeps a short item per record and the records it embeds,
never every record (each record read is tracked by a weak reference: the older ones are gone as it reads)."""

from __future__ import annotations

import gzip
import json
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import report_records as rr  # this folder (see conftest.py)

from debate_eval.tasks.analysis import report
from debate_eval.tasks.analysis.report import gather, numbers, write_report
from debate_eval.tasks.analysis.report.page import SIDECAR_SUFFIX, unpack_records
from debate_eval.tasks.engine.record import Record

ITEMS = 30


class Tracker:
    """Weak references to every record a reader yields; ``most_alive``: the most records among those yielded
    before the previous one still alive when the next was read."""

    def __init__(self) -> None:
        self.refs: list[weakref.ref[Record]] = []
        self.most_alive = 0

    def track(self, record: Record) -> Record:
        self.most_alive = max(self.most_alive, sum(1 for ref in self.refs[:-1] if ref() is not None))
        self.refs.append(weakref.ref(record))
        return record

    def wrap(self, reader: Callable[..., Iterator[Any]], pick: Callable[[Any], Record]) -> Callable[..., Iterator[Any]]:
        def tracked(*args: Any, **kwargs: Any) -> Iterator[Any]:
            for value in reader(*args, **kwargs):
                self.track(pick(value))
                yield value

        return tracked


def test_the_report_never_holds_the_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    records = [rr.debate_record(i, float(1 + i % 5), [float(1 + i % 3), float(1 + i % 5)]) for i in range(ITEMS)]
    run = rr.write_run(tmp_path / "run", records)
    scan, reread = Tracker(), Tracker()
    monkeypatch.setattr(gather, "iter_numbered_file", scan.wrap(gather.iter_numbered_file, lambda pair: pair[1]))
    monkeypatch.setattr(gather, "lines_at", reread.wrap(gather.lines_at, lambda pair: pair[1]))
    monkeypatch.setattr(report, "SAMPLE_ITEMS", 4)
    page = write_report([run], tmp_path / "report.html", with_texts=False)
    assert len(scan.refs) == ITEMS and len(reread.refs) == ITEMS  # every record read once a pass
    assert scan.most_alive == 0 and reread.most_alive == 0  # none kept beyond the one being read
    assert all(ref() is None for ref in scan.refs + reread.refs)
    full = json.loads(gzip.decompress(page.with_name(page.name + SIDECAR_SUFFIX).read_bytes()))
    assert [r["item_id"] for r in full["records"]] == [r["item_id"] for r in records]  # every record, in order
    html = page.read_text(encoding="utf-8")
    packed = html.split('id="report-records"', 1)[1].split(">", 1)[1].split("<", 1)[0]
    assert [r["item_id"] for r in unpack_records(packed)] == [records[i]["item_id"] for i in (0, 7, 15, 22)]
    assert "Scorer after each Critic round" in html  # the figures come from the items


def test_a_repeated_item_keeps_its_first_place_and_its_last_line(tmp_path: Path) -> None:
    first, second = rr.debate_record(1, 2.0, [4.0]), rr.debate_record(2, 3.0, [3.0])
    again = rr.debate_record(1, 2.0, [2.0])  # a resumed run judged item 1 again
    (run,) = gather.load_runs([rr.write_run(tmp_path / "run", [first, second, again])])
    assert [(item.item_id, item.score) for item in run.items] == [(first["item_id"], 2.0), (second["item_id"], 3.0)]
    assert [record.score for record in run.records] == [2.0, 3.0]
    usage = numbers.totals(run)["usage"]["scorer"]  # summed over the latest line per item, the repeat not twice
    assert usage["prompt_tokens"] == 2 * 30 and usage["calls"] == 1 + 1
