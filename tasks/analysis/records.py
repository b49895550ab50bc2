"""Result records as the meta-evaluation reads them: loading, validation, identity and partitioning.

A record is one line of a run's ``results.jsonl`` (written by ``debate-eval run`` or ``debate-eval import``).
The meta-evaluation needs ``item_id``, ``dataset`` and ``aspect``; ``group_id`` is optional (without it the
item is its own group, as for item-level datasets and the user's own data without groups). Single-text
records carry ``score`` / ``human_score`` (numbers or null); pairwise records (``task_type: "pairwise"``)
carry ``verdict`` / ``human_label`` (``"first"``, ``"second"``, ``"tie"`` or null) and, from ``--swap`` runs,
``verdicts`` and ``consistent``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.rows import finite_number
from debate_eval.tasks.engine.record import VERDICTS, Record
from debate_eval.tasks.engine.rundir import iter_numbered_file
from debate_eval.tasks.engine.rundir import results_file as results_path  # a results file, or a run's results.jsonl
from debate_eval.tasks.engine.views import ScoreRow

DEFAULT_PROTOCOL = "debate"  # debates.base.DEFAULT_METHOD (not imported: analysis loads without AutoGen)

PartKey = tuple[str, str, str]  # (dataset, aspect, protocol)

#: A record as the meta-evaluation takes it: a typed record, its row, or a ``results.jsonl`` line's JSON object.
RecordLike = Record | ScoreRow | Mapping[str, Any]


def score_row(record: RecordLike) -> ScoreRow:
    """The row of a record, a row or a result line's JSON object (checked as ``Record.from_json`` checks it)."""
    if isinstance(record, ScoreRow):
        return record
    if isinstance(record, Record):
        return ScoreRow.of(record)
    return ScoreRow.of(Record.from_json(record, messages=False))


def score_rows(records: Iterable[RecordLike]) -> list[ScoreRow]:
    """The rows of ``records`` (:func:`score_row` of each), in order."""
    return [score_row(record) for record in records]


def load_results(paths: Sequence[Path]) -> list[ScoreRow]:
    """Read ``results.jsonl`` files as rows (:class:`ScoreRow`); the last line per (dataset, aspect, protocol,
    item_id) wins.

    The files are streamed: each line is read into a record (without its messages), kept as its row, and the
    record dropped, so a large run never stands in memory as records. Raises ``UserError`` for a missing
    file, a line that is not a JSON object (with file and line number) or a record without the keys the
    meta-evaluation needs. A final line without a trailing newline that does not parse (a run killed
    mid-write) is skipped with a warning on stderr.
    """
    latest: dict[tuple[str, str, str, str], ScoreRow] = {}
    for path in paths:
        for record in iter_checked(Path(path)):
            row = ScoreRow.of(record)
            latest[(str(row.dataset), str(row.aspect), row.method, row.key)] = row
    return list(latest.values())


def iter_checked(path: Path) -> Iterator[Record]:
    """The records of one results file, one at a time and without their messages, each checked by
    ``Record.from_json``."""
    if not path.is_file():
        raise UserError(f"{path}: no such results file (give the results.jsonl written by `debate-eval run`)")
    for _, record in iter_numbered_file(path, messages=False):
        yield record


def latest_records(path: str | Path) -> dict[tuple[str, str], Record]:
    """The records of a run directory or results file by (item id, aspect); the last line of an item wins."""
    return {(record.key, str(record.aspect)): record for record in iter_checked(results_path(path))}


def require_human_ratings(records: Sequence[RecordLike], where: str) -> None:
    """Raise a one-line ``UserError`` when none of ``records`` (``where``: the runs they come from) carries a
    human rating: a run of unrated outputs has nothing to meta-evaluate, which is not a pass."""
    rated = (
        row.human_label in VERDICTS if row.pairwise else finite_number(row.human_score) is not None
        for row in map(score_row, records)
    )
    if not any(rated):
        raise UserError(
            f"{where}: no human ratings in its {len(records)} record(s): nothing to meta-evaluate (its scores "
            "are in `debate-eval show` and `report`; to meta-evaluate, map a rating column with --fields "
            "human=COLUMN, or label=COLUMN for pairwise, or label items with `debate-eval label` and give its "
            "labels.jsonl as --labels)"
        )


def is_pairwise(record: RecordLike) -> bool:
    """True for a pairwise (A versus B) record."""
    return score_row(record).pairwise


def protocol_of(record: RecordLike) -> str:
    """The record's method (``method``; older files: ``protocol``, or none for DEBATE runs: read by ``compat``
    when the record is read)."""
    return score_row(record).method


def group_of(record: RecordLike) -> str:
    """The record's group (SummEval document, Topical-Chat context); the item itself when it has none."""
    row = score_row(record)
    group = row.group_id
    return str(group) if group not in (None, "") else f"item:{row.item_id}"


def resampling_key(record: RecordLike) -> tuple[str, ...]:
    """(group, item id, system, aspect, dataset, method): the canonical order bootstrap resamples are drawn from
    (``sorted(rows, key=resampling_key)``). Not the order of ``results.jsonl``, which is the order the items
    finished in (it varies with the concurrency), so a seeded interval is a function of the records alone. After
    the group and the item come the system and the rest of a record's identity (its resume key's aspect), so
    records sharing an item id (one item judged for several systems) have an order of their own too."""
    row = score_row(record)
    return group_of(row), row.key, row.system_id or "", str(row.aspect), str(row.dataset), row.method


def canonical_rows(records: Iterable[RecordLike]) -> list[ScoreRow]:
    """The rows of ``records`` in the canonical order (:func:`resampling_key`), whatever order they came in."""
    return sorted(score_rows(records), key=resampling_key)


def number(value: Any) -> float | None:
    """A finite float, or None for null / NaN / infinity (and a whole number too large for a float)."""
    try:
        return None if value is None else finite_number(float(value))
    except OverflowError:
        return None


def partition(records: Iterable[RecordLike]) -> dict[PartKey, list[ScoreRow]]:
    """The records' rows split by (dataset, aspect, protocol), the parts in first-seen order, each part's rows in
    the canonical order (:func:`resampling_key`): what is computed of a part does not depend on the order the
    items finished in, not even in its last digit."""
    parts: dict[PartKey, list[ScoreRow]] = {}
    for record in records:
        row = score_row(record)
        parts.setdefault((str(row.dataset), str(row.aspect), row.method), []).append(row)
    return {key: canonical_rows(rows) for key, rows in parts.items()}


def keyed_parts(records: Iterable[RecordLike]) -> dict[str, dict[str, tuple[PartKey, list[ScoreRow]]]]:
    """dataset → aspect key → ((dataset, aspect, protocol), records); the aspect key is ``aspect``, or
    ``aspect[protocol]`` for the non-debate protocols when the records mix protocols."""
    parts = partition(records)
    several = len({protocol for _, _, protocol in parts}) > 1
    keyed: dict[str, dict[str, tuple[PartKey, list[ScoreRow]]]] = {}
    for part_key, part in parts.items():
        dataset, aspect, protocol = part_key
        key = f"{aspect}[{protocol}]" if several and protocol != DEFAULT_PROTOCOL else aspect
        keyed.setdefault(dataset, {})[key] = (part_key, part)
    return keyed
