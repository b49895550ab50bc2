"""The resume index: what ``results.jsonl`` holds, kept beside it in ``results.index.json`` so that a resume
does not decode every line to learn which items are finished.

- The index holds each key's state (of this configuration or not, failed or not), the byte offset of its line
  and the parser version that read it, the run's totals (``Tally``) and whether the file repeats a key. It is
  written when the results store closes (after the file is flushed to disk), under the run lock.
- It is used only when it matches the file it describes: the same size, modification time and inode, and the
  same bytes at the head and the tail of the file (SHA-256 of each), the same configuration hash and the same
  kind of key (one result per item, or per item and aspect). Anything else (a run killed mid-write, a file
  edited, repaired, rewritten or copied, an index cut short or of another version) and the store reads the
  whole file as before, checking every line, and writes a new index when it closes.
- The index is a speed-up only: one that cannot be read or written is ignored, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

INDEX_FILE = "results.index.json"
FORMAT = 1
HEAD_BYTES = 4096  # the bytes of the file's head and tail whose hashes the index records
TAIL_BYTES = 65536
# one letter per entry: of this configuration or not, finished or failed
_STATES = {(True, False): "d", (True, True): "f", (False, False): "o", (False, True): "x"}
_FLAGS = {letter: state for state, letter in _STATES.items()}


class IndexEntry(NamedTuple):
    """What the store knows of one key without reading its line."""

    mine: bool  # the line is of this configuration
    failed: bool  # the item failed (it is run again)
    offset: int  # the byte offset of its line in ``results.jsonl``
    parser_version: int | None  # the parsers' version that read its answers (None: before versions)


@dataclass
class SavedIndex:
    """An index read back from its file, checked against the results file it describes."""

    entries: dict[str, IndexEntry]
    duplicates: bool  # the file repeats a key
    tally: dict[str, Any]  # ``Tally.to_state()`` of the run's records (the last line of each key)


def stamp(path: Path) -> dict[str, Any]:
    """What tells this version of ``path`` from any other: size, modification time, inode and the SHA-256 of
    its first and last bytes."""
    with path.open("rb") as handle:
        info = os.fstat(handle.fileno())
        head = handle.read(HEAD_BYTES)
        handle.seek(max(0, info.st_size - TAIL_BYTES))
        tail = handle.read(TAIL_BYTES)
    return {
        "size": info.st_size,
        "mtime_ns": info.st_mtime_ns,
        "inode": info.st_ino,
        "head_sha256": hashlib.sha256(head).hexdigest(),
        "tail_sha256": hashlib.sha256(tail).hexdigest(),
    }


def index_path(results_path: Path) -> Path:
    """The index file of a results file (in the same folder)."""
    return results_path.with_name(INDEX_FILE)


def save_index(
    results_path: Path,
    *,
    config_hash: str,
    by_aspect: bool,
    entries: Mapping[str, IndexEntry],
    duplicates: bool,
    tally: Mapping[str, Any],
) -> bool:
    """Write the index of ``results_path`` atomically (True when written; a failure leaves no index, as the
    index is only a speed-up)."""
    path = index_path(results_path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        document = {
            "format": FORMAT,
            "results": stamp(results_path),
            "config_hash": config_hash,
            "by_aspect": by_aspect,
            "duplicates": duplicates,
            "tally": dict(tally),
            "keys": list(entries),
            "states": "".join(_STATES[entry.mine, entry.failed] for entry in entries.values()),
            "offsets": [entry.offset for entry in entries.values()],
            "parser_versions": [entry.parser_version for entry in entries.values()],
        }
        tmp.write_text(json.dumps(document, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
        return True
    except (OSError, ValueError, TypeError):
        with contextlib.suppress(OSError):
            tmp.unlink()
        discard_index(results_path)
        return False


def discard_index(results_path: Path) -> None:
    """Remove the index of ``results_path`` (if any)."""
    with contextlib.suppress(OSError):
        index_path(results_path).unlink()


def load_index(results_path: Path, *, config_hash: str, by_aspect: bool) -> SavedIndex | None:
    """The saved index of ``results_path`` when it describes the file as it is now, for this configuration
    hash and kind of key; None otherwise (no index, another file version, unreadable or inconsistent)."""
    path = index_path(results_path)
    try:
        document = json.loads(path.read_bytes())
        if (
            document.get("format") != FORMAT
            or document.get("config_hash") != config_hash
            or document.get("by_aspect") is not by_aspect
            or document.get("results") != stamp(results_path)
        ):
            return None
        keys, states = document["keys"], document["states"]
        offsets, versions = document["offsets"], document["parser_versions"]
        size = document["results"]["size"]
        if not len(keys) == len(states) == len(offsets) == len(versions) or not isinstance(states, str):
            return None
        entries = {
            key: IndexEntry(*_FLAGS[state], offset, version)
            for key, state, offset, version in zip(keys, states, offsets, versions, strict=True)
        }
        if len(entries) != len(keys) or not all(isinstance(key, str) for key in entries):
            return None
        if not all(type(offset) is int and 0 <= offset < size for offset in offsets):
            return None
        tally = document["tally"]
        if not isinstance(tally, dict) or not isinstance(document["duplicates"], bool):
            return None
        return SavedIndex(entries=entries, duplicates=document["duplicates"], tally=tally)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def last_line_of(results_path: Path, item_id: str, *, separator: str) -> int | None:
    """The byte offset of the last line of ``item_id`` in ``results_path``, read from the index when it
    describes the file as it is now (of whatever configuration); None when there is no such index, the file
    repeats a key (the index then keeps one line of each, not every line), or the index has no such item.

    A multi-aspect run's keys are ``ITEM<separator>ASPECT``: the item's last line is the latest of its aspects'.
    ``show --item`` uses it to read one line instead of scanning the file.
    """
    try:
        document = json.loads(index_path(results_path).read_bytes())
        if document.get("format") != FORMAT or document.get("results") != stamp(results_path):
            return None
        if document["duplicates"] is not False:
            return None
        keys, offsets = document["keys"], document["offsets"]
        if len(keys) != len(offsets):
            return None
        if document["by_aspect"] is True:
            found = [
                offset
                for key, offset in zip(keys, offsets, strict=True)
                if isinstance(key, str) and key.rpartition(separator)[0] == item_id
            ]
        else:
            found = [offset for key, offset in zip(keys, offsets, strict=True) if key == item_id]
        offset = max(found, default=None)
        size = document["results"]["size"]
        return offset if type(offset) is int and 0 <= offset < size else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
