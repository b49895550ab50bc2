"""Structured answers (``--structured-output``): a JSON object ``{"rationale": ..., "score": N}`` or
``{"rationale": ..., "verdict": "A" | "B" | "C"}``, read strictly.

The whole answer must be one JSON object (a Markdown code fence around it is allowed, as some models add
one), its ``score`` a JSON number (not a string, not a boolean) and its ``verdict`` one of ``A``, ``B``, ``C``
(C is a tie). Anything else is not a structured answer: these functions return None and the free-text
parser reads the answer as any other (the fallback). A structured score is still checked against the
scale (``out_of_range`` outside it, never clamped). The parse method is ``structured``.

The judged texts cannot set the value: only the answer's own top-level field counts, read after the
copies of the judged texts were blanked out (as every answer is).
"""

from __future__ import annotations

import json
import re
from typing import Any

from debate_eval.debates.scoring.score_types import ParsedScore, ScoreRange, checked

METHOD = "structured"
_FENCE = re.compile(r"^```[A-Za-z]*\s*\n(?P<body>.*?)\n?```$", re.DOTALL)
_SCORE_FIELD = re.compile(r'"score"\s*:\s*(?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)')
VERDICT_VALUES = {"A": "first", "B": "second", "C": "tie"}


def json_object(text: str) -> tuple[dict[str, Any], int] | None:
    """The JSON object ``text`` consists of (fence allowed) and the offset of its body in ``text``, or None."""
    stripped = text.strip()
    offset = text.find(stripped) if stripped else 0
    fence = _FENCE.match(stripped)
    if fence:
        offset += fence.start("body")
        stripped = fence.group("body")
    if not (stripped.startswith("{") and stripped.rstrip().endswith("}")):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    return (data, offset) if isinstance(data, dict) else None


def structured_score(text: str, scale: ScoreRange) -> ParsedScore | None:
    """The ``score`` of a structured answer, checked against ``scale``; None when ``text`` is no JSON object
    with a numeric ``score``."""
    found = json_object(text)
    if found is None:
        return None
    data, offset = found
    value = data.get("score")
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    match = _SCORE_FIELD.search(text, offset)
    span = match.span("num") if match is not None else None
    return checked(float(value), METHOD, f'"score": {value}', scale, span)


def structured_verdict(text: str) -> str | None:
    """``first``, ``second`` or ``tie`` from a structured answer's ``verdict`` (A, B, C); None otherwise."""
    found = json_object(text)
    if found is None:
        return None
    value = found[0].get("verdict")
    return VERDICT_VALUES.get(value.strip().upper()) if isinstance(value, str) else None
