"""The result record: the typed schema of one ``results.jsonl`` line, its validation and its JSON form.

Every reader of a results file checks a line with :meth:`Record.from_json` (or :func:`validate_record` on the
JSON object), so a line that one command accepts is never rejected by another: resume, ``show``, ``rescore``,
``meta-eval``, the report and the Python API (``debate_eval.Record`` is this class) all agree.

A record is written by the engine (``runner.make_record``) with :meth:`Record.to_json`. Its fields are those
of the line; ``details`` belongs to the method that judged the item (the engine stores it as the method gave
it); keys this schema does not know (an imported file's own columns) are kept in ``extra`` and written back.
Lines of older formats are read through ``compat`` (the only module that knows them).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring import PARSER_VERSION as PARSER_VERSION  # what the runner records
from debate_eval.tasks.engine import compat

REQUIRED_KEYS = ("item_id", "dataset", "aspect")
NUMBER_KEYS = ("score", "human_score")
VERDICTS = ("first", "second", "tie")
PAIRWISE = "pairwise"
DEFAULT_METHOD = compat.DEFAULT_METHOD

# The columns of a record's table row (``Record.row``, ``Run.to_pandas``): no transcript.
TABLE_COLUMNS = (
    "item_id",
    "dataset",
    "aspect",
    "method",
    "score",
    "human_score",
    "verdict",
    "human_label",
    "parse_status",
    "parse_method",
    "agreed",
    "rounds",
    "confidence",
    "error",
    "llm_calls",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "elapsed_s",
    "group_id",
    "system_id",
)

# A record's first keys: the item, the method that judged it, the item's group and system (written in this order).
_IDENTITY = ("item_id", "dataset", "aspect", "method", "group_id", "system_id")

# What a comparison of systems reads of a record (``Record.systems_row``).
_SYSTEMS_ROW = (
    *_IDENTITY,
    "score",
    "human_score",
    "task_type",
    "verdict",
    "human_label",
    "system_a",
    "system_b",
    "error",
    "config_hash",
)

# Keys in the order the engine writes them; the groups say when a key is written (see ``to_json``).
_CORE = (
    *_IDENTITY,
    "human_score",
    "score",
    "parse_status",
    "config_hash",
    "elapsed_s",
    "error",
)
_FINISHED = ("parse_method", "parse_reason", "reasked", "agreed", "rounds", "stop_reason", "decided_by", "details")
_OPTIONAL = ("score_normalized", "redactions", "confidence")
# the record's fields that a method fills itself, through its outcome's ``details`` under the same name (a
# normalized score); the engine names no method
METHOD_FIELDS = ("score_normalized",)
_PAIRWISE = ("task_type", "human_label", "verdict", "inputs")
_PAIRWISE_FINISHED = ("verdict_parse",)
_PAIRWISE_OPTIONAL = ("verdicts", "consistent", "system_a", "system_b")
_LAST = ("truncated", "parser_version")


def validate_record(obj: Any, path: Path | str | None = None, line_number: int | None = None) -> dict[str, Any]:
    """``obj`` itself when it is a usable result record (a JSON object), else a one-line ``UserError``.

    The error names the file, the line (counted from 1) and the field. Checked: a JSON object; ``item_id``,
    ``dataset`` and ``aspect`` present (``item_id`` a string or an integer); ``score`` and ``human_score``
    numbers or null; ``confidence`` a number in [0, 1] or null; for pairwise records, ``verdict`` and
    ``human_label`` one of first, second, tie or null and ``consistent`` a boolean or null.
    """
    where = _Where(path, line_number)
    if not isinstance(obj, dict):
        raise UserError(f"{where} is not a JSON object; is this a results.jsonl file?")
    missing = [key for key in REQUIRED_KEYS if obj.get(key) is None or obj.get(key) == ""]
    if missing:
        raise UserError(f"{where} has no {', '.join(missing)}; is this a results.jsonl file?")
    item_id = obj["item_id"]
    if isinstance(item_id, bool) or not isinstance(item_id, str | int):
        raise UserError(f"{where}: item_id must be a string, not {item_id!r}")
    for key in NUMBER_KEYS:
        value = obj.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise UserError(f"{where}: {key} must be a number or null, not {value!r}")
    confidence = obj.get("confidence")
    if confidence is not None and (
        isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1
    ):
        raise UserError(f"{where}: confidence must be a number from 0 to 1 or null, not {confidence!r}")
    if obj.get("task_type") == PAIRWISE:
        for key in ("verdict", "human_label"):
            value = obj.get(key)
            if value is not None and value not in VERDICTS:
                raise UserError(f"{where}: {key} must be one of {', '.join(VERDICTS)} or null, not {value!r}")
        consistent = obj.get("consistent")
        if consistent is not None and not isinstance(consistent, bool):
            raise UserError(f"{where}: consistent must be true, false or null, not {consistent!r}")
    return obj


class _Where:
    """Where a line is, for an error message (formatted only when there is an error)."""

    def __init__(self, path: Path | str | None, line_number: int | None) -> None:
        self.path, self.line_number = path, line_number

    def __format__(self, spec: str) -> str:
        if self.path is None and self.line_number is None:
            return "result record"
        if self.line_number is None:
            return f"{self.path}"
        return f"{self.path if self.path is not None else 'results'}: line {self.line_number} (counted from 1)"


@dataclass(frozen=True)
class Message:
    """One transcript entry: who said what, its token usage, and the score (or verdict) parsed from it."""

    index: int
    agent: str
    role: str
    content: str
    usage: Mapping[str, int] | None = None
    cached: bool = False
    score: Mapping[str, Any] | None = None  # {"value", "status", "method", "reason"} when parsed
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> Message:
        """A transcript entry as stored in ``results.jsonl``."""
        return cls(
            index=int(entry.get("index") or 0),
            agent=str(entry.get("agent") or ""),
            role=str(entry.get("role") or ""),
            content=str(entry.get("content") or ""),
            usage=entry.get("usage"),
            cached=bool(entry.get("cached")),
            score=entry.get("score") or entry.get("verdict"),
            raw=dict(entry),
        )

    def to_dict(self) -> dict[str, Any]:
        """The entry as stored (every key it was read or written with)."""
        return dict(self.raw) if self.raw else {"index": self.index, "agent": self.agent, "content": self.content}


class Keyed:
    """What a record and its views (``views.RecordRow``) answer alike from the item's id and task type."""

    __slots__ = ()
    item_id: str | int
    task_type: str | None

    @property
    def pairwise(self) -> bool:
        """True for a pairwise (A versus B) record."""
        return self.task_type == PAIRWISE

    @property
    def key(self) -> str:
        """The item's id as text (ids may be stored as integers)."""
        return str(self.item_id)


@dataclass(frozen=True)
class Record(Keyed):
    """One result line: an item (under one aspect) judged by one method.

    ``transcript`` holds every message; ``details`` the method's own extras; ``usage`` the tokens per role;
    ``raw`` the line as JSON (``to_json()``). Pairwise records (``task_type == "pairwise"``) carry ``verdict``,
    ``human_label``, the judged ``inputs`` and, from ``--swap`` runs, ``verdicts`` and ``consistent``.
    """

    item_id: str | int
    dataset: str
    aspect: str
    method: str = DEFAULT_METHOD
    group_id: str | None = None
    system_id: str | None = None
    human_score: float | None = None
    score: float | None = None
    parse_status: str | None = None
    config_hash: str | None = None
    elapsed_s: float | None = None
    error: str | None = None
    parse_method: str | None = None
    parse_reason: str | None = None
    reasked: bool | None = None
    agreed: bool | None = None
    rounds: int | None = None
    stop_reason: str | None = None
    decided_by: str | None = None
    details: Mapping[str, Any] | None = field(default=None, repr=False)  # the method's own extras
    usage: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)  # per role
    llm_calls: int = 0
    cached_calls: int = 0
    transcript: tuple[Message, ...] = field(default=(), repr=False)
    score_normalized: float | None = None  # a method's score mapped to [0, 1], when it gives one
    redactions: int | None = None  # configured secrets masked in the answers
    confidence: float | None = None  # how sure the judgment is, in [0, 1] (how: details["confidence_basis"])
    task_type: str | None = None  # "pairwise", or None for a single-text record
    human_label: str | None = None
    verdict: str | None = None
    inputs: Mapping[str, Any] | None = field(default=None, repr=False)
    verdict_parse: Mapping[str, Any] | None = field(default=None, repr=False)
    verdicts: Mapping[str, Any] | None = None
    consistent: bool | None = None
    system_a: str | None = None  # the systems of output_a and output_b, when the dataset names them
    system_b: str | None = None
    truncated: bool | None = None  # the deciding answer was cut at the token limit
    parser_version: int | None = None  # the parsers' version that read the answers (None: before versions)
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False)  # keys this schema does not know
    without_messages: bool = field(default=False, repr=False, compare=False)  # read with messages=False

    # -- JSON -------------------------------------------------------------------------------------------------

    @classmethod
    def from_json(
        cls, obj: Any, *, path: Path | str | None = None, line: int | None = None, messages: bool = True
    ) -> Record:
        """The record of one ``results.jsonl`` line (its parsed JSON object), checked by ``validate_record``:
        a line that is not a usable record is a one-line ``UserError`` naming ``path``, ``line`` (counted from
        1) and the field. Older formats are read through ``compat``.

        ``messages=False`` leaves the transcript out (for counting a large file fast): such a record is never
        written back (``to_json`` refuses it)."""
        validate_record(obj, path, line)
        values = compat.current_record(obj)
        # built without __init__ (a frozen dataclass sets each of its fields through object.__setattr__): a
        # resume reads every line of a large file
        record = object.__new__(cls)
        state = record.__dict__
        state.update(_DEFAULTS)
        extra = {}
        for key, value in values.items():
            if key in _FIELDS:
                state[key] = value
            else:
                extra[key] = value
        state["extra"] = extra
        if state["usage"] is _NO_USAGE:
            state["usage"] = {}
        transcript = state["transcript"] or ()
        if not messages:
            state["transcript"], state["without_messages"] = (), True
        else:
            state["transcript"] = tuple(Message.from_dict(e) if isinstance(e, Mapping) else _odd(e) for e in transcript)
        return record

    def to_json(self) -> dict[str, Any]:
        """The record as its ``results.jsonl`` line (a JSON object), keys in the engine's order.

        Always written: the core keys, ``usage`` and ``transcript``; for a finished item (no ``error``) the
        parse and debate keys; for a pairwise record its verdict fields; other keys when they have a value.
        """
        if self.without_messages:
            raise ValueError("a record read without its messages (messages=False) is never written back")
        out: dict[str, Any] = {}
        finished = self.error is None
        pairwise = self.task_type == PAIRWISE
        for name in _CORE:
            out[name] = getattr(self, name)
        for name in _FINISHED:
            value = getattr(self, name)
            if finished or value is not None:
                out[name] = value
        out["usage"] = dict(self.usage or {})
        out["llm_calls"] = self.llm_calls
        out["cached_calls"] = self.cached_calls
        out["transcript"] = [message.to_dict() for message in self.transcript]
        for name in _OPTIONAL:
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if pairwise:
            for name in _PAIRWISE:
                out[name] = getattr(self, name)
            for name in _PAIRWISE_FINISHED:
                if finished or getattr(self, name) is not None:
                    out[name] = getattr(self, name)
        for name in (*_PAIRWISE_OPTIONAL, *((name for name in _PAIRWISE) if not pairwise else ())):
            if getattr(self, name) is not None and name not in out:
                out[name] = getattr(self, name)
        if not pairwise and self.verdict_parse is not None:
            out["verdict_parse"] = self.verdict_parse
        for name in _LAST:
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    def replace(self, **changes: Any) -> Record:
        """A copy with ``changes`` (field names; unknown names go to ``extra``). ``transcript`` may be given as
        the stored entries (dicts, as a method's hooks change them) or as ``Message`` objects."""
        known = {key: value for key, value in changes.items() if key in _FIELDS}
        if "transcript" in known:
            known["transcript"] = tuple(
                Message.from_dict(entry) if isinstance(entry, Mapping) else entry for entry in known["transcript"]
            )
        unknown = {key: value for key, value in changes.items() if key not in _FIELDS}
        if unknown:
            known["extra"] = {**self.extra, **unknown}
        return dataclasses.replace(self, **known)

    # -- what readers ask ---------------------------------------------------------------------------------------

    @property
    def raw(self) -> dict[str, Any]:
        """The whole record as JSON (``to_json()``): ``details``, per-role ``usage``, pairwise orders."""
        return self.to_json()

    @property
    def ok(self) -> bool:
        """True when the item finished (it may still have no score: see ``parse_status``)."""
        return not self.error

    @property
    def judged(self) -> bool:
        """True when the record has a score or a verdict."""
        return self.score is not None or self.verdict is not None

    def get(self, name: str, default: Any = None) -> Any:
        """A field or an ``extra`` key by name (for code that reads a column named at run time)."""
        if name in _FIELDS:
            value = getattr(self, name)
            if name == "transcript":
                return [message.to_dict() for message in value]
            return default if value is None else value
        return self.extra.get(name, default)

    def row(self) -> dict[str, Any]:
        """The record's table row (``Run.to_pandas``): the ``TABLE_COLUMNS``, no transcript."""
        values = {
            **{name: self.get(name) for name in TABLE_COLUMNS if name in _FIELDS or name in self.extra},
            "item_id": self.key,
            "method": self.method,
            "score": as_float(self.score),
            "human_score": as_float(self.human_score),
            "prompt_tokens": self.prompt_tokens(),
            "completion_tokens": self.completion_tokens(),
        }
        return {name: values.get(name) for name in TABLE_COLUMNS}

    def systems_row(self) -> dict[str, Any]:
        """What a comparison of systems reads of the record (``analysis.systems``): no transcript."""
        return {name: self.get(name) for name in _SYSTEMS_ROW}

    def messages(self) -> Iterator[Message]:
        """The transcript's messages, in order."""
        return iter(self.transcript)

    def prompt_tokens(self) -> int:
        """Prompt tokens over every role."""
        return sum(int(u.get("prompt_tokens") or 0) for u in self.role_usage())

    def completion_tokens(self) -> int:
        """Completion tokens over every role."""
        return sum(int(u.get("completion_tokens") or 0) for u in self.role_usage())

    def cached_prompt_tokens(self) -> int:
        """Prompt tokens the providers served from their prompt caches, over every role (billed and batch
        calls; an answer of the run's response cache is no model call and counts none)."""
        names = ("billed_cached_prompt_tokens", "batch_cached_prompt_tokens")
        return sum(int(u.get(name) or 0) for u in self.role_usage() for name in names)

    def role_usage(self) -> list[Mapping[str, Any]]:
        """The usage entries of the roles (one mapping per role)."""
        return [u for u in (self.usage or {}).values() if isinstance(u, Mapping)]


def as_float(value: Any) -> float | None:
    """A number as a float (NaN and infinity kept; a whole number too large for a float is infinity), None for
    anything else (null, booleans, text)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _odd(entry: Any) -> Message:
    """A transcript entry that is not an object (a hand-edited file): kept as a message of its own text."""
    return Message(index=0, agent="", role="", content=str(entry), raw={"content": entry})


_FIELDS = {f.name for f in dataclasses.fields(Record)} - {"extra", "without_messages"}
_NO_USAGE: Mapping[str, Any] = {}  # the default usage, replaced by a record's own empty mapping
_DEFAULTS = {
    f.name: (_NO_USAGE if f.name == "usage" else f.default)
    for f in dataclasses.fields(Record)
    if f.name not in ("extra",)
}
