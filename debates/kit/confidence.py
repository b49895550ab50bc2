"""How sure a judgment is: a confidence in [0, 1] beside a score or verdict, from what the method already has.

A method says how it derives its confidence in ``Method.confidence`` (one record in, a ``Confidence`` or
``None`` out); ``record_confidence`` applies it to a stored record and adds what the engine knows: under
``--swap`` a pair whose two orders disagree has confidence 0, and a pair whose orders agree has the smaller of
the two orders' confidences (1 when the method gives none). The value is stored as the record's
``confidence`` and how it was derived as ``details["confidence_basis"]``.

A confidence ranks judgments (a higher one is more often right); it is not a calibrated probability. A
cascade (``debate-eval cascade``) chooses its thresholds on labelled items, which is what turns a ranking into
a guarantee.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from debate_eval.debates.record import ResultRecord, entries

BASIS_KEY = "confidence_basis"  # where a record's details say how its confidence was derived
ORIGINAL, SWAPPED = "original", "swapped"


@dataclass(frozen=True)
class Confidence:
    """A confidence in [0, 1] and how it was derived (one short phrase, e.g. ``"4 of 5 samples agree"``)."""

    value: float
    basis: str

    def __post_init__(self) -> None:
        if not 0.0 <= self.value <= 1.0:
            raise ValueError(f"a confidence is in [0, 1], not {self.value!r}")


def agreement(values: Iterable[Hashable | None], what: str) -> Confidence | None:
    """The share of ``values`` equal to the most common one (``None`` values count as disagreeing): ``what``
    names the voters (``"samples"``, ``"referees"``, ``"branches"``). ``None`` when there are no values."""
    votes = list(values)
    if not votes:
        return None
    counts = Counter(vote for vote in votes if vote is not None)
    if not counts:
        return Confidence(0.0, f"no {what} gave an answer")
    top, count = counts.most_common(1)[0]
    return Confidence(count / len(votes), f"{count} of {len(votes)} {what} agree ({top})")


def score_key(value: Any) -> float | None:
    """A score as a vote: rounded so that float noise (2.9999999) does not split equal answers."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return round(float(value), 6)


def parsed_vote(parsed: Mapping[str, Any], score: bool = True) -> Hashable | None:
    """A stored parse (``{"value", "status", ...}``) as a vote: its value (a score as ``score_key`` rounds it,
    unless ``score`` is false) when it parsed, else ``None``."""
    if parsed.get("status") != "parsed":
        return None
    return score_key(parsed.get("value")) if score else parsed.get("value")


def answer_scores(record: ResultRecord, agent: str | None) -> list[Hashable | None]:
    """The parsed scores of ``agent``'s answers in ``record``'s transcript (``None`` for an unparsed answer)."""
    answers = [e for e in entries(record) if agent is not None and e.get("agent") == agent]
    return [parsed_vote(e["score"]) for e in answers if isinstance(e.get("score"), Mapping)]


def record_confidence(method: Any, record: Any) -> Confidence | None:
    """``record``'s confidence under ``method`` (its ``confidence`` hook), with ``--swap``'s order check:
    ``None`` for a failed record or one without a score or verdict."""
    if getattr(record, "error", None) or (record.score is None and record.verdict is None):
        return None
    orders = (record.details or {}).get("orders") if record.task_type == "pairwise" else None
    if not isinstance(orders, Mapping) or ORIGINAL not in orders or SWAPPED not in orders:
        return method.confidence(record)
    consistent = getattr(record, "consistent", None)
    if consistent is not True:
        why = "the two orders disagree" if consistent is False else "one order gave no verdict"
        return Confidence(0.0, f"--swap: {why}")
    per_order = [method.confidence(_order_view(record, name, orders[name])) for name in (ORIGINAL, SWAPPED)]
    known = [c for c in per_order if c is not None]
    if not known:
        return Confidence(1.0, "--swap: both orders agree")
    lowest = min(known, key=lambda c: c.value)
    return Confidence(lowest.value, f"--swap: both orders agree; the less sure order: {lowest.basis}")


def with_confidence(method: Any, record: Any) -> Any:
    """A copy of ``record`` with its ``confidence`` and ``details["confidence_basis"]`` (both cleared when the
    method gives none)."""
    found = record_confidence(method, record)
    details = dict(record.details or {})
    if found is None:
        if record.confidence is None and BASIS_KEY not in details:
            return record
        details.pop(BASIS_KEY, None)
        return record.replace(confidence=None, details=details or record.details)
    details[BASIS_KEY] = found.basis
    return record.replace(confidence=round(found.value, 6), details=details)


def _order_view(record: Any, name: str, order: Mapping[str, Any]) -> Any:
    """``record`` as its order ``name`` of a ``--swap`` pair saw it (that order's verdict, course and details)."""
    return record.replace(
        verdict=order.get("verdict"),
        details=order.get("details") or {},
        agreed=order.get("agreed"),
        rounds=order.get("rounds"),
        stop_reason=order.get("stop_reason"),
        decided_by=order.get("decided_by"),
        transcript=[e for e in entries(record) if e.get("order") in (None, name)],
    )
