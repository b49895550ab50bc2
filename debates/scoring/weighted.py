"""G-Eval's probability-weighted score: the expected value over the score tokens' probabilities at the
position of the score the parser chose (see ``debates.geval`` for when it is used)."""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Mapping
from typing import Any

from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange

# A score token: the integer alone, with surrounding whitespace and at most one trailing "." or ")"
# (" 3", "3", " 3.", "3)"); ASCII digits only ("³".isdigit() is true, but it is no score).
_SCORE_TOKEN = re.compile(r"\s*([0-9]+)[.)]?\s*")


def _token_bytes(entry: Mapping[str, Any]) -> bytes:
    raw = entry.get("bytes")
    if raw:
        return bytes(raw)
    return str(entry.get("token", "")).encode("utf-8")


def _token_text(entry: Mapping[str, Any]) -> str:
    return _token_bytes(entry).decode("utf-8", errors="replace")


def _scale_integer(text: str, scale: ScoreRange) -> int | None:
    """The integer of the scale that the token ``text`` stands for, or None."""
    match = _SCORE_TOKEN.fullmatch(text)
    if match is None:
        return None
    value = int(match.group(1))
    return value if scale.contains(value) else None


def _unique_context(text: str, start: int, end: int, joined: str) -> int | None:
    """Where ``text[start:end]`` is in ``joined``, found by the widest context around it that occurs once."""
    for width in (40, 20, 10, 5, 2):
        first, last = max(0, start - width), min(len(text), end + width)
        context = text[first:last]
        found = joined.find(context)
        if found >= 0 and joined.find(context, found + 1) < 0:
            return found + start - first
    return None


def _locate(text: str, span: tuple[int, int], joined: str) -> int | None:
    """Where ``text[start:end]`` lies in ``joined`` (the tokens' text), or None.

    ``text`` is what the parser read: the answer itself, or the answer with copies of the material
    blanked out, and tokens may differ from it in whitespace. Tried in order: the same text, the same
    text up to the number or from it on, a context around the number that occurs once in the tokens'
    text, then the same with all whitespace left out of both.
    """
    start, end = span
    if joined == text or joined.startswith(text[:end]):
        return start
    tail = text[start:]
    if joined.endswith(tail):
        return len(joined) - len(tail)
    found = _unique_context(text, start, end, joined)
    if found is not None or any(char.isspace() for char in text[start:end]):
        return found
    text_kept = [i for i, char in enumerate(text) if not char.isspace()]
    joined_kept = [i for i, char in enumerate(joined) if not char.isspace()]
    squeezed_text = "".join(text[i] for i in text_kept)
    squeezed_joined = "".join(joined[i] for i in joined_kept)
    squeezed_start = bisect.bisect_left(text_kept, start)
    if squeezed_text == squeezed_joined:
        return joined_kept[squeezed_start]
    found = _unique_context(squeezed_text, squeezed_start, squeezed_start + end - start, squeezed_joined)
    return None if found is None else joined_kept[found]


def _score_token(logprobs: list[dict[str, Any]], text: str | None, span: tuple[int, int]) -> int | str:
    """The index of the token that holds the number at ``span`` of ``text``, or why there is none.

    Positions are counted in bytes over the tokens (a character may be split across tokens).
    """
    ends = list(itertools.accumulate(len(_token_bytes(entry)) for entry in logprobs))  # each token's end byte
    joined = b"".join(_token_bytes(entry) for entry in logprobs).decode("utf-8", errors="surrogateescape")
    position = span[0] if text is None else _locate(text, span, joined)
    number = (joined if text is None else text)[span[0] : span[1]]
    if position is None or joined[position : position + len(number)] != number:
        return "the parsed number could not be found in the tokens"
    first = len(joined[:position].encode("utf-8", errors="surrogateescape"))
    last = first + len(number.encode("utf-8", errors="surrogateescape"))
    index = bisect.bisect_right(ends, first)  # the token whose bytes hold the number's first byte
    if index == len(ends):
        return "the parsed number could not be found in the tokens"
    return f"the parsed number {number!r} is split over several tokens" if last > ends[index] else index


def weighted_score(
    logprobs: list[dict[str, Any]], scale: ScoreRange, parsed: ParsedScore, text: str | None = None
) -> tuple[float | None, dict[str, Any]]:
    """G-Eval's probability-weighted score from one completion's token log-probabilities.

    ``logprobs`` is a list of AutoGen ``ChatCompletionTokenLogprob`` dumps (token, logprob, bytes,
    top_logprobs); ``parsed`` the parse of ``text`` (None: the tokens' own text). Only the token of the
    number the parser chose (``parsed.span``) is weighted, over its candidates that are integers of the
    scale (probabilities renormalised over those). Returns the score and details whose ``method`` is
    ``logprob_weighted``, or ``parsed`` with the parsed score (None when there is none) and, under
    ``logprobs``, why nothing was weighted: no score is ever made up from another number.
    """
    value = parsed.value if parsed.ok else None

    def unweighted(reason: str) -> tuple[float | None, dict[str, Any]]:
        return value, {"method": "parsed", "logprobs": f"not weighted: {reason}"}

    if value is None:
        return unweighted(f"the answer has no parsed score ({parsed.status})")
    if parsed.span is None:
        return unweighted(f"the score is not one number of the answer ({parsed.method})")
    if not value.is_integer():
        return unweighted(f"the score {value:g} is not an integer")
    found = _score_token(logprobs, text, parsed.span)
    if isinstance(found, str):
        return unweighted(found)
    entry = logprobs[found]
    token = _token_text(entry)
    if _scale_integer(token, scale) != int(value):
        return unweighted(f"the score's token {token!r} is not a score token for {value:g}")
    candidates = list(entry.get("top_logprobs") or [])
    if not any(_token_bytes(candidate) == _token_bytes(entry) for candidate in candidates):
        candidates.append(entry)  # a sampled token outside the top log-probabilities still counts
    mass: dict[int, float] = {}
    for candidate in candidates:
        integer = _scale_integer(_token_text(candidate), scale)
        if integer is not None:
            mass[integer] = mass.get(integer, 0.0) + math.exp(float(candidate["logprob"]))
    total = sum(mass.values())
    if total <= 0:
        return unweighted("no probability on the scale's integers at the score's token")
    score = sum(v * p for v, p in mass.items()) / total
    details = {
        "method": "logprob_weighted",
        "token_index": found,
        "token": token,
        "span": list(parsed.span),
        "probabilities": {str(v): round(p / total, 6) for v, p in sorted(mass.items())},
        "covered_mass": round(total, 6),
    }
    return score, details
