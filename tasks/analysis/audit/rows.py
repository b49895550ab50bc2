"""The per-item rows the facets compute on, and the small statistics they share.

Facets read result records (``results.jsonl`` lines of the audit's sub-runs). What the bootstrap resamples
(``units``) follows the meta-evaluation: a group-level dataset (SummEval documents, Topical-Chat contexts)
resamples groups, an item-level one (FED, own data without groups) and pairwise data resample items.
Pairwise verdicts are also read on a preference scale (``PREFERENCE``: first +1, tie 0, second -1) where a
facet needs numbers (scale use, injection).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any

import numpy as np
from scipy import stats

from debate_eval.tasks.analysis.correlations import ITEM, correlation_level
from debate_eval.tasks.analysis.records import group_of, number
from debate_eval.tasks.engine.record import Record

PREFERENCE = {"first": 1.0, "tie": 0.0, "second": -1.0}
VERDICTS = tuple(PREFERENCE)


def as_records(records: Iterable[Record | Mapping[str, Any]]) -> list[Record]:
    """The records as typed ``Record`` (a result line's JSON object is read by ``Record.from_json``)."""
    return [record if isinstance(record, Record) else Record.from_json(record) for record in records]


def is_pairwise_run(records: Iterable[Record]) -> bool:
    """Whether the records are pairwise (A versus B) judgments."""
    return any(record.pairwise for record in records)


def unit_key(records: Sequence[Record]) -> tuple[str, Any]:
    """(unit name, function record -> unit id): groups at group level, items otherwise (pairwise: items)."""
    if not records or is_pairwise_run(records):
        return "items", attrgetter("key")  # the record's item id as text
    if correlation_level(str(records[0].dataset), list(records)) == ITEM:
        return "items", attrgetter("key")
    return "groups", group_of


def latest(records: Iterable[Record]) -> dict[str, Record]:
    """The records by item id (a later record of an item wins)."""
    return {record.key: record for record in records}


def verdict_of(record: Record | None) -> str | None:
    """A pairwise record's verdict (first, second, tie), or None."""
    if record is None or record.error:
        return None
    verdict = record.verdict
    return verdict if verdict in PREFERENCE else None


def value_of(record: Record | None) -> float | None:
    """A record's judgment as a number: the score, or the verdict on the preference scale."""
    if record is not None and record.pairwise:
        verdict = verdict_of(record)
        return None if verdict is None else PREFERENCE[verdict]
    return None if record is None or record.error else number(record.score)


def human_value(record: Record) -> float | None:
    """The human score, or the human label on the preference scale."""
    if record.pairwise:
        label = record.human_label
        return PREFERENCE.get(label) if isinstance(label, str) else None
    return number(record.human_score)


def has_humans(records: Iterable[Record]) -> bool:
    """Whether any record carries a human score or label."""
    return any(human_value(record) is not None for record in records)


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rho (Pearson of the average ranks); None with fewer than 3 pairs or a constant side."""
    if len(x) < 3 or min(x) == max(x) or min(y) == max(y):
        return None
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    value = float(np.corrcoef(rx, ry)[0, 1])
    return value if math.isfinite(value) else None


def partial_spearman(x: Sequence[float], y: Sequence[float], z: Sequence[float]) -> float | None:
    """Spearman's partial correlation of x and y given z: ``(r_xy - r_xz r_yz) / sqrt((1 - r_xz^2)(1 - r_yz^2))``
    on the rank correlations; None where a part is undefined or z explains x or y entirely."""
    r_xy, r_xz, r_yz = spearman(x, y), spearman(x, z), spearman(y, z)
    if r_xy is None or r_xz is None or r_yz is None:
        return None
    denominator = (1.0 - r_xz * r_xz) * (1.0 - r_yz * r_yz)
    if denominator <= 1e-12:
        return None
    return (r_xy - r_xz * r_yz) / math.sqrt(denominator)


def share(flags: Sequence[bool]) -> float | None:
    """The share of true flags, or None for none."""
    return sum(1 for flag in flags if flag) / len(flags) if flags else None


def words(text: Any) -> int:
    """Length of a text in words (whitespace-separated tokens)."""
    return len(str(text or "").split())


def record_ids(records: Iterable[Record]) -> list[str]:
    """The item ids of ``records``, in order, without repeats."""
    return list(dict.fromkeys(record.key for record in records))


def ids(rows: Iterable[Mapping[str, Any]], key: str = "id") -> list[str]:
    """The item ids of ``rows``, in order, without repeats."""
    return list(dict.fromkeys(str(row[key]) for row in rows))
