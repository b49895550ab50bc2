"""DEBATE's confidence: the debate's course. The Critic's agreement at its first turn is the surest (1); agreement
after r Critic turns gives 1/r (each objection the Scorer had to answer halves, thirds... it); a debate that
ended without the Critic's agreement (the n-th score stands, or the Tie-breaker decided) gives 0."""

from __future__ import annotations

from debate_eval.debates.kit.confidence import Confidence
from debate_eval.debates.record import ResultRecord

TIEBREAKER_STOP = "tiebreaker"


def debate_confidence(record: ResultRecord) -> Confidence | None:
    """From ``agreed``, ``rounds`` and ``stop_reason``; ``None`` for a debate without a Critic turn."""
    rounds = record.rounds or 0
    if rounds < 1 or record.agreed is None:
        return None
    if record.agreed:
        at = "at once" if rounds == 1 else f"after {rounds} Critic turns"
        return Confidence(1.0 / rounds, f"the Critic agreed {at}")
    if record.stop_reason == TIEBREAKER_STOP:
        return Confidence(0.0, f"the Critic objected in all {rounds} rounds; the Tie-breaker decided")
    return Confidence(0.0, f"the Critic objected in all {rounds} rounds")
