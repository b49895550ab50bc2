"""The score parser's rules (strict matches and their choice, per-turn lists, the leading and last numbers).

Each rule works on normalised text and returns a :class:`ParsedScore` or None ("this rule does not apply");
:func:`scores.parse_score` applies them in order.
"""

from __future__ import annotations

import re

from debate_eval.debates.scoring.score_patterns import (
    ANY_NUMBER,
    ASIDE_AFTER,
    ASIDE_BEFORE,
    BAD_AFTER,
    BAD_BEFORE,
    DATE_BEFORE,
    FRACTION_TRAIL,
    LEADING_NUMBER,
    LINE_LEAD,
    LINE_TRAIL,
    LIST_MARKER_AFTER,
    OR_ALTERNATIVE,
    PER_TURN,
    REVISION_BEFORE,
    STEP_VERB_AFTER,
    number,
    strict_patterns,
)
from debate_eval.debates.scoring.score_types import ParsedScore, ScoreRange, checked, quote


def _from_match(match: re.Match[str], method: str, scale: ScoreRange) -> ParsedScore:
    """Turn one strict or per-turn match into a result, checking a denominator against the scale."""
    value = number(match.group("num"))
    den = match.group("den")
    if den is not None and number(den) != scale.high:
        return ParsedScore(
            None,
            "out_of_range",
            method,
            f"{quote(match.group(0))} is out of range: out of {number(den):g}, not on the {scale} scale.",
            match.span("num"),
        )
    return checked(value, method, match.group(0), scale, match.span("num"))


def _overlaps(match: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    return any(match.start() < end and start < match.end() for start, end in spans)


def _set_aside(text: str, match: re.Match[str]) -> bool:
    """Rule 2a: the match is hypothetical, a comparison, negated, or an earlier score."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[max(line_start, match.start() - 60) : match.start()]
    return bool(ASIDE_BEFORE.search(before) or ASIDE_AFTER.match(text, match.end()))


def _is_verdict(text: str, method: str, match: re.Match[str]) -> bool:
    """Rule 2b: a labelled match alone on its line (but for bullets, a full stop and a parenthesis), or
    any match after a revision cue in its sentence."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    if REVISION_BEFORE.search(text, line_start, match.start()):
        return True
    return (
        method == "labelled"
        and bool(LINE_LEAD.match(text[line_start : match.start()]))
        and bool(LINE_TRAIL.match(text, match.end()))
    )


def _strict_matches(
    text: str, scale: ScoreRange, aspect: str | None, skip: list[tuple[int, int]]
) -> list[tuple[str, re.Match[str]]]:
    """Every usable strict match outside the ``skip`` spans, in text order, without those inside a longer one."""
    found: list[tuple[int, str, re.Match[str]]] = []
    for order, (method, pattern) in enumerate(strict_patterns(aspect)):
        for match in pattern.finditer(text):
            if _overlaps(match, skip):
                continue
            if method in ("fraction", "out_of") and number(match.group("den")) != scale.high:
                continue  # a count ("2 out of 3 sentences") or a date, not a score
            if method == "fraction" and (
                not FRACTION_TRAIL.match(text, match.end()) or DATE_BEFORE.search(text[: match.start()][-20:])
            ):
                continue  # "published 4/5, is ...": a bare fraction counts only at the end of a line
            found.append((order, method, match))

    def inside_another(item: tuple[int, str, re.Match[str]]) -> bool:
        order, _, match = item
        return any(
            other is not match
            and other.start() <= match.start()
            and match.end() <= other.end()
            and (other.span() != match.span() or other_order < order)
            for other_order, _, other in found
        )

    kept = [item for item in found if not inside_another(item)]
    kept.sort(key=lambda item: (item[2].end(), -item[2].start(), -item[0]))
    return [(method, match) for _, method, match in kept]


def strict_rule(
    text: str, scale: ScoreRange, aspect: str | None, skip: list[tuple[int, int]]
) -> tuple[ParsedScore | None, list[tuple[int, int]], bool]:
    """The chosen strict match outside the ``skip`` spans (rule 2) or None, the spans set aside, and whether
    the choice is a verdict (rule 2b)."""
    matches = _strict_matches(text, scale, aspect, skip)
    aside = [match.span() for _, match in matches if _set_aside(text, match)]
    usable = [(method, match) for method, match in matches if match.span() not in aside]
    if not usable:
        return None, aside, False
    verdicts = [(method, match) for method, match in usable if _is_verdict(text, method, match)]
    method, match = (verdicts or usable)[-1]
    alternative = OR_ALTERNATIVE.match(text, match.end())
    if alternative:
        shown = quote(match.group(0) + alternative.group(0))
        return ParsedScore(None, "no_score", "none", f"No clear score: {shown} is ambiguous."), aside, bool(verdicts)
    return _from_match(match, method, scale), aside, bool(verdicts)


def per_turn_rule(text: str, scale: ScoreRange) -> ParsedScore | None:
    """The average of per-turn scores (DialEvalML), or None when there is no per-turn line."""
    matches = list(PER_TURN.finditer(text))
    if not matches:
        return None
    for match in matches:
        single = _from_match(match, "per_turn_average", scale)
        if not single.ok:
            return single
    values = [number(m.group("num")) for m in matches]
    mean = sum(values) / len(values)
    shown = ", ".join(f"{v:g}" for v in values)
    return ParsedScore(
        mean,
        "parsed",
        "per_turn_average",
        f"Averaged {len(values)} per-turn scores ({shown}) from {quote(matches[0].group(0))} on.",
    )


def last_number_rule(text: str, scale: ScoreRange, aside: list[tuple[int, int]]) -> ParsedScore | None:
    """The last-resort rule: one unambiguous in-range number on the last non-empty line, or None.

    Numbers inside the ``aside`` spans (strict matches set aside as hypothetical) are not candidates.
    """
    candidates: list[re.Match[str]] = []
    for match in ANY_NUMBER.finditer(text):
        if _overlaps(match, aside):
            continue
        before, after = text[: match.start()], text[match.end() :]
        line_before = before[before.rfind("\n") + 1 :]
        token = match.group("num")
        if BAD_BEFORE.search(before[-40:]) or BAD_AFTER.match(after):
            continue  # a scale, a date, a count, a percentage, or "step 3"
        if re.fullmatch(r"\d{4}", token):
            continue  # a year
        if not line_before.strip(" \t-+•>") and LIST_MARKER_AFTER.match(after):
            continue  # a list marker "1. Read the article"
        if scale.contains(number(token)):
            candidates.append(match)
    if not candidates:
        return None
    last_line_start = text.rstrip().rfind("\n") + 1
    if candidates[-1].start() < last_line_start:
        return None  # a number buried in the rationale is too ambiguous to be the score
    on_line = {number(m.group("num")) for m in candidates if m.start() >= last_line_start}
    if len(on_line) > 1:
        shown = ", ".join(f"{v:g}" for v in sorted(on_line))
        return ParsedScore(None, "no_score", "none", f"No clear score: the last line has several numbers ({shown}).")
    line = text[last_line_start:].strip()
    return checked(number(candidates[-1].group("num")), "last_number", line, scale, candidates[-1].span("num"))


def leading_number_rule(text: str, scale: ScoreRange, aside: list[tuple[int, int]]) -> ParsedScore | None:
    """G-Eval's rule: the answer starts with a bare number (``4``, ``4.``, ``4:``, ``4,``, ``4 -``) then a
    line break, a sentence or the end (``"4\n\nThe summary ..."``, ``"4. The summary is consistent."``).

    Not when the number opens a numbered list (a later line starts with the next number, or an evaluation
    step's verb follows: ``1. Read the article``), is a year, is set aside by rule 2a (``"4, if it were
    shorter"``) or lies in an ``aside`` span.
    """
    match = LEADING_NUMBER.match(text)
    if match is None or _overlaps(match, aside) or _set_aside(text, match):
        return None
    if re.fullmatch(r"\d{4}", match.group("num")):
        return None  # a year
    value = number(match.group("num"))
    after = text[match.end() :]
    if after[:1] in ".)" and value.is_integer():
        following = re.compile(rf"^[ \t]*{int(value) + 1}[.)][ \t]", re.MULTILINE)
        if following.search(after) or STEP_VERB_AFTER.match(after):
            return None  # "1. Read the article ...": a step of a list, not a score
    first_line = text.strip().split("\n", 1)[0]
    return checked(value, "leading_number", first_line, scale, match.span("num"))


def leading_aside(text: str) -> list[tuple[int, int]]:
    """The leading number's span when rule 2a sets it aside (``"4, if it were shorter."``), else nothing."""
    match = LEADING_NUMBER.match(text)
    return [match.span("num")] if match is not None and _set_aside(text, match) else []
