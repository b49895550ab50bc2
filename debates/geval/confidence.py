"""G-Eval's confidence: with log-probabilities, the probability of the most likely score token (the weights of
the probability-weighted score); with K samples, the share of samples that gave the most common score; one
answer without log-probabilities gives none."""

from __future__ import annotations

from debate_eval.debates.kit.confidence import Confidence, agreement, answer_scores
from debate_eval.debates.record import ResultRecord

LOGPROB_WEIGHTED, SAMPLE_MEAN = "logprob_weighted", "sample_mean"


def geval_confidence(record: ResultRecord) -> Confidence | None:
    """From ``details`` (the weighting's probabilities) or the transcript (the samples' parsed answers)."""
    details = record.details or {}
    how = details.get("method")
    if how == LOGPROB_WEIGHTED:
        probabilities = details.get("probabilities") or {}
        values = [float(p) for p in probabilities.values() if isinstance(p, int | float)]
        if not values:
            return None
        total = sum(values) or 1.0
        top = max(values) / total
        return Confidence(min(1.0, top), f"the likeliest score token has probability {top:.2f}")
    if how == SAMPLE_MEAN:
        return agreement(answer_scores(record, record.decided_by), "samples")
    return None
