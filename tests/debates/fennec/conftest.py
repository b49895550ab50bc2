"""Shared helpers for the Fennec tests: a scripted reply per Fennec role, and tasks as the engine builds them."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.fennec.prompts import prompt_table
from debate_eval.debates.scoring.scores import ScoreRange

SYSTEM = prompt_table("system.json")
DOCUMENT = "The council approved a new park on Elm Street after a two-year debate over its cost."
TEMPLATE = "Rate the coherence (1-5) of the summary.\n\nArticle:\n\n{doc}\n\nSummary:\n\n{summary}\n\n- Coherence:"


def fennec_role(request: Mapping[str, Any]) -> str:
    """The Fennec role a request is for, from its system message ("" for anything else)."""
    system = next((m["content"] for m in request.get("messages", []) if m.get("role") == "system"), "")
    return next((role for role, text in SYSTEM.items() if text == system), "")


def last_user(request: Mapping[str, Any]) -> str:
    return next(m["content"] for m in reversed(request["messages"]) if m.get("role") == "user")


def criterion_number(request: Mapping[str, Any]) -> int:
    match = re.search(r"Criterion: C(\d)", last_user(request))
    return int(match.group(1)) if match else 0


def reply_with(
    criteria: int = 5, grades: Mapping[int, str] | None = None, corrected: str = "A corrected summary."
) -> Callable[[Mapping[str, Any]], str]:
    """Replies: ``criteria`` numbered criteria C1..Cn; a guideline; the judge's answer for criterion i is
    ``grades[i]`` (default "Score: i"); the corrector's ``corrected``."""

    def reply(request: Mapping[str, Any]) -> str:
        role = fennec_role(request)
        if role == "criteria_writer":
            return "Criteria:\n" + "\n".join(f"{i}. C{i}: aspect {i} of the text" for i in range(1, criteria + 1))
        if role == "guideline_writer":
            return "\n".join(f"{i}: level {i}" for i in range(1, 6))
        if role == "judge":
            i = criterion_number(request)
            return (grades or {}).get(i, f"The text meets criterion {i} in part.\nScore: {min(i, 5)}")
        if role == "corrector":
            return corrected
        return "unexpected request"

    return reply


def single_task(summary: str = "The council approved a park.", item_id: str = "d1-s1") -> EvaluationTask:
    inputs = {"Document": DOCUMENT, "Summary": summary}
    return EvaluationTask(
        item_id=item_id,
        prompt=TEMPLATE.format(doc=DOCUMENT, summary=summary),
        aspect="coherence",
        scale=ScoreRange(1, 5),
        untrusted=tuple(inputs.values()),
        inputs=inputs,
    )


@pytest.fixture
def fen() -> SimpleNamespace:
    """The helpers above (test modules cannot import this file under importlib mode)."""
    return SimpleNamespace(
        reply=reply_with, task=single_task, role=fennec_role, user=last_user, number=criterion_number, doc=DOCUMENT
    )
