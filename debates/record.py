"""What a method's hooks see of a stored result: the typed record, as a protocol.

The result record is ``debate_eval.Record`` (``tasks.engine.record``); the ``tasks`` layer sits above this one,
so the hooks of ``Method`` (``rescore``, ``rescore_pairwise``, ``record_view``, ``summary_lines``) do not
import it: they are typed against ``ResultRecord``, the part of it they use, and ``Record`` satisfies it as
it is. A hook reads the record's fields as attributes and returns a changed copy made with ``replace``; the
record is never changed in place.

Two parts of a record belong to the method that wrote it and are read as the JSON it wrote: ``details`` (its
own extras) and the transcript's entries (``entries(record)``: one dict per message, with the keys the method
set, e.g. ``relay``, ``order``, ``sample``, ``step``, and the ``score`` or ``verdict`` parsed from it).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar


class StoredMessage(Protocol):
    """One transcript entry of a stored record (``debate_eval.Message``)."""

    def to_dict(self) -> dict[str, Any]:
        """The entry as stored (a new dict)."""
        ...


class ResultRecord(Protocol):
    """The fields of a stored result a method's hooks read, and ``replace`` (``debate_eval.Record``)."""

    @property
    def item_id(self) -> str | int: ...
    @property
    def aspect(self) -> str: ...
    @property
    def task_type(self) -> str | None: ...
    @property
    def score(self) -> float | None: ...
    @property
    def parse_status(self) -> str | None: ...
    @property
    def parse_method(self) -> str | None: ...
    @property
    def parse_reason(self) -> str | None: ...
    @property
    def reasked(self) -> bool | None: ...
    @property
    def agreed(self) -> bool | None: ...
    @property
    def rounds(self) -> int | None: ...
    @property
    def stop_reason(self) -> str | None: ...
    @property
    def decided_by(self) -> str | None: ...
    @property
    def details(self) -> Mapping[str, Any] | None: ...
    @property
    def transcript(self) -> Sequence[StoredMessage]: ...
    @property
    def verdict(self) -> str | None: ...
    @property
    def confidence(self) -> float | None: ...

    def replace(self: R, **changes: Any) -> R:
        """A copy with ``changes`` (field names; ``transcript`` may be given as entry dicts)."""
        ...


R = TypeVar("R", bound=ResultRecord)


def entries(record: ResultRecord) -> list[dict[str, Any]]:
    """The transcript of ``record`` as the entries the method stored (new dicts: change them freely, then
    ``record.replace(transcript=...)``)."""
    return [message.to_dict() for message in record.transcript]


def details_of(record: ResultRecord) -> dict[str, Any]:
    """A deep copy of ``record``'s ``details`` (empty when it has none), to change and store back with
    ``record.replace(details=...)``."""
    return copy.deepcopy(dict(record.details or {}))
