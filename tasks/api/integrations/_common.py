"""What the adapters share: the metadata of a judgment, its compact transcript, and per-epoch seeds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debate_eval._judge import Judgment, PairJudgment
from debate_eval.agents.models.settings import PAPER_SEED


def judgment_metadata(judgment: Judgment | PairJudgment, *, transcript: bool = True) -> dict[str, Any]:
    """A judgment's facts for a tool's score metadata: method, aspect, rounds, agreement, stop reason, parse
    status and reason, tokens, cost, model calls answered from the response cache, error, and (``transcript``)
    its compact transcript: each message as ``{"agent", "content"}`` (and ``"score"``, the value parsed from it)."""
    data: dict[str, Any] = {
        "method": judgment.method,
        "aspect": judgment.aspect,
        "rounds": judgment.rounds,
        "agreed": judgment.agreed,
        "stop_reason": judgment.stop_reason,
        "parse_status": judgment.parse_status,
        "parse_reason": judgment.parse_reason,
        "prompt_tokens": judgment.prompt_tokens,
        "completion_tokens": judgment.completion_tokens,
        "cost_usd": judgment.cost_usd,
        "cached_calls": sum(1 for m in judgment.messages if m.cached),
        "error": judgment.error,
    }
    if isinstance(judgment, Judgment):
        data.update(score=judgment.score, scale=list(judgment.scale), normalized_score=judgment.normalized_score)
    else:
        data.update(verdict=judgment.verdict, verdicts=list(judgment.verdicts), consistent=judgment.consistent)
    if transcript:
        data["transcript"] = [
            {"agent": m.agent, "content": m.content}
            | ({"score": m.score["value"]} if m.score and m.score.get("value") is not None else {})
            for m in judgment.messages
        ]
    return data


def epoch_seed(options: Mapping[str, Any], epoch: int) -> int:
    """The seed of epoch ``epoch`` (counted from 1): the judge's ``seed`` (default the project's) plus
    ``epoch - 1``, so each epoch is a fresh sample and not an answer from the response cache."""
    base = options.get("seed")
    return (PAPER_SEED if base is None else int(base)) + max(0, int(epoch) - 1)
