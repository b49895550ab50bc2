"""Self-consistency's confidence: the share of the K samples that gave the most common score or verdict (an
unparsed sample counts as disagreeing)."""

from __future__ import annotations

from debate_eval.debates.kit.confidence import Confidence, agreement, score_key
from debate_eval.debates.record import ResultRecord


def samples_confidence(record: ResultRecord) -> Confidence | None:
    """From ``details["sample_results"]``: each sample's verdict (pairwise) or parsed answer."""
    results = (record.details or {}).get("sample_results") or []
    if record.task_type == "pairwise":
        return agreement((r.get("verdict") for r in results), "samples")
    votes = []
    for result in results:
        parse = result.get("parse") or {}
        votes.append(score_key(parse.get("value")) if parse.get("status") == "parsed" else None)
    return agreement(votes, "samples")
