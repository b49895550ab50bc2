"""ChatEval's confidence: the referees' agreement, the share of referees whose final score (or verdict) is the
panel's most common one (a referee without an answer counts as disagreeing)."""

from __future__ import annotations

from debate_eval.debates.kit.confidence import Confidence, agreement, score_key
from debate_eval.debates.record import ResultRecord


def referees_confidence(record: ResultRecord) -> Confidence | None:
    """From ``details["final_verdicts"]`` (pairwise) or ``details["final_scores"]``."""
    details = record.details or {}
    if record.task_type == "pairwise":
        finals = details.get("final_verdicts") or {}
        return agreement(finals.values(), "referees")
    finals = details.get("final_scores") or {}
    return agreement((score_key(value) for value in finals.values()), "referees")
