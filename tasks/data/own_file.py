"""The user's own data: ``run --dataset FILE`` with a ``.jsonl``, ``.csv`` or ``.json`` file.

``--fields`` maps the project's field names to the file's columns:

- single score: ``source=COL,output=COL`` (required), ``human=COL`` (optional), ``group=COL`` (optional:
  without it every item is its own group and correlation is item-level), ``reference=COL``, ``context=COL``,
  ``id=COL``, ``system=COL`` (optional: the system that produced the output; outputs of several systems on the
  same input are compared, see ``analysis.systems``; without ``group``, the outputs on one source text form a
  group), ``annotators=COL1|COL2|COL3`` (optional: several annotators' ratings of each output, in one column
  each, or one column holding a list; the judge card's alt-test reads them, and without ``human`` their mean
  is the human rating), ``system_family=COL`` (optional: the model family of the output's system, for the judge
  card's self-preference facet);
- pairwise: ``question=COL,output_a=COL,output_b=COL`` (required), ``label=COL`` (optional), ``input=COL``,
  ``id=COL``, ``group=COL``, ``system_a=COL,system_b=COL`` (optional: the systems of the two outputs, for their
  win rates); ``--labels first=A,second=B,tie=T`` says which values of the label column mean what (default: the
  words first/second/tie, any case).

Human ratings are optional: without a ``human`` (or ``label``) column the file is judged as any other (scores or
verdicts, transcripts, resume, report), only ``meta-eval`` has nothing to compare them with. A row whose rating
is empty (or null) is unrated: it is judged, and left out of the agreement figures (counted as unrated).

A field not given defaults to the column of the same name when the file has one. The whole file is
validated before anything is evaluated: every bad row is one line naming the file, the row (counted from
1; a CSV's header is not a row) and the column, and all of them are reported together. Template
placeholders are the field names: ``{{source}}``, ``{{output}}``, ``{{reference}}``, ``{{context}}``
(pairwise ``{{question}}``, ``{{input}}``, ``{{output_a}}``, ``{{output_b}}``).
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import io
import json
import lzma
import re
import sys
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.own_rows import (
    PAIRWISE_INPUT_ORDER,
    SINGLE_INPUT_ORDER,
    RowItems,
    load_own_file,
    resolve_fields,
)
from debate_eval.tasks.data.registry import (
    GROUP_LEVEL,
    ITEM_LEVEL,
    PAIRWISE,
    SINGLE,
    DatasetSpec,
    Item,
    file_blob_id,
    file_version,
    folder_given,
    get_dataset,
    kept,
    looks_like_own_file,
    register_own_file_spec,
)
from debate_eval.tasks.data.rows import (
    MAX_DECOMPRESSED_BYTES,
    REFUSED_COMPRESSIONS,
    table_suffix,
)
from debate_eval.tasks.data.sources import CompactStrings, ItemSource, ListSource, has_duplicate

T = TypeVar("T")


def own_task_type(fields: Mapping[str, str]) -> str:
    """Pairwise when ``fields`` maps ``label``, ``output_a``, ``output_b`` or ``question``, single otherwise."""
    return PAIRWISE if {"label", "output_a", "output_b", "question"} & set(fields) else SINGLE


def register_own_file(
    name: str,
    *,
    fields: Mapping[str, str],
    aspect: str,
    scale: tuple[float, float] | None = None,
    labels: Mapping[str, str] | None = None,
) -> DatasetSpec:
    """Validate the user's file ``name`` (a path) and register it as a dataset of that name.

    Pairwise when ``fields`` maps ``label`` or ``output_a``, single-score otherwise. Raises
    :class:`UserError` for a missing file, unknown or absent columns, or any bad row (all listed).
    """
    path = Path(name).expanduser()
    if path.is_dir():
        raise UserError(folder_given(path))
    if not path.is_file():
        raise UserError(f"{path}: file not found (--dataset takes a dataset name or your own .jsonl/.csv/.json)")
    task_type = own_task_type(fields)
    if labels and task_type != PAIRWISE:
        raise UserError("--labels is for pairwise files (map question=, output_a=, output_b=, label= with --fields)")
    if not aspect or not aspect.strip():
        raise UserError("--aspect: give the quality to judge (that your ratings rate, if any), e.g. --aspect fluency")
    resolved_scale = None if scale is None else (float(scale[0]), float(scale[1]))
    spec = DatasetSpec(
        name=name,
        description=f"your own file {path}",
        relative_path=str(path.resolve()),
        aspects={aspect: resolved_scale if task_type == SINGLE else None},
        inputs=PAIRWISE_INPUT_ORDER if task_type == PAIRWISE else SINGLE_INPUT_ORDER,
        kind="summarization",
        loader=load_own_file,
        task_type=task_type,
        level=ITEM_LEVEL,
        licence="yours",
        attribution="",
        options={
            "fields": dict(fields),
            "aspect": aspect,
            "scale": resolved_scale,
            "labels": dict(labels) if labels else None,
            "task_type": task_type,
        },
    )
    # validates the whole file now, before anything is evaluated, one row at a time; what the run needs to
    # choose its items (their ids and groups) is kept, the items are read again as the run takes them
    scan = scanned(spec, path)
    level = ITEM_LEVEL if scan.groups is None else GROUP_LEVEL
    spec = replace(spec, git_blob_id=file_blob_id(path), size_bytes=path.stat().st_size, inputs=scan.shape, level=level)
    if task_type == SINGLE and resolved_scale is None:  # not checked; shown by `datasets` as the range seen
        spec = replace(spec, aspects={aspect: scan.rated})
    return register_own_file_spec(spec)


def dataset_options(name: str) -> dict[str, Any]:
    """What a run's configuration records about its dataset beyond the name: for an own file, its column map,
    labels, scale and the git blob id of its bytes (so editing the file changes the run's identity, and later
    commands can read the file again); ``{}`` for a registered dataset."""
    if not looks_like_own_file(name):
        return {}
    spec = get_dataset(name)
    options = {key: value for key, value in spec.options.items() if key != "task_type" and value is not None}
    if isinstance(options.get("scale"), tuple):
        options["scale"] = list(options["scale"])
    return {"dataset_options": {**options, "git_blob_id": spec.git_blob_id}}


def restore_dataset(config: Mapping[str, Any]) -> None:
    """Register the own file a run's ``config.json`` names (from its ``dataset_options``) in this process, so
    ``rescore``, ``report`` and ``repeat`` can load its items; nothing to do for a registered dataset."""
    name = config.get("dataset")
    options = config.get("dataset_options")
    if not isinstance(name, str) or not isinstance(options, Mapping) or not looks_like_own_file(name):
        return
    scale = options.get("scale")
    spec = register_own_file(
        name,
        fields=dict(options.get("fields") or {}),
        aspect=str(options.get("aspect") or config.get("aspect") or ""),
        scale=None if scale is None else (float(scale[0]), float(scale[1])),
        labels=options.get("labels"),
    )
    recorded = options.get("git_blob_id")
    if recorded and recorded != spec.git_blob_id:
        raise UserError(
            f"{name}: the file changed since the run (git blob id {spec.git_blob_id}, the run used {recorded})"
        )


# --------------------------------------------------------------------------------------------------
# Reading a file row by row: the check at registration and the items a run takes


class _ReadWhole(Exception):
    """The file has something the row-by-row reading does not word as reading the whole file does (a bad
    byte, line, row or value): it is read whole, as before, for its exact message (or, rarely, its items)."""


# the line breaks ``str.splitlines`` knows besides "\n" (a JSON-lines file read whole is split at them)
_OTHER_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_READ_WHOLE_ERRORS = (_ReadWhole, UserError, UnicodeError, ValueError, csv.Error, OSError, EOFError, RecursionError)
_SIZE_CHECK_ROWS = 4096  # a compressed file's decompressed size is checked every this many rows


@contextlib.contextmanager
def _binary(path: Path) -> Iterator[BinaryIO]:
    """``path`` opened for reading bytes, decompressed as it is read when it is ``.gz`` or ``.xz``."""
    compression = path.suffix.lower()
    if compression in REFUSED_COMPRESSIONS:
        raise _ReadWhole
    opener = {".gz": gzip.open, ".xz": lzma.open}.get(compression)
    with opener(path, "rb") if opener else path.open("rb") as handle:
        yield handle  # type: ignore[misc]


def _check_size(handle: BinaryIO, count: int) -> None:
    compressed = isinstance(handle, (gzip.GzipFile, lzma.LZMAFile))
    if count % _SIZE_CHECK_ROWS == 0 and compressed and handle.tell() > MAX_DECOMPRESSED_BYTES:
        raise _ReadWhole  # refused, in the words of reading it whole


def _jsonl_lines(path: Path) -> Iterator[str]:
    """The non-blank lines of a JSON-lines file, one at a time, as reading it whole splits them."""
    with _binary(path) as handle:
        for number, raw in enumerate(handle):
            _check_size(handle, number)
            line = raw.decode("utf-8")
            if number == 0:
                line = line.removeprefix("\ufeff")
            line = line.removesuffix("\n").removesuffix("\r")
            if _OTHER_BREAKS.search(line):
                raise _ReadWhole
            if line.strip():
                yield line


def _jsonl_row(line: str) -> dict[str, Any]:
    row = json.loads(line)
    if type(row) is not dict:
        raise _ReadWhole
    return row


@contextlib.contextmanager
def _csv_rows(path: Path) -> Iterator[tuple[list[str], Iterator[dict[str, Any]]]]:
    """A CSV file's header and its rows, read as they are taken."""
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    with _binary(path) as handle, io.TextIOWrapper(handle, encoding="utf-8-sig", newline="") as text:  # type: ignore[arg-type]
        reader = csv.DictReader(text)
        columns = list(reader.fieldnames or [])
        if not columns:
            raise _ReadWhole

        def rows() -> Iterator[dict[str, Any]]:
            for number, row in enumerate(reader):
                _check_size(handle, number)
                yield row

        yield columns, rows()


@dataclass
class FileScan:
    """What checking an own file row by row keeps: the ids and groups of its items (compactly; no groups when
    each item is its own), the names of their inputs and the range of the ratings seen; ``items`` only when
    the file was read whole (a ``.json`` file, or a rare case the row-by-row reading leaves to it)."""

    version: tuple[int, ...]
    columns: list[str]
    is_csv: bool
    ids: Sequence[str]
    groups: Sequence[str] | None  # None: each item is its own group
    shape: tuple[str, ...]
    rated: tuple[float, float] | None
    items: list[Item] | None = None


_SCANS: OrderedDict[tuple[object, ...], FileScan] = OrderedDict()


def scanned(spec: DatasetSpec, path: Path) -> FileScan:
    """The check of ``spec``'s file (``path``) as it is now: kept from an earlier one of the same version and
    options in this process, or done now (every bad row reported together, one line each)."""
    version = file_version(path)
    key = (spec.name, repr(sorted(dict(spec.options).items())), str(path.resolve()), version)
    return kept(_SCANS, key, lambda: scan_file(path, spec, version))


def _ids_checked_apart(item_id: str, index: int) -> int | None:
    """``RowItems.item``'s duplicate check when the ids are checked apart: all at once after the check's pass
    (``has_duplicate``), or already, by the check, when a run reads the rows again."""
    return None


def _reader(spec: DatasetSpec, path: Path, columns: list[str], is_csv: bool) -> RowItems:
    return RowItems(columns, source=path, is_csv=is_csv, dataset=spec.name, **spec.options)


def scan_file(path: Path, spec: DatasetSpec, version: tuple[int, ...]) -> FileScan:
    """Check every row of the own file ``path`` (``spec``'s), holding one row at a time: a ``.jsonl`` or
    ``.csv`` file (compressed or not) is read line by line; a ``.json`` file (one list) is read whole."""
    if table_suffix(path) in (".jsonl", ".csv"):
        try:
            return _scan_rows(path, spec, version)
        except _READ_WHOLE_ERRORS:
            pass  # read whole below: its exact message, or (rarely) its items
    items = spec.load(path)
    shape = tuple(name for name in spec.inputs if name in items[0].inputs)
    scan = _scan_of(items, spec, version=version, columns=[], is_csv=table_suffix(path) == ".csv", shape=shape)
    scan.items = items
    return scan


def _scan_of(items: Iterable[Item], spec: DatasetSpec, **found: Any) -> FileScan:
    """The ``FileScan`` of ``items``, taken one at a time (``found``: what the reading knows of the file): their
    ids and groups (when any group holds several items), the range of the ratings of the spec's aspect."""
    aspect = spec.options["aspect"]
    ids, groups = CompactStrings(), CompactStrings()
    grouped = False
    low = high = None
    for item in items:
        ids.append(item.item_id)
        groups.append(item.group_id)
        grouped = grouped or item.group_id != item.item_id
        score = item.human_scores.get(aspect)
        if score is not None:
            low = score if low is None or score < low else low
            high = score if high is None or score > high else high
    rated = None if low is None or high is None else (low, high)
    return FileScan(ids=ids.freeze(), groups=groups.freeze() if grouped else None, rated=rated, **found)


def _scan_rows(path: Path, spec: DatasetSpec, version: tuple[int, ...]) -> FileScan:
    """``scan_file`` of a ``.jsonl`` / ``.csv`` file, row by row; ``_ReadWhole`` (or a reading error) for a
    file that reading it whole words better. A JSON-lines file's columns are every row's keys: its rows are
    checked under the column map of the first row's, and checked again in a second pass in the rare case
    that the map of all the keys differs."""
    if table_suffix(path) == ".csv":
        with _csv_rows(path) as (columns, rows):
            return _scan_pass(path, spec, version, columns, True, rows)
    with contextlib.closing(_jsonl_lines(path)) as lines:
        first = next(lines, None)
    if first is None:
        raise _ReadWhole
    columns = list(_jsonl_row(first))
    fields = spec.options["fields"]
    for _ in range(2):
        with contextlib.closing(_jsonl_lines(path)) as lines:
            seen: dict[str, None] = {}
            scan = _scan_pass(path, spec, version, columns, False, (_jsonl_row(line) for line in lines), seen)
        every = list(seen)
        if every == columns:
            return scan
        if resolve_fields(fields, every, path, spec.task_type) == resolve_fields(fields, columns, path, spec.task_type):
            scan.columns = every
            return scan
        columns = every
    raise _ReadWhole


def _scan_pass(
    path: Path,
    spec: DatasetSpec,
    version: tuple[int, ...],
    columns: list[str],
    is_csv: bool,
    rows: Iterable[dict[str, Any]],
    seen_columns: dict[str, None] | None = None,
) -> FileScan:
    reader = _reader(spec, path, columns, is_csv)

    def items() -> Iterator[Item]:
        for index, row in enumerate(rows):
            if seen_columns is not None:
                seen_columns.update(dict.fromkeys(row))
            item = reader.item(index, row, _ids_checked_apart)
            if item is None:
                raise _ReadWhole  # every bad row, worded by the whole file's check
            yield item

    scan = _scan_of(items(), spec, version=version, columns=columns, is_csv=is_csv, shape=reader.shape)
    if not scan.ids or ("id" in reader.resolved and has_duplicate(scan.ids)):
        raise _ReadWhole  # no row, or an id twice: the whole file's check names the rows
    return scan


class FileSource:
    """The items of an own ``.jsonl`` / ``.csv`` file checked by ``scan_file``, read again row by row as a
    run takes them (an ``ItemSource``). The file must be the one checked: a file changed since is refused."""

    def __init__(self, spec: DatasetSpec, path: Path, scan: FileScan) -> None:
        self.spec, self.path, self.scan = spec, path, scan

    def __len__(self) -> int:
        """How many items the file has."""
        return len(self.scan.ids)

    def keys(self) -> Iterator[tuple[str, str]]:
        """Each item's id and group, in file order."""
        ids = self.scan.ids
        return zip(ids, ids if self.scan.groups is None else self.scan.groups, strict=True)

    def shapes(self, positions: Iterable[int]) -> set[tuple[str, ...]]:
        """Every item has the same inputs (an empty optional one as ""): that one shape, if any is chosen."""
        return {self.scan.shape} if any(True for _ in positions) else set()

    def _changed(self, where: str) -> UserError:
        return UserError(
            f"{self.path}: the file changed since it was checked ({where}); nothing of it was evaluated since: "
            "rerun the command (the results already written are kept)"
        )

    def items_at(self, wanted: Iterable[tuple[int, T]]) -> Iterator[tuple[Item, T]]:
        """The items at the positions of ``wanted`` (increasing), each read from its row when it is taken."""
        chosen = iter(wanted)
        target = next(chosen, None)
        if target is None:
            return
        try:
            version = file_version(self.path)
        except OSError:
            raise UserError(f"{self.path}: file not found (it was checked before the run started)") from None
        if version != self.scan.version:
            raise self._changed("its size or time is not the same")
        reader = _reader(self.spec, self.path, self.scan.columns, self.scan.is_csv)
        try:
            with contextlib.ExitStack() as stack:
                if self.scan.is_csv:
                    _, rows = stack.enter_context(_csv_rows(self.path))
                    raws: Iterator[Any] = rows
                else:
                    raws = stack.enter_context(contextlib.closing(_jsonl_lines(self.path)))
                for index, raw in enumerate(raws):
                    if index < target[0]:
                        continue
                    row = raw if self.scan.is_csv else _jsonl_row(raw)
                    item = reader.item(index, row, _ids_checked_apart)
                    if item is None or index >= len(self.scan.ids) or item.item_id != self.scan.ids[index]:
                        raise self._changed(f"row {index + 1}")
                    yield item, target[1]
                    target = next(chosen, None)
                    if target is None:
                        return
        except _READ_WHOLE_ERRORS as exc:
            if isinstance(exc, UserError) and str(exc).startswith(f"{self.path}: the file changed"):
                raise
            raise self._changed("it no longer reads as it did") from None
        raise self._changed("it has fewer rows")


def own_file_source(spec: DatasetSpec) -> ItemSource | None:
    """The items of ``spec`` read as a run takes them, when it is an own file that was registered (checked):
    a ``FileSource`` for a ``.jsonl`` / ``.csv`` file, the list for one read whole; None for any other
    dataset."""
    if spec.loader is not load_own_file:
        return None
    path = Path(spec.relative_path)
    if not path.is_file():
        raise UserError(f"{path}: file not found (it was checked before the run started)")
    scan = scanned(spec, path)
    return ListSource(scan.items) if scan.items is not None else FileSource(spec, path, scan)
