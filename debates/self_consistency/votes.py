"""What one sample brings to self-consistency's combination: its parsed answer, read back from what its base
method recorded, and its vote (a run and ``rescore`` both combine these)."""

from __future__ import annotations

from debate_eval.debates.kit.combine import MAJORITY
from debate_eval.debates.scoring.scores import ParsedScore


def answer_reading(answer: float | None, status: str, method: str, reason: str) -> ParsedScore:
    """One sample's parsed answer, from what its base method's record says (``answer``: ``answer_value``, the
    value its answer parsed to, before any weighting) and how it was parsed; no value unless it was parsed."""
    if status == "parsed" and answer is not None:
        return ParsedScore(float(answer), status, method, reason)
    return ParsedScore(None, status if status != "parsed" else "no_score", method, reason)


def sample_vote(score: float | None, answer: ParsedScore, combine: str) -> ParsedScore:
    """What one sample brings to the combination (a run and ``rescore`` both combine these): for ``majority``
    its parsed answer (``answer``: a G-Eval sample's parsed integer, never its probability-weighted score, so
    the samples vote on the answers they gave); for ``mean`` its ``score`` as its base method gives it (a
    G-Eval sample's probability-weighted score when it was weighted). No score unless its answer was parsed."""
    if combine == MAJORITY or not answer.ok:
        return answer
    if score is None:
        return ParsedScore(None, "no_score", answer.method, answer.reason)
    return ParsedScore(float(score), answer.status, answer.method, answer.reason)
