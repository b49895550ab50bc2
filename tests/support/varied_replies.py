"""Scripted runs to look at: varied, deterministic replies for the scripted server, so a report of a
scripted run has scores that differ, Scorers that move and Critics that sometimes agree.

A test and demo aid, never a model: the scores are a hash of the request, unrelated to the text's quality.
The scripted runs that use it are ``demo_runs.py`` beside this module (the report tests and
``scripts/demos/report_demo.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from debate_eval.agents.models.providers.scripted_server import (
    DEFAULT_REPLIES,
    role_of_request,
)


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def _verdict(a: int, b: int) -> str:
    return "[[A]]" if a > b else "[[B]]" if b > a else "[[C]]"


def varied_reply(request: Mapping[str, Any]) -> str:
    """A reply whose score depends on the judged item and the round (deterministic)."""
    messages = list(request.get("messages") or [])
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    first = users[0] if users else ""
    seed = _hash(first)
    base = 1 + seed % 5
    answers = sum(1 for m in messages if m.get("role") == "assistant")
    role = role_of_request(request)
    if role == "judge":  # Fennec: one criterion's judgment, varying with the item and the criterion
        last = str(messages[-1].get("content", "")) if messages else ""
        mark = _hash(last)
        if "Score A:" in last:
            a, b = 1 + mark % 5, 1 + (mark >> 4) % 5
            return f"Under this criterion the two differ.\nScore A: {a}\nScore B: {b}\nVerdict: {_verdict(a, b)}"
        return f"Under this criterion the text is uneven.\nScore: {1 + mark % 5}"
    if role in ("criteria_writer", "guideline_writer", "corrector"):
        return DEFAULT_REPLIES[role]
    if "[[A]]" in first and role in ("scorer", "evaluator", "referee", "tiebreaker"):
        # A pairwise prompt: a verdict that depends on the item and on the order of the two responses.
        return f"Response {'AB'[seed % 2]} answers more of the question.\n{('[[A]]', '[[B]]', '[[C]]')[seed % 3]}"
    if role == "scorer":
        drift = [0, -1, 1, 0][(seed >> 3) % 4] * answers
        score = min(5, max(1, base + drift))
        return f"Step by step: the sentences connect in places, less so elsewhere.\nScore: {score}"
    if role == "critic":
        if (seed >> 5) % 3 == 0:
            return "The rationale is sound and the score fits the text. NO ISSUE"
        return "The score overlooks abrupt topic shifts; it should be reconsidered."
    if role == "evaluator":
        return str(1 + (seed >> 7) % 5)
    if role == "referee":
        return f"The text mostly holds together.\nScore: {1 + (seed + answers + _hash(str(messages[0])) % 2) % 5}"
    if role == "tiebreaker":
        return f"Having read the debate, the final score is {base}."
    if role == "summarizer":
        return "The referees disagreed on the transitions; their scores were close."
    return "Please think step by step."
