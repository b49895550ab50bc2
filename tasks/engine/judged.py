"""The record of one judged item: what a method's ``Outcome`` (or its failure) becomes (``make_record``), and
the mark of an answer cut at the token limit (``flag_truncated``, which re-reading applies too)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.debates.base import get_method
from debate_eval.debates.evaluation import Outcome
from debate_eval.debates.kit.confidence import with_confidence
from debate_eval.debates.scoring import PARSER_VERSION
from debate_eval.tasks.data.registry import Item
from debate_eval.tasks.engine.accounting import calls_usage, item_usage, usage_calls
from debate_eval.tasks.engine.pairwise import PAIRWISE, pairwise_fields
from debate_eval.tasks.engine.record import METHOD_FIELDS, Message, Record
from debate_eval.tasks.engine.run_config import RunConfig

# the outcome's fields the record holds under the same names
OUTCOME_FIELDS = ("score", "reasked", "agreed", "rounds", "stop_reason", "decided_by", "details")


def make_record(
    item: Item,
    config: RunConfig,
    outcome: Outcome | None,
    error: str | None,
    elapsed_s: float,
    calls: Sequence[CallRecord] = (),
    *,
    config_hash: str | None = None,
) -> Record:
    """The result record of one item (``calls``: what a failed item spent before it failed; ``config_hash``:
    ``config.config_hash()`` when the caller has it already, as the runner has for every item of a run)."""
    core: dict[str, Any] = {
        "item_id": item.item_id,
        "dataset": config.dataset,
        "aspect": config.aspect,
        "method": config.protocol,
        "group_id": item.group_id,
        "system_id": item.system_id,
        "human_score": item.human_scores.get(config.aspect),
        "config_hash": config_hash or config.config_hash(),
        "elapsed_s": round(elapsed_s, 3),
        "error": error,
        "parser_version": PARSER_VERSION,
    }
    if outcome is None:
        usage = calls_usage(calls)
        llm_calls, cached_calls = usage_calls(usage)
        failed = Record(
            **core, parse_status="error", usage=usage, llm_calls=llm_calls, cached_calls=cached_calls, transcript=()
        )
        return _with_pairwise(failed, item, None)
    usage = item_usage(outcome.transcript)
    llm_calls, cached_calls = usage_calls(usage)
    redactions = sum(int(entry.get("redactions") or 0) for entry in outcome.transcript)
    record = Record(
        **core,
        **{name: getattr(outcome, name) for name in OUTCOME_FIELDS},
        parse_status=outcome.parse.status,
        parse_method=outcome.parse.method,
        parse_reason=outcome.parse.reason,
        usage=usage,
        llm_calls=llm_calls,
        cached_calls=cached_calls,
        transcript=tuple(Message.from_dict(entry) for entry in outcome.transcript),
        redactions=redactions or None,  # secrets masked in the answers (agents.redaction)
        **{name: outcome.details.get(name) for name in METHOD_FIELDS},  # what the method filled itself
    )
    record = flag_truncated(_with_pairwise(record, item, outcome))
    return with_confidence(get_method(config.protocol), record)  # how sure: the method's, and --swap's check


def flag_truncated(record: Record) -> Record:
    """A record without a score or verdict whose deciding answer was cut at the token limit
    (``finish_reason: length``): ``truncated: true``, and its parse reason says so and what to do."""
    if record.judged:
        return record
    decider = [m for m in record.transcript if m.raw.get("agent") == record.decided_by]
    if not decider or decider[-1].raw.get("finish_reason") != "length":
        return record
    reason = record.parse_reason or "No score."
    return record.replace(
        truncated=True,
        parse_reason=f"{reason} The answer was cut off at the token limit (finish_reason=length): raise --max-tokens.",
    )


def _with_pairwise(record: Record, item: Item, outcome: Outcome | None) -> Record:
    """A pairwise item's record with its verdict, human label and both orders (``engine.pairwise``)."""
    if getattr(item, "task_type", "single") != PAIRWISE:
        return record
    fields = pairwise_fields(getattr(item, "human_label", None), item.inputs, outcome)
    pair = getattr(item, "system_pair", None)
    if pair:  # the systems of output_a and output_b (their win rates: analysis.systems)
        fields.update(system_a=pair[0], system_b=pair[1])
    return record.replace(**fields)
