"""Transcripts: the system of record of a debate.

Every message of every agent, in order, as AutoGen dumps it (``BaseChatMessage.dump()``: id, source,
content, models_usage, metadata, created_at), plus what this project adds: the agent's role, the
addressee and relay kind of Commander messages, whether the model call was answered from the cache, its
finish reason (``stop``, ``length`` ...) and how many secrets were masked in its answer, the answer format
the call was constrained to (``answer_format``: kind, mode, cap; absent for free answers), and, for scoring
agents, the parsed score and how it was parsed (pairwise: the parsed verdict, ``pairwise_transcript``); for the
Critic, whether the debate read its message as NO ISSUE (``agreed``, ``mark_agreement``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from typing import Any

from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage

from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import CRITIC_ROLE, role_of
from debate_eval.debates.evaluation import verdict_text
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial


def build_transcript(
    messages: Sequence[BaseAgentEvent | BaseChatMessage],
    calls: Sequence[CallRecord],
    parse: Callable[[BaseChatMessage], ParsedScore | None],
) -> list[dict[str, Any]]:
    """Transcript entries for the chat messages in ``messages`` (agent events are skipped).

    ``calls`` are matched to messages per role, in order, for messages that report model usage;
    ``parse`` returns the parsed score of a scoring agent's message (None for other messages).
    """
    pending: dict[str, list[CallRecord]] = defaultdict(list)
    for call in calls:
        pending[call.role].append(call)
    entries: list[dict[str, Any]] = []
    for message in messages:
        if not isinstance(message, BaseChatMessage):
            continue
        dumped = message.dump()
        role = role_of(message.source)
        entry: dict[str, Any] = {
            "index": len(entries),
            "agent": message.source,
            "role": role,
            "to": message.metadata.get("to"),
            "relay": message.metadata.get("relay"),
            "content": message.to_text(),
            "usage": dumped.get("models_usage"),
            "cached": None,
            "id": dumped.get("id"),
            "created_at": str(dumped.get("created_at")) if dumped.get("created_at") is not None else None,
            "type": dumped.get("type"),
        }
        if message.models_usage is not None and pending[role]:
            call = pending[role].pop(0)
            entry["cached"] = call.cached
            entry["finish_reason"] = call.finish_reason
            if call.redactions:
                entry["redactions"] = call.redactions  # secrets masked in the answer (agents.redaction)
            if entry["usage"] is not None and (call.cached_prompt_tokens or call.batch):
                entry["usage"] = {**entry["usage"], "cached_prompt_tokens": call.cached_prompt_tokens}
                entry["batch"] = call.batch
            if call.answer_format is not None:  # what the call was asked to write (--answer-format)
                entry["answer_format"] = call.answer_format
        parsed = parse(message)
        if parsed is not None:
            entry["score"] = parsed.to_dict()
        entries.append(entry)
    return entries


def pairwise_transcript(
    messages: Sequence[BaseAgentEvent | BaseChatMessage],
    calls: Sequence[CallRecord],
    judges: Collection[str],
    material: UntrustedMaterial,
    markers: frozenset[str],
) -> list[dict[str, Any]]:
    """Transcript entries (``build_transcript``); each message of an agent in ``judges`` carries its parsed
    ``verdict`` (``ParsedVerdict.to_dict()``), parsed as the run parses it."""
    transcript = build_transcript(messages, calls, lambda message: None)
    for entry in transcript:
        if entry["agent"] in judges:
            entry["verdict"] = verdict_text(str(entry["content"]), material, markers).to_dict()
    return transcript


def mark_agreement(transcript: list[dict[str, Any]], agrees: Callable[[str], bool]) -> list[dict[str, Any]]:
    """``transcript`` with each Critic message's ``agreed``: whether ``agrees`` (the debate's own rule, the one
    that ends it) reads it as NO ISSUE, so a transcript shows why a debate stopped or went on."""
    for entry in transcript:
        if entry["role"] == CRITIC_ROLE:
            entry["agreed"] = agrees(str(entry["content"]))
    return transcript
