"""Result records as the meta-evaluation reads them: loading, validation, identity and partitioning.

A record is one line of a run's ``results.jsonl`` (written by ``debate-eval run`` or ``debate-eval import``).
The meta-evaluation needs ``item_id``, ``dataset`` and ``aspect``; ``group_id`` is optional (without it the
item is its own group, as for item-level datasets and the user's own data without groups). Single-text
records carry ``score`` / ``human_score`` (numbers or null); pairwise records (``task_type: "pairwise"``)
carry ``verdict`` / ``human_label`` (``"first"``, ``"second"``, ``"tie"`` or null) and, from ``--swap`` runs,
``verdicts`` and ``consistent``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.compat import method_of
from debate_eval.tasks.engine.record import PAIRWISE, REQUIRED_KEYS, VERDICTS, validate_record
from debate_eval.tasks.engine.rundir import RESULTS_FILE, iter_json_lines

DEFAULT_PROTOCOL = "debate"  # debates.base.DEFAULT_METHOD (not imported: analysis loads without AutoGen)
__all__ = [
    "DEFAULT_PROTOCOL",
    "PAIRWISE",
    "REQUIRED_KEYS",
    "VERDICTS",
    "aspect_key",
    "check_record",
    "group_of",
    "is_pairwise",
    "keyed_parts",
    "load_results",
    "number",
    "partition",
    "protocol_of",
    "read_checked",
    "record_key",
    "require_human_ratings",
    "results_path",
]

Record = dict[str, Any]
PartKey = tuple[str, str, str]  # (dataset, aspect, protocol)


def results_path(name: str | Path) -> Path:
    """A results file, or a run directory's ``results.jsonl``."""
    path = Path(name)
    return path / RESULTS_FILE if path.is_dir() else path


def load_results(paths: Sequence[Path]) -> list[Record]:
    """Read ``results.jsonl`` files; the last line per (dataset, aspect, protocol, item_id) wins.

    Raises ``UserError`` for a missing file, a line that is not a JSON object (with file and line number) or
    a record without the keys the meta-evaluation needs. A final line without a trailing newline that does
    not parse (a run killed mid-write) is skipped with a warning on stderr.
    """
    latest: dict[tuple[str, str, str, str], Record] = {}
    for path in paths:
        for record in read_checked(Path(path)):
            latest[record_key(record)] = record
    return list(latest.values())


def read_checked(path: Path) -> list[Record]:
    """The records of one results file, each validated by :func:`check_record`."""
    if not path.is_file():
        raise UserError(f"{path}: no such results file (give the results.jsonl written by `debate-eval run`)")
    records = []
    for number, record in iter_json_lines(path):
        check_record(path, number, record)
        records.append(record)
    return records


def check_record(path: Path, number: int, record: Record) -> None:
    """Raise a one-line ``UserError`` naming file, line (counted from 1) and field when ``record`` is unusable.

    The one record check of the project (``tasks/engine/record.py``), shared with resume, so a line that a
    run resumes from is never rejected here, and the other way round.
    """
    validate_record(record, path, number)


def has_human_rating(record: Record) -> bool:
    """Whether ``record`` carries a human rating: a ``human_score`` (single score) or a ``human_label``
    (pairwise)."""
    if is_pairwise(record):
        return record.get("human_label") in VERDICTS
    value = record.get("human_score")
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def require_human_ratings(records: Sequence[Record], where: str) -> None:
    """Raise a one-line ``UserError`` when none of ``records`` (``where``: the runs they come from) carries a
    human rating: a run of unrated outputs has nothing to meta-evaluate, which is not a pass."""
    if not any(has_human_rating(record) for record in records):
        raise UserError(
            f"{where}: no human ratings in its {len(records)} record(s): nothing to meta-evaluate (its scores "
            "are in `debate-eval show` and `report`; map a rating column with --fields human=COLUMN, or "
            "label=COLUMN for pairwise, to meta-evaluate)"
        )


def is_pairwise(record: Record) -> bool:
    """True for a pairwise (A versus B) record."""
    return record.get("task_type") == PAIRWISE


def record_key(record: Record) -> tuple[str, str, str, str]:
    """The identity of a record: (dataset, aspect, protocol, item_id)."""
    return (str(record["dataset"]), str(record["aspect"]), protocol_of(record), str(record["item_id"]))


def protocol_of(record: Record) -> str:
    """The record's method (``method``; older files: ``protocol``, or none for DEBATE runs; ``compat``)."""
    return method_of(record)


def group_of(record: Record) -> str:
    """The record's group (SummEval document, Topical-Chat context); the item itself when it has none."""
    group = record.get("group_id")
    return str(group) if group not in (None, "") else f"item:{record['item_id']}"


def number(value: Any) -> float | None:
    """A finite float, or None for null / NaN / infinity."""
    if value is None:
        return None
    result = float(value)
    return result if math.isfinite(result) else None


def partition(records: Iterable[Record]) -> dict[PartKey, list[Record]]:
    """The records split by (dataset, aspect, protocol), in first-seen order."""
    parts: dict[PartKey, list[Record]] = {}
    for record in records:
        key = (str(record["dataset"]), str(record["aspect"]), protocol_of(record))
        parts.setdefault(key, []).append(record)
    return parts


def aspect_key(aspect: str, protocol: str, several_protocols: bool) -> str:
    """The report key of an aspect: ``aspect``, or ``aspect[protocol]`` for non-debate protocols in a mix."""
    if several_protocols and protocol != DEFAULT_PROTOCOL:
        return f"{aspect}[{protocol}]"
    return aspect


def keyed_parts(records: Iterable[Record]) -> dict[str, dict[str, tuple[PartKey, list[Record]]]]:
    """dataset → aspect key → ((dataset, aspect, protocol), records), keys as in :func:`aspect_key`."""
    parts = partition(records)
    several = len({protocol for _, _, protocol in parts}) > 1
    keyed: dict[str, dict[str, tuple[PartKey, list[Record]]]] = {}
    for part_key, part in parts.items():
        dataset, aspect, protocol = part_key
        keyed.setdefault(dataset, {})[aspect_key(aspect, protocol, several)] = (part_key, part)
    return keyed
