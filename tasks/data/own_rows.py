"""Reading and checking the rows of the user's own data file (``own_file.py`` registers it and streams it):
the project's field names and the file's columns (``resolve_fields``), the table readers, the row checks that
name file, row and column, and the items made of the rows (``RowItems``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.registry import (
    PAIRWISE,
    PAIRWISE_LABELS,
    SINGLE,
    DatasetSpec,
    Item,
)
from debate_eval.tasks.data.rows import (
    SCALE_TOLERANCE,
    decode_text,
    describe,
    finite_number,
    latin1_hint,
    parse_csv,
    parse_json,
    parse_jsonl_rows,
    read_table_bytes,
    row_label,
    table_suffix,
)

T = TypeVar("T")

SINGLE_FIELDS = (
    "source",
    "output",
    "human",
    "group",
    "reference",
    "context",
    "id",
    "system",
    "annotators",
    "system_family",
)
ANNOTATORS = "annotators"  # several annotators' ratings: COL1|COL2|COL3, or one column holding a list
SINGLE_REQUIRED = ("source", "output")
PAIRWISE_FIELDS = ("question", "input", "output_a", "output_b", "label", "group", "id", "system_a", "system_b")
PAIRWISE_REQUIRED = ("question", "output_a", "output_b")
#: Inputs in the order a judge sees them; the text judged comes last.
SINGLE_INPUT_ORDER = ("context", "source", "reference", "output")
PAIRWISE_INPUT_ORDER = ("question", "input", "output_a", "output_b")
MAX_ERROR_LINES = 50


def read_table(path: Path) -> tuple[list[dict[str, Any]], list[str], bool]:
    """The rows of a ``.jsonl`` / ``.csv`` / ``.json`` file, the column names, and whether it is a CSV."""
    suffix = table_suffix(path)
    data = read_table_bytes(path)
    try:
        text = decode_text(path, data)
    except UserError as exc:
        raise UserError(undecodable_row(path, data) or str(exc)) from None
    if suffix == ".csv":
        rows, columns = parse_csv(path, text)
        if not columns:
            raise UserError(f"{path}: the CSV file has no header line")
        return rows, columns, True
    if suffix == ".jsonl":
        rows = parse_jsonl_rows(path, text)
    elif suffix == ".json":
        rows = parse_json(path, text)
        if not isinstance(rows, list):
            raise UserError(f"{path}: expected a JSON list of row objects at the top level, got {describe(rows)}")
    else:
        raise UserError(f"{path}: own data must be a .jsonl, .csv or .json file (or one compressed: .gz, .xz)")
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            raise UserError(f"{path}: {row_label(index)}: expected an object, got {describe(row)}")
    columns = list(dict.fromkeys(key for row in rows for key in row))
    return rows, columns, False


def undecodable_row(path: Path, data: bytes) -> str | None:
    """The one-line error for a file that is not UTF-8, naming the first row (as the other row errors count
    them) and column with a byte that is not; None when the rows cannot be read that way."""
    text = data.decode("utf-8", errors="surrogateescape").removeprefix("\ufeff")
    is_csv = table_suffix(path) == ".csv"
    try:
        if is_csv:
            rows, header = parse_csv(path, text)
        else:
            rows = parse_jsonl_rows(path, text) if table_suffix(path) == ".jsonl" else json.loads(text)
            header = []
    except (UserError, ValueError, RecursionError):  # parse_csv words a csv.Error as a UserError
        return None
    where = "counted from 1, the header line not counted" if is_csv else "counted from 1"

    def bad(value: Any) -> str | None:
        """The first undecodable byte in ``value``'s text, as ``0xE9``."""
        found = next((char for char in json.dumps(value, ensure_ascii=False) if "\udc80" <= char <= "\udcff"), None)
        return None if found is None else f"{ord(found) - 0xDC00:#04x}"

    hint = latin1_hint(data)
    if any(bad(name) for name in header):
        return f"{path}: the header line: not UTF-8 text (byte {bad(header)}){hint}"
    for index, row in enumerate(rows if isinstance(rows, list) else []):
        if not bad(row):
            continue
        columns = [key for key, value in row.items() if bad(key) or bad(value)] if isinstance(row, dict) else []
        column = f": column {json.dumps(columns[0])}" if columns else ""
        return f"{path}: row {index + 1} ({where}){column}: not UTF-8 text (byte {bad(row)}){hint}"
    return None


def resolve_fields(fields: Mapping[str, str], columns: list[str], path: Path | str, task_type: str) -> dict[str, str]:
    """The field -> column map: the given one, plus same-named columns for fields not given."""
    valid = PAIRWISE_FIELDS if task_type == PAIRWISE else SINGLE_FIELDS
    required = PAIRWISE_REQUIRED if task_type == PAIRWISE else SINGLE_REQUIRED
    resolved = {name: column for name, column in fields.items() if name in valid}
    for name in valid:
        if name not in resolved and name in columns:
            resolved[name] = name
    missing = [name for name in required if name not in resolved]
    if missing:
        example = ",".join(f"{name}=COLUMN" for name in missing)
        raise UserError(
            f"{path}: no column for {', '.join(missing)}; map them with --fields {example} "
            f"(the file's columns: {', '.join(columns) or 'none'})"
        )
    absent = [
        f"{name}={column}"
        for name, column in resolved.items()
        if any(part not in columns for part in (column.split("|") if name == ANNOTATORS else [column]))
    ]
    if absent:
        raise UserError(
            f"{path}: --fields {', '.join(absent)}: no such column (the file's columns: {', '.join(columns) or 'none'})"
        )
    return resolved


class _Validator:
    """Collects one line per bad row instead of stopping at the first."""

    def __init__(self, path: Path | str, is_csv: bool) -> None:
        self.path = path
        self.where = "counted from 1, the header line not counted" if is_csv else "counted from 1"
        self.errors: list[str] = []

    def fail(self, index: int, column: str, problem: str) -> None:
        self.errors.append(f"{self.path}: row {index + 1} ({self.where}): column {json.dumps(column)}: {problem}")

    def text(self, index: int, row: dict[str, Any], column: str, *, required: bool = True) -> str | None:
        value = row.get(column)
        if type(value) is str and value and not value.isspace():  # the common case, decided at once
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if value is None or value == "":
            if required:
                self.fail(index, column, "empty" if column in row else "missing")
                return None
            return ""
        if not isinstance(value, str):
            self.fail(index, column, f"expected text, got {describe(value)}")
            return None
        if required and not value.strip():
            self.fail(index, column, "whitespace-only text")
            return None
        return value

    def number(self, index: int, row: dict[str, Any], column: str, scale: tuple[float, float] | None) -> float | None:
        value = row.get(column)
        if isinstance(value, str):
            stripped = value.strip()
            if not stripped:
                self.fail(index, column, "empty (expected a number)")
                return None
            try:
                value = float(stripped)
            except ValueError:
                self.fail(index, column, f"expected a number, got {describe(value)}")
                return None
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            self.fail(index, column, f"expected a number, got {describe(value) if column in row else 'nothing'}")
            return None
        number = finite_number(value)
        if number is None:
            self.fail(index, column, f"expected a finite number, got {describe(value)}")
            return None
        value = number
        if scale is not None and not scale[0] - SCALE_TOLERANCE <= value <= scale[1] + SCALE_TOLERANCE:
            self.fail(index, column, f"{value:g} is outside the scale {scale[0]:g}-{scale[1]:g} (--scale)")
            return None
        return float(value)

    def raise_if_any(self, total: int) -> None:
        if not self.errors:
            return
        shown = self.errors[:MAX_ERROR_LINES]
        more = len(self.errors) - len(shown)
        head = f"{self.path}: {len(self.errors)} problem(s) in {total} rows; nothing was evaluated:"
        tail = [f"... and {more} more"] if more else []
        raise UserError("\n".join([head, *shown, *tail]))


def load_own_file(path: Path, *, spec: DatasetSpec, data: bytes | None = None, **options: Any) -> list[Item]:
    """Load and validate the whole file (``options``, the spec's: :class:`RowItems`' fields, aspect, scale, labels,
    task_type); all bad rows are reported together (one line each)."""
    rows, columns, is_csv = read_table(path)
    return validate_rows(rows, columns, source=path, is_csv=is_csv, dataset=spec.name, **options)


def validate_rows(rows: list[dict[str, Any]], columns: list[str], *, source: Path | str, **options: Any) -> list[Item]:
    """The items of ``rows`` (a file's, or a data frame's in memory: ``source`` is what messages name), every
    row validated under :class:`RowItems`' ``options``; all bad rows are reported together (one line each)."""
    if not rows:
        raise UserError(f"{source}: {'the file has no data rows' if isinstance(source, Path) else 'no data rows'}")
    reader = RowItems(columns, source=source, **options)
    seen_ids: dict[str, int] = {}

    def first_at(item_id: str, index: int) -> int | None:
        """The row an id was first seen at (None: a new id, remembered)."""
        first = seen_ids.setdefault(item_id, index)
        return None if first == index else first

    items = [item for index, row in enumerate(rows) if (item := reader.item(index, row, first_at)) is not None]
    reader.check.raise_if_any(len(rows))
    return items


class RowItems:
    """Turns rows into items under one column map (resolved once from the file's columns): each row checked
    as it comes, its problems collected in ``check`` (one line each)."""

    def __init__(
        self,
        columns: list[str],
        *,
        source: Path | str,
        is_csv: bool = False,
        dataset: str,
        fields: Mapping[str, str],
        aspect: str,
        scale: tuple[float, float] | None = None,
        labels: Mapping[str, str] | None = None,
        task_type: str = SINGLE,
    ) -> None:
        self.resolved = resolve_fields(fields, columns, source, task_type)
        self.check = _Validator(source, is_csv)
        self.dataset, self.aspect, self.scale, self.task_type = dataset, aspect, scale, task_type
        self.label_of = {
            value.casefold(): label for label, value in (labels or {label: label for label in PAIRWISE_LABELS}).items()
        }
        order = PAIRWISE_INPUT_ORDER if task_type == PAIRWISE else SINGLE_INPUT_ORDER
        # A pairwise response may be empty (a model that answered nothing; PandaLM has 54 such).
        optional = ("input", "output_a", "output_b") if task_type == PAIRWISE else ("reference", "context")
        resolved = self.resolved
        self.input_columns = [(name, resolved[name], name not in optional) for name in order if name in resolved]
        #: The names of every item's inputs (each item has them all, an empty optional one as "").
        self.shape = tuple(name for name, _, _ in self.input_columns)

    def item(self, index: int, row: dict[str, Any], first_at: Callable[[str, int], int | None]) -> Item | None:
        """The item of the row at 0-based ``index``, or None when it has problems (added to ``check``);
        ``first_at(id, index)`` is the row where the id was seen before (None: not seen; it is remembered)."""
        check, resolved, task_type = self.check, self.resolved, self.task_type
        errors_before = len(check.errors)
        item_id = check.text(index, row, resolved["id"]) if "id" in resolved else f"row-{index + 1}"
        first = None if item_id is None else first_at(item_id, index)
        if first is not None:
            check.fail(index, resolved["id"], f"duplicate id {item_id!r} (first at row {first + 1})")
        group = check.text(index, row, resolved["group"]) if "group" in resolved else item_id
        if "group" not in resolved and "system" in resolved and isinstance(row.get(resolved["source"]), str):
            group = _source_group(row[resolved["source"]])  # several systems' outputs on one source: one group
        inputs = {
            name: check.text(index, row, column, required=required) for name, column, required in self.input_columns
        }
        human_scores: dict[str, float] = {}
        human_label = None
        rating_column = resolved.get("label" if task_type == PAIRWISE else "human")
        if rating_column is None or _unrated(row.get(rating_column)):
            pass  # no human rating for this row: judged, left out of the agreement figures
        elif task_type == PAIRWISE:
            raw = check.text(index, row, rating_column)
            if raw is not None:
                human_label = self.label_of.get(raw.strip().casefold())
                if human_label is None:
                    known = ", ".join(f"{value}={label}" for value, label in self.label_of.items())
                    check.fail(index, rating_column, f"unknown label {raw!r} (known: {known}; see --labels)")
        else:
            score = check.number(index, row, rating_column, self.scale)
            if score is not None:
                human_scores[self.aspect] = score
        annotator_scores = self.annotators(index, row) if ANNOTATORS in resolved else {}
        if annotator_scores and rating_column is None:  # no rating column: the annotators' mean is the rating
            human_scores[self.aspect] = sum(annotator_scores.values()) / len(annotator_scores)
        system, pair = _systems(check, index, row, resolved)
        family = None
        if "system_family" in resolved and not _unrated(row.get(resolved["system_family"])):
            family = (check.text(index, row, resolved["system_family"]) or "").strip() or None
        if len(check.errors) > errors_before:
            return None
        return Item(
            item_id=str(item_id),
            dataset=self.dataset,
            group_id=str(group),
            system_id=system,
            inputs={name: value or "" for name, value in inputs.items()},
            human_scores=human_scores,
            row_index=index,
            task_type=task_type,
            human_label=human_label,
            system_pair=pair,
            annotator_scores=annotator_scores,
            system_family=family,
        )

    def annotators(self, index: int, row: dict[str, Any]) -> dict[str, float]:
        """The row's ratings by annotator (``annotators=COL1|COL2|COL3``: named by their columns; one column
        holding a list, a JSON list or ``4|5|3`` text: named ``annotator 1``, ``annotator 2``, ... by position,
        so a position must be the same person on every row). Empty cells and nulls are not rated."""
        columns = self.resolved[ANNOTATORS].split("|")
        out: dict[str, float] = {}
        if len(columns) > 1:
            for column in columns:
                if not _unrated(row.get(column)):
                    value = self.check.number(index, row, column, self.scale)
                    if value is not None:
                        out[column] = value
            return out
        column = columns[0]
        cell = row.get(column)
        if _unrated(cell):
            return out
        values = cell
        if isinstance(cell, str):
            text = cell.strip()
            try:
                values = json.loads(text) if text.startswith("[") else text.split("|")
            except json.JSONDecodeError:
                self.check.fail(index, column, f"expected a list of ratings, got {describe(cell)}")
                return out
        if not isinstance(values, list):
            self.check.fail(index, column, f"expected a list of ratings (or COL1|COL2 columns), got {describe(cell)}")
            return out
        for position, value in enumerate(values, start=1):
            if not _unrated(value):
                rating = self.check.number(index, {column: value}, column, self.scale)
                if rating is not None:
                    out[f"annotator {position}"] = rating
        return out


def _unrated(value: Any) -> bool:
    """Whether a rating cell holds no rating: absent, null or empty (whitespace-only) text."""
    return value is None or (isinstance(value, str) and not value.strip())


def _source_group(source: str) -> str:
    """The group of the outputs on one source text, when the rows name their system but no group."""
    return "source-" + hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


def _systems(
    check: _Validator, index: int, row: dict[str, Any], resolved: Mapping[str, str]
) -> tuple[str, tuple[str, str] | None]:
    """The row's system (``system=COL``; else a ``system_id`` column, as before the field existed; else empty)
    and, for a pairwise row mapping ``system_a`` and ``system_b``, its two systems."""
    if "system_a" in resolved or "system_b" in resolved:
        a = check.text(index, row, resolved["system_a"]) if "system_a" in resolved else None
        b = check.text(index, row, resolved["system_b"]) if "system_b" in resolved else None
        if "system_a" not in resolved or "system_b" not in resolved:
            missing = "system_b" if "system_a" in resolved else "system_a"
            check.fail(index, resolved.get("system_a") or resolved["system_b"], f"map {missing}=COLUMN as well")
            return "", None
        if a is None or b is None:
            return "", None
        return f"{a.strip()}_vs_{b.strip()}", (a.strip(), b.strip())
    if "system" in resolved:
        return (check.text(index, row, resolved["system"]) or "").strip(), None
    return str(row.get("system_id", "") or ""), None
