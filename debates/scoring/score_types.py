"""The parser's result types: the scale a score must lie on, and the outcome of parsing one message."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class ScoreRange:
    """The closed interval of valid scores for an aspect, e.g. 1-5 or 0-1."""

    low: float
    high: float

    def contains(self, value: float) -> bool:
        """True when ``value`` lies inside the interval (ends included)."""
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.low:g}-{self.high:g}"


STATUSES = ("parsed", "no_score", "out_of_range")


@dataclass(frozen=True)
class ParseOutcome:
    """What parsing one message found (a score, a verdict): a value exactly when ``status`` is ``parsed``,
    the rule that produced it, and a reason. A subclass names its ``statuses``."""

    statuses: ClassVar[tuple[str, ...]] = ()

    value: Any  # None unless status == "parsed"
    status: str
    method: str  # the rule that produced it, or "none"
    reason: str  # one short sentence: the matched text, or why nothing was found

    def __post_init__(self) -> None:
        if self.status not in self.statuses:
            raise ValueError(f"unknown status {self.status!r}")
        self.check_value()
        if (self.value is not None) != (self.status == "parsed"):
            raise ValueError("value must be set exactly when status is 'parsed'")

    def check_value(self) -> None:
        """Raise ``ValueError`` for a value of the wrong kind (a subclass's check; none here)."""

    @property
    def ok(self) -> bool:
        """True when a value was found (a score on the scale, a verdict)."""
        return self.status == "parsed"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form: ``{"value", "status", "method", "reason"}``."""
        return {"value": self.value, "status": self.status, "method": self.method, "reason": self.reason}


@dataclass(frozen=True)
class ParsedScore(ParseOutcome):
    """The outcome of parsing one message: a value on the scale, or why there is none."""

    statuses: ClassVar[tuple[str, ...]] = STATUSES

    value: float | None  # None unless status == "parsed"
    status: str  # "parsed" | "no_score" | "out_of_range"
    # Where the chosen number (digits or number word) lies in the parsed text: ``text[start:end]``. None
    # when no single number was chosen (no score, a per-turn average). Not part of equality or ``to_dict``.
    span: tuple[int, int] | None = field(default=None, compare=False)


def quote(text: str, limit: int = 80) -> str:
    """``text`` on one line, shortened, in single quotes for a reason sentence."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def checked(
    value: float, method: str, matched: str, scale: ScoreRange, span: tuple[int, int] | None = None
) -> ParsedScore:
    """The range check: ``parsed`` inside the scale, ``out_of_range`` (never clamped) outside."""
    if scale.contains(value):
        return ParsedScore(value, "parsed", method, f"Matched {quote(matched)} ({method}).", span)
    return ParsedScore(
        None,
        "out_of_range",
        method,
        f"{value:g} from {quote(matched)} is out of range (outside the {scale} scale).",
        span,
    )
