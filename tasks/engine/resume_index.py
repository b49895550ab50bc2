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
- The index stamps its own body too (SHA-256 of everything before the stamp): an index edited by hand (a
  failed item's state set to finished, an offset moved) is not used. It is read only as a regular file (a
  symlink is not followed) of at most a size the results file allows (``index_size_bound``).
- The index is a speed-up only: one that cannot be read or written is ignored, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import stat
from array import array
from collections.abc import Iterable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from debate_eval.tasks.data.sources import CompactStrings
from debate_eval.tasks.engine.rundir import index_path_of

FORMAT = 2  # 2: the body's own stamp (``BODY_STAMP``)
BODY_STAMP = b',"body_sha256":"'  # the index's last field: the SHA-256 of the bytes before it
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


class KeyIndex(MutableMapping[str, IndexEntry]):
    """The index by key, as a dict of ``IndexEntry`` would hold it (in the order keys were first set, the
    last value of each), in a few bytes per key: the keys set while a run appends (all of a new run's) are
    kept as ``CompactStrings`` (their text joined, where each ends) and arrays (each entry packed in one
    integer, a slot in a hash table of positions), not as a string, a tuple and an integer object each.
    ``loaded``: entries read from a saved index (a resume), kept in that dict (not copied)."""

    _FLAGS = 2  # bits of ``mine`` and ``failed``
    _VERSION_BITS = 8  # parser version + 1 (0: None); 255: kept apart

    def __init__(self, loaded: Mapping[str, IndexEntry] | None = None) -> None:
        self._loaded: dict[str, IndexEntry] = loaded if isinstance(loaded, dict) else dict(loaded or {})
        self._keys = CompactStrings()  # the appended keys, in order
        self._values = array("q")  # each key's entry packed (``_pack``); -1: removed
        self._other_versions: dict[int, Any] = {}  # a parser version that does not fit in the packed entry
        self._slots = array("I", bytes(4 * 16))  # open addressing: position + 1 of a key, 0 empty
        self._live = 0

    # -- packing
    def _pack(self, position: int, entry: IndexEntry) -> int:
        version = entry.parser_version
        if version is None:
            code = 0
        elif type(version) is int and 0 <= version < (1 << self._VERSION_BITS) - 2:
            code = version + 1
        else:
            code = (1 << self._VERSION_BITS) - 1
            self._other_versions[position] = version
        if code != (1 << self._VERSION_BITS) - 1:
            self._other_versions.pop(position, None)
        flags = (2 if entry.mine else 0) | (1 if entry.failed else 0)
        return ((int(entry.offset) << self._VERSION_BITS | code) << self._FLAGS) | flags

    def _unpack(self, position: int) -> IndexEntry:
        packed = self._values[position]
        code = (packed >> self._FLAGS) & ((1 << self._VERSION_BITS) - 1)
        if code == (1 << self._VERSION_BITS) - 1:
            version = self._other_versions[position]
        else:
            version = None if code == 0 else code - 1
        offset = packed >> (self._FLAGS + self._VERSION_BITS)
        return IndexEntry(bool(packed & 2), bool(packed & 1), offset, version)

    def _position(self, key: str) -> int:
        """The position of ``key`` among the appended keys (-1: none)."""
        mask = len(self._slots) - 1
        slot = hash(key) & mask
        while True:
            found = self._slots[slot]
            if found == 0:
                return -1
            if self._values[found - 1] >= 0 and self._keys[found - 1] == key:
                return found - 1
            slot = (slot + 1) & mask

    def _place(self, key: str, position: int) -> None:
        mask = len(self._slots) - 1
        slot = hash(key) & mask
        while self._slots[slot]:
            slot = (slot + 1) & mask
        self._slots[slot] = position + 1

    def _append(self, key: str, entry: IndexEntry) -> None:
        position = len(self._keys)
        self._keys.append(key)
        self._values.append(0)
        self._values[position] = self._pack(position, entry)
        if 2 * len(self._keys) > len(self._slots):  # at most half full (the removed keys' slots stay taken)
            self._slots = array("I", bytes(4 * len(self._slots) * 2))
            for earlier in range(len(self._keys)):
                if self._values[earlier] >= 0:
                    self._place(self._keys[earlier], earlier)
        else:
            self._place(key, position)
        self._live += 1

    # -- the mapping
    def __getitem__(self, key: str) -> IndexEntry:
        entry = self._loaded.get(key)
        if entry is not None:
            return entry
        position = self._position(key)
        if position < 0:
            raise KeyError(key)
        return self._unpack(position)

    def __setitem__(self, key: str, entry: IndexEntry) -> None:
        if key in self._loaded:
            self._loaded[key] = entry
            return
        position = self._position(key)
        if position < 0:
            self._append(key, entry)
        else:
            self._values[position] = self._pack(position, entry)

    def __delitem__(self, key: str) -> None:
        if key in self._loaded:
            del self._loaded[key]
            return
        position = self._position(key)
        if position < 0:
            raise KeyError(key)
        self._values[position] = -1  # its slot stays taken, skipped by lookups
        self._other_versions.pop(position, None)
        self._live -= 1

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (key in self._loaded or self._position(key) >= 0)

    def __len__(self) -> int:
        return len(self._loaded) + self._live

    def __iter__(self) -> Iterator[str]:
        yield from self._loaded
        for position, key in enumerate(self._keys):
            if self._values[position] >= 0:
                yield key

    def items(self) -> Iterator[tuple[str, IndexEntry]]:  # type: ignore[override]
        """Each key and its entry, in order (one pass, no lookup)."""
        yield from self._loaded.items()
        for position, key in enumerate(self._keys):
            if self._values[position] >= 0:
                yield key, self._unpack(position)

    def values(self) -> Iterator[IndexEntry]:  # type: ignore[override]
        """Each key's entry, in order."""
        return (entry for _, entry in self.items())


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
    path = index_path_of(results_path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        head = {
            "format": FORMAT,
            "results": stamp(results_path),
            "config_hash": config_hash,
            "by_aspect": by_aspect,
            "duplicates": duplicates,
            "tally": dict(tally),
        }
        columns = {
            "keys": lambda key, entry: key,
            "states": None,
            "offsets": lambda key, entry: entry.offset,
            "parser_versions": lambda key, entry: entry.parser_version,
        }
        # written a block of entries at a time: the document of 100k keys is never one string in memory
        body = hashlib.sha256()
        with tmp.open("wb") as handle:

            def write(text: str) -> None:
                data = text.encode("utf-8")
                body.update(data)
                handle.write(data)

            write(json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1])
            for name, column in columns.items():
                write(f',"{name}":' + ('"' if column is None else "["))
                first = True
                for block in _blocks(entries.items()):
                    if column is None:
                        write("".join(_STATES[entry.mine, entry.failed] for _, entry in block))
                        continue
                    text = ",".join(json.dumps(column(key, entry), ensure_ascii=False) for key, entry in block)
                    write(text if first else "," + text)
                    first = False
                write('"' if column is None else "]")
            handle.write(BODY_STAMP + body.hexdigest().encode("ascii") + b'"}')
        os.replace(tmp, path)
        return True
    except (OSError, ValueError, TypeError):
        with contextlib.suppress(OSError):
            tmp.unlink()
        discard_index(results_path)
        return False


def _blocks(pairs: Iterable[tuple[str, IndexEntry]], size: int = 4096) -> Iterator[list[tuple[str, IndexEntry]]]:
    """``pairs`` a list of ``size`` at a time."""
    pairs = iter(pairs)
    while block := list(itertools.islice(pairs, size)):
        yield block


def discard_index(results_path: Path) -> None:
    """Remove the index of ``results_path`` (if any)."""
    with contextlib.suppress(OSError):
        index_path_of(results_path).unlink()


def index_size_bound(results_size: int) -> int:
    """The largest index a results file of ``results_size`` bytes can have: an entry (its key, offset,
    version and state, about 40 bytes besides the key) is smaller than its line, which holds the key and a
    record's every field, so twice the results file and a head's room bound it."""
    return 2 * results_size + 65536


def read_index_document(results_path: Path) -> dict[str, Any] | None:
    """The index of ``results_path`` as its JSON document, when it is a regular file (a symlink is not
    followed) of at most ``index_size_bound`` and its body matches its own stamp; None otherwise."""
    path = index_path_of(results_path)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        bound = index_size_bound(results_path.stat().st_size)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(descriptor, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            raw = handle.read(bound + 1)
        if len(raw) > bound:
            return None
        at = raw.rfind(BODY_STAMP)
        if at < 0 or not raw.endswith(b'"}'):
            return None
        if raw[at + len(BODY_STAMP) : -2] != hashlib.sha256(raw[:at]).hexdigest().encode("ascii"):
            return None  # edited by hand, or cut short
        document = json.loads(raw)
        return document if isinstance(document, dict) else None
    except (OSError, ValueError):
        return None


def _current_index(results_path: Path) -> dict[str, Any] | None:
    """The index document of ``results_path`` when it is of this format and describes the file as it is now."""
    document = read_index_document(results_path)
    if document is None or document.get("format") != FORMAT or document.get("results") != stamp(results_path):
        return None
    return document


def load_index(results_path: Path, *, config_hash: str, by_aspect: bool) -> SavedIndex | None:
    """The saved index of ``results_path`` when it describes the file as it is now, for this configuration
    hash and kind of key; None otherwise (no index, another file version, unreadable or inconsistent)."""
    try:
        document = _current_index(results_path)
        if document is None or document.get("config_hash") != config_hash or document.get("by_aspect") is not by_aspect:
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
        document = _current_index(results_path)
        if document is None or document["duplicates"] is not False:
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
