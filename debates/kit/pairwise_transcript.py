"""Transcripts of pairwise evaluations: the usual entries, with the parsed verdict of every judging agent."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage

from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.debates.evaluation import verdict_text
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.scoring.untrusted import UntrustedMaterial


def pairwise_transcript(
    messages: Sequence[BaseAgentEvent | BaseChatMessage],
    calls: Sequence[CallRecord],
    judges: Collection[str],
    material: UntrustedMaterial,
    markers: frozenset[str],
) -> list[dict[str, Any]]:
    """Transcript entries (``transcript.build_transcript``); each message of an agent in ``judges`` carries
    its parsed ``verdict`` (``ParsedVerdict.to_dict()``), parsed as the run parses it."""
    transcript = build_transcript(messages, calls, lambda message: None)
    for entry in transcript:
        if entry["agent"] in judges:
            entry["verdict"] = verdict_text(str(entry["content"]), material, markers).to_dict()
    return transcript
