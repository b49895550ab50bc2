"""The resume index beside ``results.jsonl``: a resume that finds it matching the file decodes no finished
line, and one that finds it stale (the file appended to, cut short, edited) or unreadable reads the whole file
as before, repairs it, and writes a new index."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine import rundir
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.rundir import INDEX_FILE

ITEMS = 10


def write_rows(path: Path, rows: int) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for i in range(rows):
            row = {"id": f"r{i}", "source": f"Source number {i}.", "output": f"Output {i}.", "rating": 1 + i % 5}
            handle.write(json.dumps(row) + "\n")
    return path


def run_args(data: Path, out: Path, *extra: str) -> list[str]:
    args = ["run", "--dataset", str(data), "--fields", "source=source,output=output,human=rating,id=id"]
    args += ["--criteria", "Is it good?", "--scale", "1-5", "--aspect", "quality", "--method", "geval"]
    return [*args, "--provider", "scripted", "--out", str(out), "--no-progress", *extra]


class Decodes:
    """Counts the results lines read in full: JSON lines parsed by the run directory, records built."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.lines = 0
        self.records = 0
        iter_json_lines, from_json = rundir.iter_json_lines, Record.from_json.__func__  # type: ignore[attr-defined]

        def counting_lines(*args: Any, **kwargs: Any) -> Any:
            for found in iter_json_lines(*args, **kwargs):
                self.lines += 1
                yield found

        def counting_from_json(cls: type[Record], *args: Any, **kwargs: Any) -> Record:
            self.records += 1
            return from_json(cls, *args, **kwargs)

        monkeypatch.setattr(rundir, "iter_json_lines", counting_lines)
        monkeypatch.setattr(Record, "from_json", classmethod(counting_from_json))


def summary_totals(out: Path) -> dict[str, Any]:
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    summary.pop("this_invocation")
    return summary


@pytest.fixture
def finished_run(isolated_env: Path) -> tuple[Path, Path]:
    data = write_rows(isolated_env / "rows.jsonl", ITEMS)
    out = isolated_env / "run"
    assert main(run_args(data, out, "--limit", "6")) == 0  # two invocations: the index is written by each
    assert main(run_args(data, out)) == 0
    assert (out / INDEX_FILE).is_file()
    return data, out


def test_a_resume_with_a_matching_index_decodes_no_line(
    finished_run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data, out = finished_run
    before = summary_totals(out)
    capsys.readouterr()
    decodes = Decodes(monkeypatch)
    assert main(run_args(data, out)) == 0
    assert (decodes.lines, decodes.records) == (0, 0)
    assert f"{ITEMS} items selected, {ITEMS} already done" in capsys.readouterr().out
    assert summary_totals(out) == before  # the totals kept in the index are the ones the file gives
    assert before["items"] == before["finished"] == ITEMS and before["llm_calls"] + before["cached_calls"] == ITEMS


def test_the_index_of_a_file_appended_to_is_ignored_and_rebuilt(
    finished_run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data, out = finished_run
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])
    results.write_bytes(b"".join(lines[1:]))  # item r0 gone: as an index of the longer file no longer matches
    with results.open("ab") as handle:  # and a torn last line, as a run killed mid-write leaves
        handle.write(json.dumps(first).encode()[:40])
    decodes = Decodes(monkeypatch)
    assert main(run_args(data, out)) == 0
    assert decodes.lines >= ITEMS - 1  # the whole file read again
    assert "is incomplete (an interrupted write); skipped" in capsys.readouterr().err
    ids = [json.loads(line)["item_id"] for line in results.read_bytes().splitlines()]
    assert sorted(ids) == sorted(f"r{i}" for i in range(ITEMS))  # r0 ran again, the torn line is gone
    assert summary_totals(out)["items"] == ITEMS
    index = json.loads((out / INDEX_FILE).read_text(encoding="utf-8"))
    assert sorted(index["keys"]) == sorted(ids) and index["results"]["size"] == results.stat().st_size


def test_an_edit_that_keeps_size_and_time_is_seen_by_the_hash_of_the_tail(
    finished_run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, out = finished_run
    results = out / "results.jsonl"
    info = results.stat()
    lines = results.read_bytes().splitlines(keepends=True)
    assert lines[-1].count(b'"error": null') == 1
    edited = lines[-1].replace(b'"error": null', b'"error": "ab"')  # the item failed, says the edit; same size
    results.write_bytes(b"".join(lines[:-1]) + edited)
    os.utime(results, ns=(info.st_atime_ns, info.st_mtime_ns))
    decodes = Decodes(monkeypatch)
    assert main(run_args(data, out)) == 0
    assert decodes.lines >= ITEMS  # read whole: the edited item is seen as failed, and run again
    records = [json.loads(line) for line in results.read_bytes().splitlines()]
    assert len(records) == ITEMS and all(record["error"] is None for record in records)


@pytest.mark.parametrize("garbage", [b"", b"{", b'{"format": 1}', b"[]"])
def test_an_unreadable_index_is_ignored_and_rebuilt(
    finished_run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, garbage: bytes
) -> None:
    data, out = finished_run
    before = summary_totals(out)
    (out / INDEX_FILE).write_bytes(garbage)
    decodes = Decodes(monkeypatch)
    assert main(run_args(data, out)) == 0
    assert decodes.lines == ITEMS
    assert summary_totals(out) == before
    decodes.lines = 0
    assert main(run_args(data, out)) == 0  # the index written by the last resume serves the next one
    assert decodes.lines == 0


def test_an_index_of_another_configuration_is_not_used(
    finished_run: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, out = finished_run
    index = json.loads((out / INDEX_FILE).read_text(encoding="utf-8"))
    index["config_hash"] = "0" * 16
    (out / INDEX_FILE).write_text(json.dumps(index), encoding="utf-8")
    decodes = Decodes(monkeypatch)
    assert main(run_args(data, out)) == 0
    assert decodes.lines == ITEMS


def test_the_key_index_behaves_as_a_dict_of_entries(tmp_path: Path) -> None:
    """The compact index (keys in one text, entries packed) against a dict under the same random sets,
    removals and lookups: the same entries in the same order; saved and loaded back whole."""
    import random

    from debate_eval.tasks.engine.resume_index import IndexEntry, KeyIndex, load_index, save_index

    chance = random.Random(7)
    index, plain = KeyIndex({"loaded": IndexEntry(True, False, 0, 2)}), {"loaded": IndexEntry(True, False, 0, 2)}
    for _ in range(20000):
        key = f"k{chance.randrange(3000)}" if chance.random() < 0.95 else "loaded"
        roll = chance.random()
        if roll < 0.7:
            version = chance.choice([None, 0, 1, 3, 300, "x"])
            entry = IndexEntry(chance.random() < 0.5, chance.random() < 0.3, chance.randrange(10**12), version)
            index[key] = plain[key] = entry
        elif roll < 0.85:
            assert (key in index) == (key in plain)
            if key in plain:
                assert index.pop(key) == plain.pop(key)
        else:
            assert index.get(key) == plain.get(key)
        assert len(index) == len(plain)
    assert list(index) == list(plain) and list(index.items()) == list(plain.items()) and len(plain) > 1000
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"{}\n")
    saved = {key: entry._replace(offset=0) for key, entry in plain.items() if not isinstance(entry.parser_version, str)}
    assert save_index(results, config_hash="h", by_aspect=False, entries=KeyIndex(saved), duplicates=False, tally={})
    loaded = load_index(results, config_hash="h", by_aspect=False)
    assert loaded is not None and loaded.entries == saved and list(loaded.entries) == list(saved)
