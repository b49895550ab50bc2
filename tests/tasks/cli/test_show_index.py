"""``show --item ID`` reads one line when the resume index describes the results file: the same transcript as
a scan of the file prints, with no other line decoded; a stale index (the file changed after it was written),
a position or a prefix scan the file as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine import rundir
from debate_eval.tasks.engine.resume_index import last_line_of
from debate_eval.tasks.engine.rundir import INDEX_FILE, KEY_SEPARATOR

ITEMS = 8


def write_rows(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(ITEMS):
            row = {"id": f"r{i}", "source": f"Source number {i}.", "output": f"Output {i}.", "rating": 1 + i % 5}
            handle.write(json.dumps(row) + "\n")
    return path


def run_args(data: Path, out: Path) -> list[str]:
    args = ["run", "--dataset", str(data), "--fields", "source=source,output=output,human=rating,id=id"]
    args += ["--criteria", "Is it good?", "--scale", "1-5", "--aspect", "quality", "--method", "geval"]
    return [*args, "--provider", "scripted", "--out", str(out), "--no-progress"]


class LinesRead:
    """Counts the lines the scan decodes (``rundir.iter_json_lines``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        scan = rundir.iter_json_lines

        def counting(*args: Any, **kwargs: Any) -> Any:
            for found in scan(*args, **kwargs):
                self.count += 1
                yield found

        monkeypatch.setattr(rundir, "iter_json_lines", counting)


@pytest.fixture
def indexed_run(isolated_env: Path) -> Path:
    out = isolated_env / "run"
    assert main(run_args(write_rows(isolated_env / "rows.jsonl"), out)) == 0
    assert (out / INDEX_FILE).is_file()
    return out


def show_item(run: Path, key: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["show", str(run), "--item", key]) == 0
    return capsys.readouterr().out


def test_an_exact_id_is_read_from_its_offset(
    indexed_run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scanned = show_item(indexed_run, "r5", capsys)  # no counting yet: compare with the indexed answer below
    lines = LinesRead(monkeypatch)
    indexed = show_item(indexed_run, "r5", capsys)
    assert lines.count == 0  # the one line was read by its offset, no scan
    assert indexed == scanned and "item r5" in indexed
    (indexed_run / INDEX_FILE).unlink()
    assert show_item(indexed_run, "r5", capsys) == indexed  # the scan without an index prints the same
    assert lines.count == ITEMS


def test_a_stale_index_a_position_and_a_prefix_scan_the_file(
    indexed_run: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = LinesRead(monkeypatch)
    show_item(indexed_run, "3", capsys)  # a position: the scan counts lines
    assert lines.count == ITEMS
    results = indexed_run / "results.jsonl"
    line = next(
        line for line in map(json.loads, results.read_text(encoding="utf-8").splitlines()) if line["item_id"] == "r2"
    )
    line["transcript"][-1]["content"] = "Rated again. Score: 4"
    with results.open("a", encoding="utf-8") as handle:  # a later line of r2: the index no longer matches
        handle.write(json.dumps(line) + "\n")
    assert last_line_of(results, "r2", separator=KEY_SEPARATOR) is None
    assert "Rated again" in show_item(indexed_run, "r2", capsys)  # the last line of r2, found by the scan
    assert lines.count == 2 * ITEMS + 1


def test_the_index_of_a_multi_aspect_run_names_the_items_last_line(tmp_path: Path) -> None:
    """A multi-aspect run's keys are item and aspect: an item's last line is the latest of its aspects'."""
    results = tmp_path / "results.jsonl"
    lines = [{"item_id": item, "aspect": aspect} for aspect in ("coherence", "fluency") for item in ("a", "ab")]
    offsets, at = [], 0
    with results.open("w", encoding="utf-8") as handle:
        for line in lines:
            offsets.append(at)
            at += handle.write(json.dumps(line) + "\n")
    from debate_eval.tasks.engine.resume_index import IndexEntry, save_index

    entries = {
        f"{line['item_id']}{KEY_SEPARATOR}{line['aspect']}": IndexEntry(True, False, offset, 1)
        for line, offset in zip(lines, offsets, strict=True)
    }
    assert save_index(results, config_hash="h", by_aspect=True, entries=entries, duplicates=False, tally={})
    assert last_line_of(results, "a", separator=KEY_SEPARATOR) == offsets[2]
    assert last_line_of(results, "ab", separator=KEY_SEPARATOR) == offsets[3]
    assert last_line_of(results, "b", separator=KEY_SEPARATOR) is None
    assert save_index(results, config_hash="h", by_aspect=True, entries=entries, duplicates=True, tally={})
    assert last_line_of(results, "a", separator=KEY_SEPARATOR) is None  # a repeated key: the scan decides
