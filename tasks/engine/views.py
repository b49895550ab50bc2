"""The views of THE record (``record.py``), built here from a :class:`Record`: ``ScoreRow`` (what the
meta-evaluation reads), the report's ``Item`` (what its figures read), ``Judgment`` and ``PairJudgment`` (what
a ``Judge`` returns). Each field the views share is read of the record in one place: the rows' fields in
``RecordRow.of``, the judgments' in ``JudgedItem.shared``, and a value a view takes only when it is usable
through :func:`finite` or :func:`flag`. A method's own extras stay in the record's ``details``.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from debate_eval.tasks.engine.record import PAIRWISE, Keyed, Message, Record, as_float

Usage = tuple[int, int, "float | None"]  # a judgment's prompt tokens, completion tokens and estimated cost
Row = TypeVar("Row", bound="RecordRow")


def finite(value: Any) -> float | None:
    """A finite float, or None (null, NaN, infinity, booleans, text)."""
    number = as_float(value)
    return number if number is not None and math.isfinite(number) else None


def flag(value: Any) -> bool | None:
    """``value`` when it is a boolean, else None."""
    return value if isinstance(value, bool) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordRow(Keyed):
    """The fields of a record that its light views read, declared and read once (``of``): the
    meta-evaluation's row (``ScoreRow``) and the report's item (``Item``) add their own. No transcript,
    ``details`` or ``usage``: a large run is held as these (a few hundred bytes each). The names are the
    record's (``imported``: the record came from ``debate-eval import``)."""

    item_id: str | int
    dataset: str
    aspect: str
    method: str
    group_id: str | None = None
    system_id: str | None = None
    human_score: float | None = None
    score: float | None = None
    score_normalized: float | None = None
    parse_status: str | None = None
    error: str | None = None
    config_hash: str | None = None
    task_type: str | None = None
    verdict: str | None = None
    human_label: str | None = None
    consistent: bool | None = None
    system_a: str | None = None
    system_b: str | None = None
    imported: bool = False
    parser_version: int | None = None  # the parser version that read it (a mix is warned of: engine/reread.py)

    @classmethod
    def of(cls: type[Row], record: Record) -> Row:
        """The view of a record: its ``RecordRow`` fields as the record holds them (the names every row
        repeats interned: one string per dataset), then the view's own (``own``)."""
        values = {name: getattr(record, name) for name in _AS_STORED}
        values["dataset"], values["aspect"], values["method"] = (
            sys.intern(str(value)) for value in (record.dataset, record.aspect, record.method)
        )
        values["imported"] = bool(record.extra.get("imported"))
        return cls(**(values | cls.own(record)))

    @staticmethod
    def own(record: Record) -> dict[str, Any]:
        """The view's own fields of ``record`` (and any ``RecordRow`` field it reads its own way)."""
        return {}


#: the names of ``RecordRow``'s fields, in order
ROW_FIELDS = tuple(f.name for f in dataclasses.fields(RecordRow))
_AS_STORED = tuple(name for name in ROW_FIELDS if name not in ("dataset", "aspect", "method", "imported"))


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreRow(RecordRow):
    """What the meta-evaluation reads of one result record: the item, its group and systems, the judge's
    score or verdict, the human's rating and whether the item finished (``RecordRow``), and ``verdicts``."""

    #: a ``--swap`` record's verdict of each order, the swapped one put back: (original, swapped)
    verdicts: tuple[str | None, str | None] | None = None

    @staticmethod
    def own(record: Record) -> dict[str, Any]:
        """``verdicts``: ``(original, swapped)`` (verdict strings or None), None without both orders."""
        verdicts = record.verdicts
        if not isinstance(verdicts, Mapping) or not {"original", "swapped"} <= set(verdicts):
            return {}
        orders = (verdicts["original"], verdicts["swapped"])
        return {"verdicts": tuple(value if isinstance(value, str) else None for value in orders)}


def is_pairwise(record: Record | RecordRow) -> bool:
    """Whether the record is a pairwise comparison (its task type says so, or it has a verdict or human label
    without a task type)."""
    return record.task_type == PAIRWISE or (
        record.task_type is None and (record.verdict is not None or record.human_label is not None)
    )


def has_critic(record: Record) -> bool:
    """Whether the record's transcript holds a Critic's turn (a Scorer-Critic debate, whatever the method's name)."""
    return any(message.role == "critic" for message in record.transcript)


def scorer_scores(record: Record) -> tuple[float | None, ...]:
    """The Scorer's parsed score in each of its answers, in order (None where an answer had none).

    A re-ask answer replaces the answer it re-asked for, so there is one value per round.
    """
    values: list[float | None] = []
    reasking = False  # the Commander's last relay asked the Scorer again for its score alone
    for message in record.transcript:
        if message.role == "commander":
            reasking = message.raw.get("relay") == "reask"
        if message.role != "scorer":
            continue
        score = message.score if isinstance(message.score, Mapping) else {}
        value = finite(score.get("value"))
        if reasking and values:
            values[-1] = value if value is not None else values[-1]
        else:
            values.append(value)
        reasking = False
    return tuple(values)


@dataclass(frozen=True, slots=True, kw_only=True)
class Item(RecordRow):
    """What the report's figures and item table read of one record (no transcript, details or texts): the
    ``RecordRow`` fields, its numbers only when finite, and these."""

    orders: tuple[str | None, str | None] | None  # --swap: the verdicts of both orders (mapped back)
    agreed: bool | None
    rounds: float | None
    stop_reason: str | None
    tokens: int
    llm_calls: int
    cached_calls: int
    has_inputs: bool
    scorer: tuple[float | None, ...] | None  # the Scorer's score per round, when a Critic took part
    confidence: float | None = None  # how sure the judgment is, in [0, 1]

    @staticmethod
    def own(record: Record) -> dict[str, Any]:
        """The item's fields beyond ``RecordRow``, and its numbers and flags read only when usable."""
        verdicts = record.verdicts if isinstance(record.verdicts, Mapping) else {}
        pairwise = is_pairwise(record)
        return {
            **{name: finite(getattr(record, name)) for name in ("score", "human_score", "score_normalized")},
            "task_type": record.task_type if record.task_type is not None or not pairwise else PAIRWISE,
            "consistent": flag(record.consistent),
            "orders": (verdicts.get("original"), verdicts["swapped"]) if "swapped" in verdicts else None,
            "agreed": flag(record.agreed),
            "rounds": finite(record.rounds),
            "stop_reason": record.stop_reason,
            "tokens": record.prompt_tokens() + record.completion_tokens() if isinstance(record.usage, Mapping) else 0,
            "llm_calls": int(finite(record.llm_calls) or 0),
            "cached_calls": int(finite(record.cached_calls) or 0),
            "has_inputs": bool(record.inputs),
            "scorer": scorer_scores(record) if not pairwise and has_critic(record) else None,
            "confidence": finite(record.confidence),
        }

    def score_row(self) -> ScoreRow:
        """What the meta-evaluation reads of the item (``ScoreRow``): its record fields."""
        return ScoreRow(**{name: getattr(self, name) for name in ROW_FIELDS})


@dataclass(frozen=True, kw_only=True)
class JudgedItem:
    """What every judgment says: its ``id``, ``method`` and ``aspect``; how its answer was read
    (``parse_status``, ``parse_method``, ``parse_reason``); the deciding ``rationale`` (the text of the answer
    the score or verdict was read from), the debate's ``rounds``, whether the Critic ``agreed`` and why it
    stopped; every message, the tokens and the estimated cost (None without a price), ``error`` when the call
    failed, and ``confidence``: how sure the score or verdict is, in [0, 1], as the method derives it (how: the
    method's docs page; None when it gives none; with swap, 0 when the two orders disagree)."""

    id: str
    method: str
    aspect: str
    parse_status: str | None
    parse_method: str | None
    parse_reason: str | None
    rationale: str | None
    rounds: int
    agreed: bool | None
    stop_reason: str | None
    messages: tuple[Message, ...]
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    error: str | None
    confidence: float | None = None

    @staticmethod
    def shared(record: Record, config: Any, usage: Usage) -> dict[str, Any]:
        """The shared fields of ``record``'s judgment under ``config`` (its method and aspect), with its
        tokens and cost as the judge counted them (``usage``)."""
        transcript = record.transcript
        decider = [m for m in transcript if m.agent == record.decided_by] or transcript
        return {
            **{name: getattr(record, name) for name in _JUDGED_AS_STORED},
            "id": record.key,
            "method": str(config.protocol),
            "aspect": str(config.aspect),
            "rationale": decider[-1].content if decider else None,
            "rounds": int(record.rounds or 0),
            "agreed": flag(record.agreed),
            "messages": tuple(transcript),
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "cost_usd": usage[2],
        }


# the judgments' fields read as the record holds them
_JUDGED_AS_STORED = ("parse_status", "parse_method", "parse_reason", "stop_reason", "error", "confidence")


@dataclass(frozen=True, kw_only=True)
class Judgment(JudgedItem):
    """One output judged: ``score`` on ``scale`` (None when no score could be read: see ``parse_status``
    and ``parse_reason``), ``normalized_score`` on [0, 1], and ``system``: the system that wrote the output, as
    given (with ``record_to``, the run's per-system comparison uses it); the rest as every judgment
    (``JudgedItem``: the deciding ``rationale``, ``rounds``, messages, tokens, cost, ``error``, ``confidence``)."""

    score: float | None
    scale: tuple[float, float]
    normalized_score: float | None
    system: str | None = None

    @property
    def ok(self) -> bool:
        """True when the call finished and a score was read."""
        return self.error is None and self.score is not None

    @classmethod
    def of(cls, record: Record, config: Any, usage: Usage) -> Judgment:
        """The judgment of ``record`` on ``config``'s scale."""
        low, high = float(config.template.scale.low), float(config.template.scale.high)
        score = as_float(record.score)
        normalized = None
        if score is not None and high > low:
            normalized = min(1.0, max(0.0, (score - low) / (high - low)))
        return cls(
            score=score,
            scale=(low, high),
            normalized_score=normalized,
            system=record.system_id or None,
            **cls.shared(record, config, usage),
        )


@dataclass(frozen=True, kw_only=True)
class PairJudgment(JudgedItem):
    """One pair judged: ``verdict`` ``first`` / ``second`` / ``tie`` (None when none could be read), with
    ``swap`` the verdict of each order (``verdicts``: the original order's, then the swapped order's mapped
    back) and whether they agree (``consistent``); the rest as ``Judgment``."""

    verdict: str | None
    verdicts: tuple[str | None, ...]
    consistent: bool | None

    @property
    def ok(self) -> bool:
        """True when the call finished and a verdict was read."""
        return self.error is None and self.verdict is not None

    @classmethod
    def of(cls, record: Record, config: Any, usage: Usage) -> PairJudgment:
        """The judgment of the pair ``record`` holds."""
        verdicts = record.verdicts  # with swap: {"original": ..., "swapped": ...} (mapped back)
        return cls(
            verdict=record.verdict,
            verdicts=tuple(verdicts.values()) if isinstance(verdicts, Mapping) else (record.verdict,),
            consistent=flag(record.consistent),
            **cls.shared(record, config, usage),
        )
