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
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.records import validate_record

CONFIG_FILE = "config.json"
RESULTS_FILE = "results.jsonl"


def numbered_records(path: Path) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The JSON objects of a JSON-lines file with their line numbers, and the byte length of the good part.

    A last line with no trailing newline that does not parse is an interrupted write: it is left out, with a
    notice on stderr. Any other line that is not a JSON object is a ``UserError`` naming file and line.
    """
    data = path.read_bytes()
    lines = data.split(b"\n")
    records: list[tuple[int, dict[str, Any]]] = []
    good_end = 0
    for number, raw in enumerate(lines, start=1):
        unterminated = number == len(lines)
        if raw.strip():
            try:
                record = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                if unterminated:
                    print(
                        f"warning: {path}: line {number} is incomplete (an interrupted write); skipped", file=sys.stderr
                    )
                    break
                raise UserError(f"{path}: line {number} is not valid JSON; fix or remove that line") from None
            if not isinstance(record, dict):
                raise UserError(f"{path}: line {number} is not a JSON object")
            records.append((number, record))
        good_end += len(raw) + (0 if unterminated else 1)
    return records, good_end


def read_jsonl(path: Path, *, repair: bool = False) -> list[dict[str, Any]]:
    """Read a results file (none: empty); every record is checked by ``validate_record`` (the same check as
    meta-eval's), so resume never accepts a line that another command rejects.

    With ``repair``, an interrupted last line is cut from the file, and a complete last line that lacks its
    newline gets one, so the next append starts a line of its own.
    """
    if not path.exists():
        return []
    records, good_end = numbered_records(path)
    for number, record in records:
        validate_record(record, path, number)
    if repair and path.stat().st_size:
        with path.open("r+b") as handle:
            if good_end < path.stat().st_size:
                handle.truncate(good_end)
            if good_end:
                handle.seek(good_end - 1)
                if handle.read(1) != b"\n":
                    handle.write(b"\n")
    return [record for _, record in records]


class ResultsStore:
    """The results of one run directory."""

    def __init__(self, out_dir: Path, config: Mapping[str, Any], config_hash: str) -> None:
        self.out_dir = out_dir
        self.config_hash = config_hash
        self.results_path = out_dir / RESULTS_FILE
        self.config_path = out_dir / CONFIG_FILE
        self._check_or_write_config(config)
        self.records: dict[str, dict[str, Any]] = {}
        for record in read_jsonl(self.results_path, repair=True):
            self.records[str(record.get("item_id"))] = record  # the last line of an item wins
        self._handle = None

    def _check_or_write_config(self, config: Mapping[str, Any]) -> None:
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"{self.out_dir}: cannot create the output directory: {exc.strerror}") from None
        if self.config_path.exists():
            try:
                existing = json.loads(self.config_path.read_text(encoding="utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise UserError(f"{self.config_path}: not valid JSON; use a new --out directory") from None
            has_results = self.results_path.exists() and self.results_path.stat().st_size > 0
            if existing.get("config_hash") != self.config_hash and has_results:
                differing = ", ".join(_differences(existing.get("result_config", {}), config.get("result_config", {})))
                raise UserError(
                    f"{self.out_dir} holds results of a different configuration (differs in: "
                    f"{differing or 'unknown fields'}); use a new --out directory, or rerun with the same settings"
                )
            if has_results:
                return
            # no result was written under the old configuration (e.g. its endpoint check failed): replace it
        write_json_atomic(self.config_path, dict(config))

    def done_ids(self) -> set[str]:
        """Items already finished under this configuration (failed items are not done)."""
        return {
            item_id
            for item_id, record in self.records.items()
            if record.get("config_hash") == self.config_hash and not record.get("error")
        }

    def prepare_retries(self, item_ids: Iterable[str]) -> None:
        """Drop the old (failed) lines of items about to be run again, rewriting the file atomically."""
        retry = set(item_ids) & set(self.records)
        if not retry:
            return
        for item_id in retry:
            del self.records[item_id]
        tmp = self.results_path.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            for record in self.records.values():
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, self.results_path)

    def append(self, record: dict[str, Any]) -> None:
        """Append one item's record and flush it to the operating system."""
        if self._handle is None:
            self._handle = self.results_path.open("a", encoding="utf-8")
        self._handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._handle.flush()
        self.records[str(record["item_id"])] = record

    def close(self) -> None:
        """Close the results file."""
        if self._handle is not None:
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON to ``path`` via a temporary file and ``os.replace``."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _differences(old: Any, new: Any, prefix: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            out += _differences(old.get(key), new.get(key), f"{prefix}{key}.")
        return out
    return [prefix.rstrip(".")] if old != new else []
