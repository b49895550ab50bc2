"""Strict reading of data files: every problem is one :class:`UserError` line naming the file, the row and field.

Rows are counted from 1 and every message says so, for example
``summeval.json: row 18 (counted from 1): field "scores.coherence": expected a number, got "high"``.

A row nested deeper than the JSON reader goes (``json`` recurses) is refused in one line naming its row and
depth. Own files may be compressed with gzip (``.jsonl.gz``, ``.csv.gz``, ``.json.gz``) or xz (``.xz``),
which the standard library reads (``read_table_bytes``); other compressions (``.zst``, ``.bz2``, ``.zip``)
are refused by name.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import lzma
import math
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError

SCALE_TOLERANCE = 1e-9
_SHOWN_TEXT_CHARS = 60
_SHOWN_DIGITS = 20  # a longer whole number is described by its length
_FIELD: Any = object()  # "read the value from the row"


def row_label(index: int) -> str:
    """``row N (counted from 1)`` for the row at 0-based ``index``."""
    return f"row {index + 1} (counted from 1)"


def read_bytes(path: Path) -> bytes:
    """The bytes of ``path``; a missing or unreadable file is a :class:`UserError`."""
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise UserError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a folder, not a file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read the file: {exc.strerror or exc}") from None


def decode_text(path: Path, data: bytes) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark is dropped)."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise UserError(
            f"{path}: not valid UTF-8 at line {line} (counted from 1; byte {data[exc.start]:#04x} at byte offset "
            f"{exc.start}){latin1_hint(data)}"
        ) from None


def latin1_hint(data: bytes) -> str:
    """``"; the file looks like Latin-1/Windows-1252: save it as UTF-8"`` when it reads as that, else ``""``."""
    try:
        data.decode("cp1252")
    except UnicodeDecodeError:
        return "; save the file as UTF-8"
    return "; the file looks like Latin-1/Windows-1252: save it as UTF-8"


COMPRESSIONS = {".gz": gzip.decompress, ".xz": lzma.decompress}  # read with the standard library
REFUSED_COMPRESSIONS = (".zst", ".bz2", ".zip", ".7z", ".lz4")
MAX_DECOMPRESSED_BYTES = 4 * 1024**3  # a compressed own file may expand to this much


def table_suffix(path: Path) -> str:
    """The suffix that says how ``path``'s rows are written (``.jsonl``, ``.csv``, ``.json``), a compression
    suffix (``.gz``, ``.xz``) set aside; lower-cased."""
    suffixes = [suffix.lower() for suffix in Path(path).suffixes]
    if suffixes and suffixes[-1] in (*COMPRESSIONS, *REFUSED_COMPRESSIONS):
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def read_table_bytes(path: Path) -> bytes:
    """The bytes of an own data file, decompressed when its name ends in ``.gz`` or ``.xz``; another
    compression is a one-line :class:`UserError` naming it."""
    data = read_bytes(path)
    compression = Path(path).suffix.lower()
    if compression in REFUSED_COMPRESSIONS:
        raise UserError(
            f"{path}: {compression} compressed files are not read (gzip .gz and xz .xz are); decompress it first"
        )
    decompress = COMPRESSIONS.get(compression)
    if decompress is None:
        return data
    try:
        data = decompress(data)
    except (OSError, EOFError, lzma.LZMAError, ValueError) as exc:
        raise UserError(f"{path}: not a readable {compression} file ({exc})") from None
    if len(data) > MAX_DECOMPRESSED_BYTES:
        raise UserError(f"{path}: decompresses to more than {MAX_DECOMPRESSED_BYTES // 1024**3} GiB")
    return data


def nesting(text: str) -> tuple[int, int]:
    """The deepest nesting of brackets in the JSON ``text`` and the top-level row it is in (0-based; for a
    file whose top level is a list, the element; else 0). Strings are skipped."""
    depth = deepest = row = row_of_deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > deepest:
                deepest, row_of_deepest = depth, row
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 1:
            row += 1
    return deepest, row_of_deepest


def too_deep(path: Path, text: str, *, row: int | None = None, line: int | None = None) -> UserError:
    """The error for JSON nested deeper than the reader goes: its row (given, or found) and depth."""
    depth, found = nesting(text)
    where = row_label(found if row is None else row) + (f", line {line}" if line is not None else "")
    return UserError(f"{path}: {where}: nested {depth:,} levels deep, more than JSON rows may be; flatten the row")


def parse_json(path: Path, text: str) -> Any:
    """The JSON value of ``text``; a syntax error names the line and column, nesting too deep the row."""
    try:
        return json.loads(text)
    except RecursionError:
        raise too_deep(path, text) from None
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        hint = " (the file looks truncated)" if truncated else ""
        raise UserError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}") from None


def read_json_rows(path: Path, data: bytes | None = None) -> list[Any]:
    """The top-level JSON list of ``path`` (or of ``data``, its bytes); it must be a non-empty list."""
    rows = parse_json(path, decode_text(path, read_bytes(path) if data is None else data))
    if not isinstance(rows, list):
        raise UserError(f"{path}: expected a JSON list of rows at the top level, got {describe(rows)}")
    if not rows:
        raise UserError(f"{path}: the file has no rows (an empty JSON list)")
    return rows


def read_jsonl_rows(path: Path) -> list[Any]:
    """The objects of a JSON-lines file, one per non-blank line; a bad line names its row and line."""
    rows = parse_jsonl_rows(path, decode_text(path, read_bytes(path)))
    if not rows:
        raise UserError(f"{path}: the file has no rows")
    return rows


def parse_jsonl_rows(path: Path, text: str) -> list[Any]:
    """The JSON values of ``text`` (``path``'s), one per non-blank line (none: an empty list); a bad line is a
    :class:`UserError` naming its row (counted from 1) and its line."""
    rows = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except RecursionError:
            raise too_deep(path, line, row=len(rows), line=line_number) from None
        except json.JSONDecodeError as exc:
            raise UserError(
                f"{path}: {row_label(len(rows))}, line {line_number}: invalid JSON at column {exc.colno}: {exc.msg}"
            ) from None
    return rows


def parse_csv(path: Path, text: str) -> tuple[list[dict[str, str]], list[str]]:
    """The rows and the header of the CSV ``text`` (``path``'s; fields may be long: the size limit is raised)."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        rows = list(reader)
    except csv.Error as exc:
        raise UserError(f"{path}: not a valid CSV file: {exc}") from None
    return rows, list(reader.fieldnames or [])


class Row:
    """One row being validated; every error it raises names the file, the row (from 1) and the field."""

    def __init__(self, path: Path, index: int, raw: Any, *, noun: str = "field") -> None:
        self.path = path
        self.index = index
        self.noun = noun
        if not isinstance(raw, dict):
            raise UserError(f"{path}: {row_label(index)}: expected an object, got {describe(raw)}")
        self.raw: dict[str, Any] = raw

    def error(self, name: str, message: str) -> UserError:
        """A :class:`UserError` about one field (or column) of this row."""
        return UserError(f"{self.path}: {row_label(self.index)}: {self.noun} {json.dumps(name)}: {message}")

    def get(self, name: str) -> Any:
        """A required field's raw value."""
        if name not in self.raw:
            present = ", ".join(sorted(self.raw)) or "none"
            raise self.error(name, f"missing (the row has: {present})")
        return self.raw[name]

    def text(self, name: str, *, allow_empty: bool = False) -> str:
        """A required string field, not empty or whitespace-only unless ``allow_empty``."""
        value = self.get(name)
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {describe(value)}")
        if not allow_empty and not value.strip():
            raise self.error(name, "empty text" if not value else "whitespace-only text")
        return value

    def identifier(self, name: str) -> str:
        """A required id field: a non-blank string, or a whole number (as its digits)."""
        value = self.get(name)
        found = id_text(value)
        if found is None:
            raise self.error(name, f"expected an id, got {describe(value)}")
        return found

    def optional_string(self, name: str) -> str | None:
        """A field that may be absent but must be a string when present."""
        if name not in self.raw:
            return None
        if not isinstance(self.raw[name], str):
            raise self.error(name, f"expected a string, got {describe(self.raw[name])}")
        return self.raw[name]

    def number(self, name: str, value: Any = _FIELD, *, from_text: bool = False) -> float:
        """A finite number (``value`` if given, else the field); ``from_text`` also accepts ``"2.5"``."""
        value = self.get(name) if value is _FIELD else value
        if from_text and isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise self.error(name, f"expected a number, got {describe(value)}") from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(name, f"expected a number, got {describe(value)}")
        number = finite_number(value)
        if number is None:
            raise self.error(name, f"expected a finite number, got {describe(value)}")
        return number

    def on_scale(self, name: str, value: float, scale: tuple[float, float]) -> float:
        """``value`` unless it lies outside ``scale``."""
        low, high = scale
        if not low - SCALE_TOLERANCE <= value <= high + SCALE_TOLERANCE:
            raise self.error(name, f"{value:g} is outside the scale {low:g}-{high:g}")
        return value

    def scores(self, aspects: Mapping[str, tuple[float, float]], name: str = "scores") -> dict[str, float]:
        """All entries of the ``scores`` object as floats; the given aspects present and on their scales."""
        scores = self.get(name)
        if not isinstance(scores, dict):
            raise self.error(name, f"expected an object, got {describe(scores)}")
        result = {key: self.number(f"{name}.{key}", value) for key, value in scores.items()}
        for aspect, scale in aspects.items():
            if aspect not in result:
                raise self.error(f"{name}.{aspect}", f"missing (the scores have: {', '.join(result) or 'none'})")
            self.on_scale(f"{name}.{aspect}", result[aspect], scale)
        return result


def id_text(value: Any) -> str | None:
    """An id as text: a non-blank string as it is, a whole number (not a bool) as its digits; else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


def check_unique(row: Row, seen: dict[Any, int], key: Any, fields: Iterable[str], shown: str) -> None:
    """Refuse a second row with the same ``key`` (naming both rows, counted from 1)."""
    first = seen.setdefault(key, row.index)
    if first != row.index:
        names = ", ".join(json.dumps(name) for name in fields)
        raise UserError(
            f"{row.path}: {row_label(row.index)}: {row.noun}s {names}: duplicate item {shown} "
            f"(first seen at row {first + 1})"
        )


def finite_number(value: Any) -> float | None:
    """``value`` as a finite float when it is a number (not a boolean), else None: NaN, infinity and a whole
    number too large for a float (JSON and TOML read ``1`` followed by 400 zeros as an int) are None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def describe(value: Any) -> str:
    """A short JSON-style description of a value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= _SHOWN_TEXT_CHARS else value[:_SHOWN_TEXT_CHARS] + "…"
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int) and abs(value) >= 10**_SHOWN_DIGITS:
        return f"a whole number of {len(str(abs(value)))} digits"
    return repr(value)
