"""Fennec's confidence: the branches' agreement, the share of the k criteria branches whose score (or
preference) is the most common one among the branches."""

from __future__ import annotations

from debate_eval.debates.kit.confidence import Confidence, agreement, score_key
from debate_eval.debates.record import ResultRecord


def branches_confidence(record: ResultRecord) -> Confidence | None:
    """From ``details["tree"]``: each branch's parsed verdict (pairwise) or score."""
    tree = (record.details or {}).get("tree") or []
    votes = []
    for branch in tree:
        parsed = branch.get("verdict" if record.task_type == "pairwise" else "score") or {}
        if record.task_type == "pairwise":
            votes.append(parsed.get("value") if parsed.get("status") == "parsed" else None)
        else:
            votes.append(score_key(parsed.get("value")) if parsed.get("status") == "parsed" else None)
    return agreement(votes, "branches")
