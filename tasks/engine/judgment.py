"""What a ``Judge`` returns: ``Judgment`` (one output scored) and ``PairJudgment`` (one pair compared), views of
THE record (``engine/record.py``) built by ``Judgment.of`` / ``PairJudgment.of``. The fields both share are
declared once, in ``JudgedItem``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from debate_eval.tasks.engine.record import Message, Record


@dataclass(frozen=True, kw_only=True)
class JudgedItem:
    """What every judgment says: its ``id``, ``method`` and ``aspect``; how its answer was read
    (``parse_status``, ``parse_method``, ``parse_reason``); the deciding ``rationale`` (the text of the answer
    the score or verdict was read from), the debate's ``rounds``, whether the Critic ``agreed`` and why it
    stopped; every message, the tokens and the estimated cost (None without a price), ``error`` when the call
    failed, and ``confidence``: how sure the score or verdict is, in [0, 1] (None when the method gives none)."""

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
    # how sure the score or verdict is, in [0, 1], as the method derives it (how: the method's docs page; None
    # when it gives none); with swap, 0 when the two orders disagree
    confidence: float | None = None

    @staticmethod
    def shared(
        record: Record, config: Any, prompt_tokens: int, completion_tokens: int, cost_usd: float | None
    ) -> dict[str, Any]:
        """The shared fields of ``record``'s judgment under ``config`` (its method and aspect), with its
        tokens and cost as the judge counted them."""
        transcript = record.transcript
        decider = [m for m in transcript if m.agent == record.decided_by] or transcript
        agreed = record.agreed
        return {
            "id": record.key,
            "method": str(config.protocol),
            "aspect": str(config.aspect),
            "parse_status": record.parse_status,
            "parse_method": record.parse_method,
            "parse_reason": record.parse_reason,
            "rationale": decider[-1].content if decider else None,
            "rounds": int(record.rounds or 0),
            "agreed": agreed if isinstance(agreed, bool) else None,
            "stop_reason": record.stop_reason,
            "messages": tuple(transcript),
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "cost_usd": cost_usd,
            "error": record.error,
            "confidence": record.confidence,
        }


@dataclass(frozen=True, kw_only=True)
class Judgment(JudgedItem):
    """One output judged: ``score`` on ``scale`` (None when no score could be read: see ``parse_status``
    and ``parse_reason``), ``normalized_score`` on [0, 1], the deciding ``rationale`` (the text of the answer
    the score was read from), the debate's ``rounds`` and whether the Critic ``agreed``, every message, the
    tokens and the estimated cost (None without a price), and ``error`` when the call failed. ``system``:
    the system that wrote the output, as given (with ``record_to``, the run's per-system comparison uses it).
    ``confidence``: how sure the score is, in [0, 1], as the method derives it (None when it gives none)."""

    score: float | None
    scale: tuple[float, float]
    normalized_score: float | None
    system: str | None = None

    @property
    def ok(self) -> bool:
        """True when the call finished and a score was read."""
        return self.error is None and self.score is not None

    @classmethod
    def of(
        cls, record: Record, config: Any, prompt_tokens: int, completion_tokens: int, cost_usd: float | None
    ) -> Judgment:
        """The judgment of ``record`` on ``config``'s scale."""
        low, high = float(config.template.scale.low), float(config.template.scale.high)
        value = record.score
        score = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
        normalized = None
        if score is not None and high > low:
            normalized = min(1.0, max(0.0, (score - low) / (high - low)))
        return cls(
            score=score,
            scale=(low, high),
            normalized_score=normalized,
            system=record.system_id or None,
            **cls.shared(record, config, prompt_tokens, completion_tokens, cost_usd),
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
    def of(
        cls, record: Record, config: Any, prompt_tokens: int, completion_tokens: int, cost_usd: float | None
    ) -> PairJudgment:
        """The judgment of the pair ``record`` holds."""
        verdict = record.verdict
        verdicts = record.verdicts  # with swap: {"original": ..., "swapped": ...} (mapped back)
        orders: Sequence[Any] = tuple(verdicts.values()) if isinstance(verdicts, Mapping) else (verdict,)
        consistent = record.consistent
        return cls(
            verdict=verdict,
            verdicts=tuple(orders),
            consistent=consistent if isinstance(consistent, bool) else None,
            **cls.shared(record, config, prompt_tokens, completion_tokens, cost_usd),
        )
