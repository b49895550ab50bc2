"""The run directory: ``config.json`` and ``results.jsonl``, appended item by item, safe to resume.

- Each finished item is one JSON line, written with a single ``write`` and flushed to the operating system
  at once, so finished work survives an interrupted or killed run; the file is fsynced when the run ends
  (not per line: an fsync on the event loop would stall every debate in flight).
- A rerun with the same ``--out`` skips the items already done under the same configuration (matched by
  item id and config hash) and retries items that failed. A different configuration is refused.
- A final line cut short by a crash (``kill -9`` mid-write) is dropped when the run resumes, with a notice;
  a complete final line without its newline gets one.
- When an item is retried, its earlier failed line is dropped (the file is rewritten atomically), so the
  file never holds two lines for one item.
- One run at a time: the store holds the run directory's lock (``lock.py``) from its creation to ``close()``;
  a second run on the same ``--out`` refuses with one line naming the owner. Taking the lock is also the
  up-front check that the folder is writable.
- A write that fails (a full disk) stops the run with one line; a partly written line is cut off, so the
  file keeps only whole lines; temporary files are removed.
- The store keeps an index of the items in the file (their keys, whether each is finished under this
  configuration, where each line starts), not their records, and the run's totals (``Tally``). When it closes
  it saves both beside the file (``resume_index``): the next resume reads that instead of decoding every line,
  as long as it matches the file; otherwise it reads the file once, one record at a time, checking every line.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.fd_budget import open_file_limit
from debate_eval.tasks.engine.config_checksum import edit_note, result_config_edited
from debate_eval.tasks.engine.record import Record, validate_record
from debate_eval.tasks.engine.resume_index import IndexEntry, KeyIndex, discard_index, load_index, save_index
from debate_eval.tasks.engine.rundir import (
    ResultsWriteError,
    RunDir,
    ScanEnd,
    fsync_directory,
    iter_json_lines,
    line_record,
    record_result_key,
    repair_tail,
    write_json_atomic,
    written_line,
)
from debate_eval.tasks.engine.tally import Tally

__all__ = [
    "ResultsStore",
    "ResultsWriteError",
    "read_jsonl",
    "write_advice",
    "write_json_atomic",
]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read a results file (none: empty) as JSON objects; every line is checked by ``validate_record`` (the
    record check of every reader), so no command accepts a line that another rejects. An interrupted last
    line is left out, with a notice (``iter_json_lines``)."""
    if not path.exists():
        return []
    return [validate_record(obj, path, number) for number, obj in iter_json_lines(path)]


class ResultsStore:
    """The results of one run directory, held under the run lock from creation to ``close()``."""

    def __init__(
        self,
        out_dir: Path,
        config: Mapping[str, Any],
        config_hash: str,
        *,
        by_aspect: bool = False,
        on_record: Callable[[Record], None] | None = None,
    ) -> None:
        """Take the lock, check or write ``config.json`` and index ``results.jsonl`` (repairing an interrupted
        last line), from the saved index when it matches the file (``resume_index``). ``tally`` counts the
        run's records of this configuration (the last line of each key), and every record appended of it;
        ``tally_exact`` says whether that still holds. ``on_record`` is given every record of this
        configuration found in the file, without its messages (the file is then read whole)."""
        self.out_dir = out_dir
        self.run_dir = RunDir(out_dir)
        self.config_hash = config_hash
        self.by_aspect = by_aspect  # a multi-aspect run (``engine.aspects``): one result per item and aspect
        self.results_path = self.run_dir.results_path
        self.config_path = self.run_dir.config_path
        self.written = 0  # lines appended by this invocation
        # key -> (the line is of this configuration, the item failed, its byte offset, ...); the last line wins
        self._index = KeyIndex()  # a dict's behaviour in a few bytes a key (a run of 100k items)
        self._duplicates = False  # the file repeats a key (files of earlier versions)
        self.tally = Tally()  # the run's records of this configuration
        self.tally_exact = True  # every record in ``tally`` is still the run's record of its key
        self._index_ok = False  # the index describes the file (it was read or loaded without an error)
        self._fd: int | None = None
        self.lock = self.run_dir.take_lock("; use another --out")
        try:
            self._check_writable(self.results_path)
            self._check_or_write_config(config)
            self._read_index(on_record)
        except BaseException:
            self.lock.release()
            raise

    def _read_index(self, on_record: Callable[[Record], None] | None, *, use_saved: bool = True) -> None:
        """The index of the file: the saved one when it matches the file, else every line read and checked."""
        if use_saved and on_record is None and self.results_path.is_file():
            saved = load_index(self.results_path, config_hash=self.config_hash, by_aspect=self.by_aspect)
            if saved is not None:
                with contextlib.suppress(KeyError, TypeError, ValueError):  # a tally that does not read: read all
                    self.tally = Tally.from_state(saved.tally)
                    self._index, self._duplicates = KeyIndex(saved.entries), saved.duplicates
                    self._index_ok = True
                    return
        discard_index(self.results_path)  # stale from here on (the file is repaired or appended to)
        end = ScanEnd()
        for record in self.run_dir.iter_records(end, messages=False):
            key = self.key(record)
            mine = record.config_hash == self.config_hash
            if key in self._index:
                self._duplicates = True
                if self._index[key].mine:
                    self.tally_exact = False  # an earlier line of this key was tallied
            self._index[key] = IndexEntry(mine, bool(record.error), end.line_start, record.parser_version)
            if mine:
                self.tally.add(record)
                if on_record is not None:
                    on_record(record)
        if self.results_path.is_file():
            repair_tail(self.results_path, end)
        self._index_ok = True

    def reread_index(self) -> None:
        """Index the file again after it was rewritten under this store's lock (its lines moved: the records
        an older parser read, re-read by ``reread.reread_run``): every line read and checked, and the run's
        totals counted again from them."""
        self._index = KeyIndex()
        self._duplicates = False
        self.tally, self.tally_exact = Tally(), True
        self._index_ok = False
        self._read_index(None, use_saved=False)

    def _check_writable(self, path: Path) -> None:
        """An existing results file must take appends (the folder's own check was taking the lock)."""
        if not path.exists():
            return
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        except OSError as exc:
            raise UserError(f"{path}: cannot write the results file ({exc.strerror}); use another --out") from None

    def _check_or_write_config(self, config: Mapping[str, Any]) -> None:
        """Write ``config.json`` (with its checksums), or check the one there against this configuration.

        A file edited by hand (``config_checksum``) is restored when this is the run's own configuration (the
        same config hash; the edited file is kept beside it) and refused otherwise, naming the edited fields.
        """
        existing = self.run_dir.run_config(advice="; use a new --out directory")
        if existing is not None:
            has_results = self.run_dir.has_results()
            edited = edit_note(self.config_path, existing)
            if existing.get("config_hash") != self.config_hash and has_results:
                if edited:
                    raise UserError(
                        f"{edited}; its results were made with the configuration it was written with: use a new "
                        "--out directory, or rerun the run's own command (that restores config.json)"
                    )
                differing = ", ".join(_differences(existing.get("result_config", {}), config.get("result_config", {})))
                if not differing and result_config_edited(existing):  # a file of an earlier version: no checksums
                    differing = "config.json's result_config, edited by hand (it no longer matches its config_hash)"
                raise UserError(
                    f"{self.out_dir} holds results of a different configuration (differs in: "
                    f"{differing or 'the configuration hash only: written by another version'}); use a new --out "
                    "directory, or rerun with the same settings"
                )
            if has_results and not edited:
                return
            if has_results:  # the run's own configuration: restore the file, keep the edited one beside it
                kept = self.run_dir.edited_config_path(time.strftime("%Y%m%d-%H%M%S"))
                os.replace(self.config_path, kept)
                print(
                    f"debate-eval: note: {edited}; restored from this run's configuration (the same config hash "
                    f"{self.config_hash}); the edited file is kept as {kept.name}",
                    file=sys.stderr,
                )
            # else no result was written under the old configuration (e.g. its endpoint check failed): replace it
        self.run_dir.write_config(dict(config))

    def key(self, record: Record) -> str:
        """A record's resume key: its item id, with its aspect in a multi-aspect run (``rundir.result_key``)."""
        return record_result_key(record, self.by_aspect)

    def done_ids(self) -> set[str]:
        """Keys (``key``) of the items already finished under this configuration (failed items are not done)."""
        return {key for key, entry in self._index.items() if entry.mine and not entry.failed}

    def get(self, key: str) -> Record | None:
        """The record of ``key`` (``key``), read from the file; None when the file has none."""
        entry = self._index.get(key)
        return None if entry is None else self.run_dir.record_at(entry.offset)

    def entries(self) -> Mapping[str, IndexEntry]:
        """The index by key: whether each line is of this configuration, failed, where it starts and the parser
        version that read it (read-only: the store keeps it)."""
        return self._index

    def __len__(self) -> int:
        """Items (keys) in the results file."""
        return len(self._index)

    def run_records(self, *, messages: bool = True) -> Iterator[Record]:
        """The run's records, one at a time: the last line of each key, of this configuration (``messages``:
        with their transcripts)."""
        if not self._duplicates:
            for record in self.run_dir.iter_records(messages=messages):
                if record.config_hash == self.config_hash:
                    yield record
            return
        last = {self.key(record): number for number, record in self.run_dir.iter_numbered(messages=False)}
        for number, record in self.run_dir.iter_numbered(messages=messages):
            if record.config_hash == self.config_hash and last[self.key(record)] == number:
                yield record

    def prepare_retries(self, item_ids: Iterable[str]) -> None:
        """Drop the old (failed) lines of items about to be run again.

        The file is rewritten from its own lines (every other line kept byte for byte) into a temporary file
        that is fsynced and then renamed over it; the run lock guarantees no other run appends meanwhile.
        """
        retry = {key for key in item_ids if key in self._index}  # no set of every key to run (100k items)
        if not retry:
            return
        tmp = self.run_dir.results_temp_path()
        offsets: dict[str, int] = {}
        try:
            with tmp.open("wb") as handle, self.results_path.open("rb") as source:
                for raw in source:  # every kept line byte for byte, one at a time
                    key = self.key(line_record(raw, self.results_path)) if raw.strip() else None
                    if key is not None and key not in retry:
                        offsets[key] = handle.tell()
                        handle.write(raw if raw.endswith(b"\n") else raw + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.results_path)
        except OSError as exc:
            self._index_ok = False
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise ResultsWriteError(
                f"{self.results_path}: cannot rewrite the results file to retry failed items ({exc.strerror}); "
                "it is unchanged"
            ) from None
        fsync_directory(self.out_dir)
        for key in retry:
            if self._index.pop(key).mine:
                self.tally_exact = False  # its record was tallied and is gone
        for key, offset in offsets.items():
            self._index[key] = self._index[key]._replace(offset=offset)

    def append(self, record: Record | Mapping[str, Any]) -> None:
        """Append one item's record with a single write and hand it to the operating system.

        On a write error (a full disk) a partly written line is cut off again, so the file keeps only whole
        lines, and a one-line ``ResultsWriteError`` says how many results are saved.
        """
        data = written_line(record.to_json() if isinstance(record, Record) else dict(record))  # secrets masked
        self._write_line(data, record if isinstance(record, Record) else Record.from_json(json.loads(data)))

    def append_raw(self, raw: bytes, record: Record) -> None:
        """Append a line written by another results store of this run (a worker's: checked and redacted there)
        as it is, with a single write; ``record`` is that line read (without its messages is enough): its
        key, configuration, error and totals are indexed from it."""
        self._write_line(raw if raw.endswith(b"\n") else raw + b"\n", record)

    def _write_line(self, data: bytes, written: Record) -> None:
        """Append ``data`` (one whole line) and index ``written``, its record."""
        before: int | None = None
        try:
            if self._fd is None:
                self._fd = os.open(self.results_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            before = os.fstat(self._fd).st_size
            _write_all(self._fd, data)
        except OSError as exc:
            self._index_ok = False  # whatever the file holds now, the next resume reads and checks it whole
            if self._fd is not None and before is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, before)
            raise ResultsWriteError(
                f"{self.results_path}: cannot write a result ({exc.strerror}); the run stopped; "
                f"{self.kept_text()}: {write_advice(exc)} and rerun the same command to resume"
            ) from None
        self.written += 1
        key, mine = self.key(written), written.config_hash == self.config_hash
        if mine:
            earlier = self._index.get(key)
            if earlier is not None and earlier.mine:
                self.tally_exact = False  # the key's earlier record was tallied
            self.tally.add(written)
        self._index[key] = IndexEntry(mine, bool(written.error), before or 0, written.parser_version)

    def kept_text(self) -> str:
        """What is safe in the results file, for a message: "the N results already written (F finished, E
        failed) are kept"."""
        failed = sum(1 for entry in self._index.values() if entry.failed)
        done = len(self._index) - failed
        return f"the {len(self._index)} results already written ({done} finished, {failed} failed) are kept"

    def recount(self) -> None:
        """Count the run's totals again from the file (the last line of each key) when a retried or repeated
        item made ``tally`` count a record that is no longer the run's."""
        if self.tally_exact:
            return
        tally = Tally()
        for record in self.run_records(messages=False):
            tally.add(record)
        self.tally, self.tally_exact = tally, True

    def close(self) -> None:
        """Flush the results file to disk and close it, save the index and the totals beside it (the totals
        counted again first if need be: ``recount``), and release the run lock (never raises)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            with contextlib.suppress(OSError):
                os.fsync(fd)
            with contextlib.suppress(OSError):
                os.close(fd)
        try:
            if self._index_ok and self.results_path.is_file():
                self.recount()
                save_index(
                    self.results_path,
                    config_hash=self.config_hash,
                    by_aspect=self.by_aspect,
                    entries=self._index,
                    duplicates=self._duplicates,
                    tally=self.tally.to_state(),
                )
        except Exception:  # the index is a speed-up: without it the next resume reads the whole file
            discard_index(self.results_path)
        finally:
            self.lock.release()


def write_advice(exc: OSError) -> str:
    """What to do about a failed write: out of file descriptors is no full disk."""
    if exc.errno in (errno.EMFILE, errno.ENFILE):
        limit = open_file_limit()
        where = f" (ulimit -n {limit})" if limit else ""
        return (
            f"the process reached its open-file limit{where}, this is not a disk problem: lower --concurrency "
            "or raise the limit"
        )
    return "free space (or fix the folder)"


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until every byte is written (a short write is retried)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _differences(old: Any, new: Any, prefix: str = "", sides: tuple[str, str] = ("in the run", "now")) -> list[str]:
    """The dotted paths where two result configurations differ; a short value is shown on both ``sides``
    (``debate.max_rounds (2 in the run, 1 now)``), a long one (a prompt's text) only named."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            out += _differences(old.get(key), new.get(key), f"{prefix}{key}.", sides)
        return out
    if old == new:
        return []
    shown = [json.dumps(value) for value in (old, new)]
    if max(map(len, shown)) <= 40 and not any(isinstance(value, (dict, list)) for value in (old, new)):
        return [f"{prefix.rstrip('.')} ({shown[0]} {sides[0]}, {shown[1]} {sides[1]})"]
    return [prefix.rstrip(".")]
