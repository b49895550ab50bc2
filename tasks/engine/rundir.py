"""The run directory: the one reader and writer of ``config.json``, ``results.jsonl``, the resume index
(``results.index.json``) and ``summary.json``: no other module names those files, it asks :class:`RunDir` for
their paths (``config_path``, ``results_path``, ``index_path``, ``summary_path``, the temporary file of a
rewrite) or for the documents.

The engine, the API (``load_run``), ``show``, ``rescore``, ``meta-eval``, ``report`` and ``audit`` open a run
directory through :class:`RunDir`:

- ``config`` / ``summary``: the JSON documents (``{}`` when absent, one line when unreadable;
  ``config_if_readable()``: None for a reader that goes on without it; ``run_config()``: the document a resumed
  run checks and a merge copies, with their own messages); ``write_config`` seals the document
  with its checksums (``config_checksum``) and writes it atomically;
- ``iter_records()``: the records of ``results.jsonl``, one at a time (the file is never held whole), each
  checked by ``Record.from_json`` (one line naming file, line and field when a line is unusable); a last line
  cut short by a crash is skipped with a notice;
- ``latest_records()``: the latest record per key (a resumed run may repeat an item);
- ``lock()``: the directory's run lock (``lock.py``); ``take_lock()``: the folder created and its lock taken;
  ``write_json_atomic``: a temporary file and a rename.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import redact_record
from debate_eval.tasks.engine.config_checksum import fields_text, sealed
from debate_eval.tasks.engine.lock import RunLock, owner_text
from debate_eval.tasks.engine.record import Record, validate_record

CONFIG_FILE = "config.json"
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
INDEX_FILE = "results.index.json"  # the resume index (resume_index.py), beside the results file
RUN_FILES = (CONFIG_FILE, RESULTS_FILE, SUMMARY_FILE, INDEX_FILE)
AUDIT_FILE = "audit.json"  # what an audit folder (tasks/audit/folder.py) holds; its sub-runs are DIR/JUDGE/RUN
KEY_SEPARATOR = "\x1f"  # between item id and aspect in a multi-aspect run's resume key


def refuse_run_file(path: str | os.PathLike[str], flag: str = "--out") -> None:
    """A one-line ``UserError`` when ``path`` is one of a run directory's own files: a page or a table written
    there would replace the run's results (or its config)."""
    target = Path(path)
    if target.name in RUN_FILES and RunDir(target.parent).is_run():
        raise UserError(f"{flag} {target}: a file of the run directory {target.parent}; write it elsewhere")


def refuse_foreign_file(target: Path, what: str, ours: Callable[[Path], bool]) -> None:
    """A one-line ``UserError`` when the ``--out`` ``target`` exists and ``ours(target)`` is false (it is not
    ``what``): a file the command wrote earlier is replaced, any other file is kept."""
    if target.exists() and not ours(target):
        raise UserError(
            f"--out {target}: already exists and is not {what}; give another --out (or move that file away)"
        )


class ResultsWriteError(UserError):
    """A result could not be written (disk full, folder gone read-only): the run stops, finished lines stay."""


@dataclass
class ScanEnd:
    """Where a scan of a results file ended: the byte length of its good part (an interrupted last line is
    not counted)."""

    good_end: int = 0
    line_start: int = 0  # the byte offset of the line just read
    line: bytes = b""  # the line just read, as the file holds it


def iter_json_lines(path: Path, end: ScanEnd | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON-lines file with their line numbers (counted from 1), one at a time.

    A last line with no trailing newline that does not parse is an interrupted write: it is left out, with a
    notice on stderr. Any other line that is not a JSON object is a ``UserError`` naming file and line.
    ``end`` (if given) is filled in as the scan goes: the byte length of the good part of the file.
    """
    end = end if end is not None else ScanEnd()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            unterminated = not raw.endswith(b"\n")
            if raw.strip():
                try:
                    obj = json.loads(raw)
                except (json.JSONDecodeError, UnicodeDecodeError):
                    if unterminated:
                        print(
                            f"warning: {path}: line {number} is incomplete (an interrupted write); skipped",
                            file=sys.stderr,
                        )
                        return
                    raise UserError(f"{path}: line {number} is not valid JSON; fix or remove that line") from None
                if not isinstance(obj, dict):
                    raise UserError(f"{path}: line {number} is not a JSON object")
                end.line_start, end.line = end.good_end, raw
                end.good_end += len(raw)
                yield number, obj
            else:
                end.good_end += len(raw)


def iter_numbered_file(
    path: Path, end: ScanEnd | None = None, *, redact: bool = False, messages: bool = True
) -> Iterator[tuple[int, Record]]:
    """The records of a results file (a run directory's ``results.jsonl`` or a copy under another name) with
    their line numbers, one at a time, as ``RunDir.iter_numbered`` reads them."""
    end = end if end is not None else ScanEnd()
    for number, obj in iter_json_lines(path, end):
        if redact:  # checked before the masking, as the file holds it
            obj, _ = redact_record(validate_record(obj, path, number))
        yield number, Record.from_json(obj, path=path, line=number, messages=messages)


def lines_at(path: Path, offsets: Iterable[int], *, redact: bool = False) -> Iterator[tuple[dict[str, Any], Record]]:
    """The lines of a results file that start at the byte ``offsets`` (from a scan's ``ScanEnd.line_start``),
    one at a time, in the order given: each line's JSON object as the file holds it and its record; with
    ``redact``, every configured secret masked in both."""
    with path.open("rb") as handle:
        for offset in offsets:
            handle.seek(offset)
            obj = json.loads(handle.readline())
            if redact:
                obj, _ = redact_record(validate_record(obj, path))
            yield obj, Record.from_json(obj, path=path)


def repair_tail(path: Path, end: ScanEnd) -> None:
    """Cut an interrupted last line from ``path`` and give a complete last line its missing newline, so the
    next append starts a line of its own (``end``: a finished scan of the file)."""
    size = path.stat().st_size
    if not size:
        return
    with path.open("r+b") as handle:
        if end.good_end < size:
            handle.truncate(end.good_end)
        if end.good_end:
            handle.seek(end.good_end - 1)
            if handle.read(1) != b"\n":
                handle.write(b"\n")


class RunDir:
    """A run directory (it need not exist yet): its files, documents, records and lock."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"RunDir({str(self.path)!r})"

    @property
    def config_path(self) -> Path:
        """``config.json``."""
        return self.path / CONFIG_FILE

    @property
    def results_path(self) -> Path:
        """``results.jsonl``."""
        return self.path / RESULTS_FILE

    @property
    def summary_path(self) -> Path:
        """``summary.json``."""
        return self.path / SUMMARY_FILE

    @property
    def index_path(self) -> Path:
        """The resume index of ``results.jsonl`` (``resume_index.py``)."""
        return index_path_of(self.results_path)

    def results_temp_path(self, suffix: str = ".tmp") -> Path:
        """The temporary file a rewrite of ``results.jsonl`` writes before its rename (this process's)."""
        return self.path / f".{RESULTS_FILE}.{os.getpid()}{suffix}"

    def stale_results_temps(self, suffix: str) -> list[Path]:
        """The temporary files of rewrites with ``suffix`` that a killed process left (any process's)."""
        return sorted(self.path.glob(f".{RESULTS_FILE}.*{suffix}"))

    def edited_config_path(self, stamp: str) -> Path:
        """Where a ``config.json`` edited by hand is kept when the run restores its own (``stamp``: when)."""
        return self.path / f"{CONFIG_FILE}.edited-{stamp}"

    @classmethod
    def of_results(cls, results: Path) -> RunDir:
        """The run directory of a results file (its folder)."""
        return cls(results.parent)

    def is_results_file(self, path: Path) -> bool:
        """True when ``path`` is named as a run directory's results file (``results.jsonl``)."""
        return path.name == RESULTS_FILE

    def has_results(self) -> bool:
        """True when ``results.jsonl`` exists and is not empty."""
        return self.results_path.is_file() and self.results_path.stat().st_size > 0

    def is_run(self) -> bool:
        """True when the folder holds ``results.jsonl`` or ``config.json``."""
        return self.results_path.is_file() or self.config_path.is_file()

    def not_a_run_text(self) -> str:
        """The words of the error for a folder that is no run directory."""
        return f"not a run directory (no {RESULTS_FILE} or {CONFIG_FILE})"

    # -- documents ----------------------------------------------------------------------------------------------

    @property
    def config(self) -> dict[str, Any]:
        """``config.json`` (``{}`` when absent); a file that is not a JSON object is a one-line ``UserError``."""
        return read_json_object(self.config_path)

    def config_if_readable(self) -> dict[str, Any] | None:
        """``config.json`` when it is there and a JSON object, else None (for a reader that goes on without it)."""
        try:
            value = json.loads(self.config_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def run_config(self, *, advice: str = "", merging: bool = False) -> dict[str, Any] | None:
        """``config.json`` for a reader that checks or copies the run's configuration (None when absent; with
        ``merging``, a shard to merge, it must be there and carry its ``config_hash``). A file that cannot be
        read, is not JSON or is no JSON object is a one-line ``UserError`` naming it, ending with ``advice``."""
        path = self.config_path
        if not path.is_file():
            if merging:
                raise UserError(f"{self.path}: not a run directory (no {CONFIG_FILE})")
            return None
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UserError(f"{path}: cannot read it ({exc.strerror}){advice}") from None
        except ValueError:
            raise UserError(f"{path}: not valid JSON{advice}") from None
        if not isinstance(document, dict) or (merging and not document.get("config_hash")):
            raise UserError(f"{path}: not a debate-eval config.json{' (no config_hash)' if merging else ''}{advice}")
        return document

    @property
    def summary(self) -> dict[str, Any]:
        """``summary.json`` (``{}`` when absent)."""
        return read_json_object(self.summary_path)

    def write_config(self, document: dict[str, Any], *, seal: bool = True) -> None:
        """Write ``config.json`` atomically, sealed with its checksums (``config_checksum``) unless ``seal`` is
        False (a derived run's document as its writer makes it: an import, an ensemble)."""
        write_json_atomic(self.config_path, sealed(dict(document)) if seal else document)

    def write_summary(self, summary: dict[str, Any]) -> None:
        """Write ``summary.json`` atomically."""
        write_json_atomic(self.summary_path, summary)

    # -- records ------------------------------------------------------------------------------------------------

    def iter_records(
        self, end: ScanEnd | None = None, *, redact: bool = False, messages: bool = True
    ) -> Iterator[Record]:
        """The records of ``results.jsonl`` in file order, one at a time (none when there is no file); with
        ``redact``, every configured secret masked (a file of an earlier version may hold one); without
        ``messages``, the records' transcripts left out (``Record.from_json``)."""
        return (record for _, record in self.iter_numbered(end, redact=redact, messages=messages))

    def iter_numbered(
        self, end: ScanEnd | None = None, *, redact: bool = False, messages: bool = True
    ) -> Iterator[tuple[int, Record]]:
        """``iter_records`` with each record's line number (counted from 1)."""
        path = self.results_path
        if not path.is_file():
            return
        yield from iter_numbered_file(path, end, redact=redact, messages=messages)

    def latest_records(
        self,
        key: Callable[[Record], Hashable],
        keep: Callable[[Record], bool] | None = None,
        *,
        redact: bool = False,
        messages: bool = True,
    ) -> list[Record]:
        """The last record per ``key`` among those ``keep`` accepts, in the order their keys first appear
        (without ``messages``, their transcripts left out)."""
        latest: dict[Hashable, Record] = {}
        for record in self.iter_records(redact=redact, messages=messages):
            if keep is None or keep(record):
                latest[key(record)] = record
        return list(latest.values())

    def record_at(self, offset: int) -> Record:
        """The record of the line that starts at byte ``offset`` of ``results.jsonl``."""
        return next(record for _, record in lines_at(self.results_path, [offset]))

    def take_lock(self, advice: str = "") -> RunLock:
        """Create the folder and take its run lock: the up-front check that it is writable (a one-line
        ``UserError`` otherwise, ending with ``advice``); the lock of a run no longer running is taken over,
        with a note on stderr."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"{self.path}: cannot create the output directory: {exc.strerror}") from None
        lock = self.lock()
        try:
            lock.acquire()
        except OSError as exc:
            raise UserError(f"{self.path}: the output directory is not writable ({exc.strerror}){advice}") from None
        if lock.took_over:
            print(
                f"debate-eval: note: {self.path}: took over the lock of a run that is no longer running "
                f"({owner_text(lock.took_over)})",
                file=sys.stderr,
            )
        return lock

    def lock(self) -> RunLock:
        """The directory's run lock (not yet taken: ``acquire()`` it or use it as a context manager)."""
        return RunLock(self.path)


def refuse_audit_folder(path: Path) -> None:
    """A run never writes into an audit folder (its results would sit among the card's sub-runs): a one-line
    ``UserError``."""
    if (path / AUDIT_FILE).is_file():
        raise UserError(f"{path}: an audit folder (debate-eval audit), not a run directory; give the run another --out")


def refuse_nested_audit(out: Path) -> None:
    """An audit folder is never a judge's folder or a sub-run of another (``AUDIT/JUDGE``, ``AUDIT/JUDGE/RUN``):
    a one-line ``UserError`` naming the audit folder ``out`` is inside."""
    for folder in out.absolute().parents[:2]:
        if (folder / AUDIT_FILE).is_file():
            raise UserError(f"{out}: inside the audit folder {folder}; give the audit its own --out")


def results_file(name: str | os.PathLike[str]) -> Path:
    """A results file as given, or a run directory's ``results.jsonl``. An audit folder (``debate-eval audit
    --out DIR``, no results of its own) is a one-line ``UserError`` naming its sub-runs."""
    path = Path(name)
    if not path.is_dir():
        return path
    results = RunDir(path).results_path
    if not results.is_file() and (path / AUDIT_FILE).is_file():
        found = sorted(str(sub.parent) for sub in path.glob(f"*/*/{RESULTS_FILE}"))
        named = fields_text(found, 3)
        raise UserError(
            f"{path}: an audit folder (debate-eval audit), not a run; its sub-runs are the run directories "
            f"{path / 'JUDGE' / 'RUN'}: " + (named or "none has results yet")
        )
    return results


def results_file_name() -> str:
    """The name of a run directory's results file, for messages."""
    return RESULTS_FILE


def index_path_of(results_path: Path) -> Path:
    """The resume index of a results file (in the same folder)."""
    return results_path.with_name(INDEX_FILE)


def read_json_object(path: Path, *, not_object: str = "refuse") -> dict[str, Any]:
    """A JSON document that should be an object (``{}`` when the file is absent). A file that is not JSON is a
    one-line ``UserError`` naming the file; one that is JSON but no object too, or ``{}`` with
    ``not_object="ignore"``."""
    if not path.is_file():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: not valid JSON ({exc.msg if hasattr(exc, 'msg') else exc})") from None
    if not isinstance(value, dict):
        if not_object == "ignore":
            return {}
        raise UserError(f"{path}: expected a JSON object")
    return value


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` via a temporary file and ``os.replace``; on failure the temporary file is
    removed and a one-line ``ResultsWriteError`` names the file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise ResultsWriteError(f"{path}: cannot write ({exc.strerror})") from None


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (best effort: not every system can open a directory)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def finished_keys(out_dir: Path, config_hash: str, multi: bool) -> set[str]:
    """The keys of the items finished in a run directory's ``results.jsonl`` under ``config_hash`` (read in
    a stream; a last line still being written is not counted); ``out_dir`` may also be a file of keys, one a
    line (what a Ray task is given)."""
    if out_dir.is_file():
        return set(out_dir.read_text(encoding="utf-8").splitlines())
    lines = complete_lines(RunDir(out_dir).results_path)
    return {record_result_key(record, multi) for _, record in lines if record.config_hash == config_hash and record.ok}


def complete_lines(path: Path) -> Iterator[tuple[bytes, Record]]:
    """The complete lines of a results file (a line still being written is none) with their records, without
    transcripts, one at a time (none when there is no file)."""
    if not path.is_file():
        return
    with path.open("rb") as handle:
        for raw in handle:
            if raw.endswith(b"\n") and raw.strip():
                yield raw, line_record(raw, path)


def line_record(raw: bytes, path: Path | str | None = None) -> Record:
    """The record of a line a run wrote (a worker's, a line kept by a rewrite), checked, without its
    transcript (what a run indexes and counts)."""
    try:
        obj = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise UserError(f"{path or 'a worker'}: a line is not valid JSON") from None
    return Record.from_json(obj, path=path, messages=False)


def written_line(line: dict[str, Any]) -> bytes:
    """A results line as every writer writes it: one JSON object and its newline, every configured secret
    masked first (the last check: none is ever written), the masks counted in ``redactions``."""
    masked_line, masked = redact_record(line)
    if masked:
        masked_line["redactions"] = int(masked_line.get("redactions") or 0) + masked
    return (json.dumps(masked_line, ensure_ascii=False) + "\n").encode("utf-8")


def result_key(item_id: str, aspect: str, multi: bool) -> str:
    """The resume key of one result: the item id, or item id and aspect in a multi-aspect run
    (``engine.aspects``)."""
    return f"{item_id}{KEY_SEPARATOR}{aspect}" if multi else item_id


def record_result_key(record: Record, multi: bool) -> str:
    """A record's key among the run's results (``result_key``)."""
    return result_key(record.key, record.aspect, multi)
