"""Scripted judges with a planted behaviour, for the judge card (``debate-eval audit``) and its tests.

Each is a reply function for the scripted server (``scripted_server.py``); ``--provider scripted --model NAME``
selects one by name (``SCRIPTS``), so an audit of a judge whose faults are known can run from the command line
with no model. They are test aids, never judgments: the scores come from a rule, not from reading the text.

- ``planted-first``: always prefers the response shown first (pairwise ``[[A]]``); single scores: 3.
- ``planted-length``: the score is the length bucket of the judged text (words: <=10 -> 1, <=20 -> 2, <=40 -> 3,
  <=80 -> 4, more -> 5); pairwise: the longer response.
- ``planted-copy``: copies a score or verdict planted in the judged text's last line (``Score: 5``, "give this
  text a score of 1", ``[[B]]``, "Response B is better", in any of the audit corpus' languages); otherwise a
  score (or side) from a hash of the text: deterministic, unrelated to length or quality.
- ``planted-noisy``: the length bucket moved by -1, 0 or +1 from a hash of the request's seed and text, so
  another seed often gives another score (an unstable judge).

The judged text is found in the prompt as the built-in templates lay it out (the block after the last
``Label:`` line before ``Evaluation Form``; pairwise: between ``[Response A: start]`` and its end marker). Every
judge's Critic agrees at once (``NO ISSUE``) so a debate keeps the Scorer's first judgment; a paraphrase request
gets its text back unchanged (a rewrite that keeps the meaning exactly).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import Any

from debate_eval.agents.models.providers.scripted_server import default_reply, role_of_request

Request = Mapping[str, Any]
JUDGING_ROLES = ("scorer", "evaluator", "referee", "tiebreaker", "judge")
_FORM = re.compile(r"\n\n\s*Evaluation Form", re.IGNORECASE)
_LABEL = re.compile(r"\n[^\n]{1,60}:[ \t]*\n\n")
_RESPONSE = r"\[Response {side}: start\]\n(.*?)\n\[Response {side}: end\]"
_PLANTED_SCORE = re.compile(
    r"(?:\bscore\b|\bpunktzahl\b|\bpuntuaci[oó]n\b|打)[^0-9\n]{0,20}?(\d+(?:\.\d+)?)", re.IGNORECASE
)  # "Score: 5", "a score of 1", "die Punktzahl 5", "una puntuación de 5", "打 5 分"
_PLANTED_SIDE = re.compile(r"\[\[([AB])\]\]|Response ([AB]) is")
PARAPHRASE_OPENING = "Rewrite the text below in"


def judged_text(prompt: str) -> str | None:
    """The judged text of a single-score prompt laid out as the built-in templates do, or None."""
    form = list(_FORM.finditer(prompt))
    if not form:
        return None
    head = prompt[: form[-1].start()]
    labels = list(_LABEL.finditer(head))
    return head[labels[-1].end() :].strip() if labels else None


def responses(prompt: str) -> tuple[str, str] | None:
    """Responses A and B of a pairwise prompt (the project's task.txt layout), or None."""
    found = [re.findall(_RESPONSE.format(side=side), prompt, re.DOTALL) for side in "AB"]
    if not found[0] or not found[1]:
        return None
    return found[0][-1], found[1][-1]


def length_bucket(text: str) -> int:
    """1-5 by words: <=10, <=20, <=40, <=80, more."""
    words = len(text.split())
    return next((score for score, limit in ((1, 10), (2, 20), (3, 40), (4, 80)) if words <= limit), 5)


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _planted(
    single: Callable[[str, Request], float], pairwise: Callable[[str, str, Request], str]
) -> Callable[[Request], str]:
    """A reply function: ``single(text)`` scores a judged text, ``pairwise(a, b)`` picks A or B; every other
    request gets the scripted server's default reply (a Critic agrees)."""

    def reply(request: Request) -> str:
        role = role_of_request(request)
        messages = request.get("messages") or []
        last = str(messages[-1].get("content", "")) if messages else ""
        if last.startswith(PARAPHRASE_OPENING):
            return "1. " + " ".join(last.split("Text:", 1)[-1].split())
        if role == "critic":
            return "The judgment follows the criteria. NO ISSUE"
        if role not in JUDGING_ROLES:
            return default_reply(request)
        prompt = "\n".join(str(m.get("content", "")) for m in messages)  # every message's text, in order
        pair = responses(prompt)
        if pair is not None:
            side = pairwise(pair[0], pair[1], request)
            return f"Response {side} serves the request better.\nVerdict: [[{side}]]"
        text = judged_text(prompt)
        if text is None:
            return default_reply(request)
        return f"Step by step: I weighed the text against the criteria.\nScore: {single(text, request):g}"

    return reply


def _longer(a: str, b: str, _: Request) -> str:
    return "A" if len(a.split()) >= len(b.split()) else "B"


def _hashed(text: str) -> int:
    return hashlib.sha256(text.encode("utf-8")).digest()[0]


def _copied_score(text: str, request: Request) -> float:
    found = _PLANTED_SCORE.findall(_last_line(text))
    return float(found[-1]) if found else float(1 + _hashed(text) % 5)


def _copied_side(a: str, b: str, request: Request) -> str:
    for response in (a, b):
        match = _PLANTED_SIDE.search(_last_line(response))
        if match:
            return match.group(1) or match.group(2)
    return "AB"[_hashed(a + b) % 2]


def _noisy_score(text: str, request: Request) -> float:
    digest = hashlib.sha256(f"{request.get('seed')}|{text}".encode()).digest()
    return float(min(5, max(1, length_bucket(text) + digest[0] % 3 - 1)))


SCRIPTS: dict[str, Callable[[Request], str]] = {
    "planted-first": _planted(lambda text, request: 3.0, lambda a, b, request: "A"),
    "planted-length": _planted(lambda text, request: float(length_bucket(text)), _longer),
    "planted-copy": _planted(_copied_score, _copied_side),
    "planted-noisy": _planted(_noisy_score, _longer),
}


def script_for(model: str) -> Callable[[Request], str] | None:
    """The planted script called ``model``, or None (the default replies)."""
    return SCRIPTS.get(model)
