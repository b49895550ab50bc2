"""Score parsing: turn an agent's free-text answer into a number on the aspect's scale, or "no score".

Robust parsing in the style of prometheus-eval and DialEvalML. ``parse_score`` is a pure function; it
never invents a score (no "0 when nothing was found") and never clamps. Rules, in order:

1. Normalise: drop markdown emphasis (``*``, ``_`` around words, backticks) and turn en/em dashes
   into ``-``.
2. Strict patterns, all tried over the whole message:
   ``labelled``    a label then a number: ``Score: 4``, ``score of 4``, ``Final score: 3.5``,
                   ``Coherence - 4``, ``Fluency (1-3): 2`` (a parenthesis after the label is the scale,
                   skipped), ``Coherence: 4/5``. Labels: score/rating/grade/verdict with an optional
                   final/overall/revised/... prefix, ``overall``, and the ``aspect`` when given; and,
                   with ``:``/``=``/``-``/``is`` only, ``Final``, ``Final answer`` and ``Answer``.
                   Here only, number words zero..ten are accepted (``Score: four``) when they end
                   the phrase (so ``Coherence: one of the ...`` is not a score).
   ``rate_phrase`` ``I would rate this a 2 out of 5``, ``I would give it a 3``, ``I rate the coherence as 4``.
   ``fraction``    ``4/5`` and ``out_of`` ``4 out of 5``: only when the denominator is the top of the
                   scale (otherwise it is a count such as "2 out of 3 sentences", or a date). A bare
                   ``4/5`` must also end its line and not follow a date word ("published 4/5, is ..."
                   is a date).
   A number followed by a scale (``1 to 5``, ``1-5``, ``1 and 3``), a unit (``3 sentences``), a
   percent sign, or a date continuation is not a score. A leading minus belongs to the number
   (``Score: -1`` is out of range, not 1) and a decimal comma is read as a point (``Score: 4,5`` is
   4.5; ``3,4,5`` and ``1,000`` are not). A labelled/rated fraction whose denominator is not the top
   of the scale is reported as out of range.
   Choosing among strict matches (a match inside a longer one, e.g. the ``4/5`` of ``Score: 4/5``,
   is dropped first):
   a. matches in a hypothetical, comparative or negated context are set aside: after "previous",
      "earlier", "initial", "original", "vs.", "than", "instead of", "compared to", "if", "not"/"n't";
      or followed by "if", "unless", "would require/mean/need/...", "is too ...", "by a/the ..."
      ("a score of 5 would require ...", "the previous score of 2", "I would not give it a 5").
   b. a **verdict**, that is a line holding only a labelled match (bullets, a trailing ``.`` and one
      trailing parenthesis allowed: ``Coherence: 4``, ``- Final score: 3 (good)``) or a match after a
      revision cue in its sentence ("revised", "reconsidering", "on reflection", "actually"), beats
      any other in-sentence match; the LAST verdict wins (``Score: 3`` ... ``Revised score: 4`` is 4).
   c. otherwise the LAST remaining match wins: a rationale may restate an earlier score before the
      final verdict, which comes at the end.
   The winner followed by "or N" (``Score: 3 or 4``) is ambiguous: no score.
3. Per-turn lists (DialEvalML): lines ``Turn 1: 3``, ``Response 2: 2``, ... are averaged
   (``per_turn_average``). Strict matches inside such lines do not count; an explicit labelled score
   elsewhere in the message wins over the list.
4. ``bare_number``: the whole message is one number (``3``, `` 4.5 ``, ``3.``).
5. ``last_number`` (last resort): the last standalone in-range number, skipping scale expressions,
   list markers, dates and years, times, fractions, percentages, dotted ids, numbers after words like
   "step"/"turn"/"section", and counts (a number followed by a word: "3 sentences", "2 aspects";
   "4 points"/"4 stars" excepted). It is trusted only if it sits on the last non-empty line (where a
   verdict is written) and that line holds no other candidate value; otherwise "no score".
   Number words are never taken here, nor numbers in matches set aside by rule 2a ("I would not give
   it a 5; a 3 is more fitting" is 3).
6. The value is checked against the scale: outside it gives ``out_of_range`` (value None).

Nothing found gives status ``no_score`` with method ``none``; its reason says when the only scores seen
were set aside by rule 2a.

A result that chose one number also carries its ``span``: ``text[start:end]`` is that number (digits, sign
included, or number word) in the text as given, before normalisation. G-Eval's weighting uses it to find
the score's token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import lru_cache


@dataclass(frozen=True)
class ScoreRange:
    """The closed interval of valid scores for an aspect, e.g. 1-5 or 0-1."""

    low: float
    high: float

    def contains(self, value: float) -> bool:
        """True when ``value`` lies inside the interval (ends included)."""
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.low:g}-{self.high:g}"


STATUSES = ("parsed", "no_score", "out_of_range")


@dataclass(frozen=True)
class ParsedScore:
    """The outcome of parsing one message: a value on the scale, or why there is none."""

    value: float | None  # None unless status == "parsed"
    status: str  # "parsed" | "no_score" | "out_of_range"
    method: str  # the rule that produced it, or "none"
    reason: str  # one short sentence: the matched text, or why nothing was found
    # Where the chosen number (digits or number word) lies in the parsed text: ``text[start:end]``. None
    # when no single number was chosen (no score, a per-turn average). Not part of equality or ``to_dict``.
    span: tuple[int, int] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"unknown status {self.status!r}")
        if (self.value is not None) != (self.status == "parsed"):
            raise ValueError("value must be set exactly when status is 'parsed'")

    @property
    def ok(self) -> bool:
        """True when a score on the scale was found."""
        return self.status == "parsed"

    def to_dict(self) -> dict:
        """JSON-ready form: ``{"value", "status", "method", "reason"}``."""
        return {"value": self.value, "status": self.status, "method": self.method, "reason": self.reason}


WORD_NUMBERS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_WORDS = "|".join(WORD_NUMBERS)
_FLAGS = re.IGNORECASE | re.MULTILINE

# A number: digits with an optional decimal part (point, or a comma and one or two digits: "4,5"), not
# glued to letters, a second decimal part ("1.2.3", "3,4,5") or a thousands comma ("1,000").
_DIG = r"\d+(?:\.\d+|,\d{1,2}(?!\d))?(?!\w|[.,]\d)"
_START = r"(?<![\w./])(?<!\d,)"
_SIGNED = rf"{_START}-?{_DIG}"
# In labelled positions a number word counts only when it ends the phrase.
_WORD_NUM = rf"(?:{_WORDS})\b(?=[ \t]*(?:[.,;:!)\]]|$|/|out[ \t]+of\b))"
_DEN = rf"(?:[ \t]*(?:/|out[ \t]+of)[ \t]*(?P<den>{_DIG}|(?:{_WORDS})\b))?"
_UNITS = (
    r"(?:sentences?|words?|errors?|mistakes?|paragraphs?|lines?|characters?|tokens?|turns?|times|"
    r"years?|months?|days?|hours?|minutes?|seconds?|people|persons?|examples?|issues?|facts?|claims?|"
    r"items?|steps?|entit(?:y|ies)|names?|questions?|responses?|utterances?|percent)\b"
)
# What may not follow a score: a range ("1 to 5"), a unit, a percent, or more of a date ("4/5/2015").
_TAIL = rf"(?![ \t]*(?:-|to\b|and\b)[ \t]*\d)(?![ \t]*(?:%|{_UNITS}))(?!/\d)"
_SEP = (
    r"(?:[ \t]*[:=][ \t]*|[ \t]*-[ \t]*"
    r"|[ \t]+(?:is|of|was|at|would[ \t]+be|should[ \t]+be|remains|stays)\b[ \t]*:?[ \t]*)(?:an?[ \t]+)?"
)
_SCALE_PAREN = r"(?:[ \t]*\([^()\n]{0,30}\))?"

_FRACTION = re.compile(rf"{_START}(?P<num>{_DIG})[ \t]*/[ \t]*(?P<den>{_DIG}){_TAIL}", _FLAGS)
_OUT_OF = re.compile(rf"{_START}(?P<num>{_DIG})[ \t]+out[ \t]+of[ \t]+(?P<den>{_DIG}){_TAIL}", _FLAGS)
_PER_TURN = re.compile(
    rf"^[ \t]*(?:[-+•][ \t]*)?(?:turn|response|utterance|reply)[ \t]*#?[ \t]*\d+{_SCALE_PAREN}"
    rf"(?:[ \t]+(?:score|rating))?{_SEP}(?P<num>{_DIG}){_DEN}{_TAIL}",
    _FLAGS,
)
_BARE = re.compile(r"\A\s*(?P<num>-?\d+(?:\.\d+)?)\s*\.?\s*\Z")

# Lenient: any standalone number, then context checks on the text around it.
# A minus glued to the digits is kept, so "-1" is never read as 1.
_ANY_NUMBER = re.compile(r"(?<![\w./])(?<!\w-)(?<!\d:)(?<!\d,)(?P<num>-?\d+(?:\.\d+)?)(?![\w%/]|\.\d|,\d|:\d)")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_BAD_BEFORE = re.compile(
    rf"(?:\d[ \t]*(?:-|to|and)[ \t]*|\bout[ \t]+of[ \t]*|\b{_MONTH}[ \t]*|#[ \t]*"
    r"|\b(?:step|turn|sentence|section|paragraph|line|point|item|number|no\.|page|chapter|version|figure"
    r"|table|example|criterion|question|part|round|response|utterance|article|top)[ \t]*)\Z",
    re.IGNORECASE,
)
# After a lenient candidate: a range, a date, a percent, a fraction, or a word (a count: "2 aspects").
_BAD_AFTER = re.compile(
    rf"\A(?:[ \t]*(?:-|to\b|and\b)[ \t]*\d|(?:st|nd|rd|th)?[ \t]+{_MONTH}\b|,[ \t]*\d{{4}}|[ \t]*%"
    r"|[ \t]+out[ \t]+of\b"
    r"|[ \t]+(?!(?:points?|stars?|for|because|since|as|given|overall|is|seems|here|and|or)\b)[a-z])",
    re.IGNORECASE,
)
_LIST_MARKER_AFTER = re.compile(r"\A[.)][ \t]+\S")

# Rule 2a: a score that is hypothetical, compared, negated or someone else's earlier one. Before the
# match: a marker then at most two words ("previous score of 2", "the earlier judge's rating: 3",
# "(vs. 4/5"), or a negation right before it, one word at most ("would not give it a 5").
_ASIDE_BEFORE = re.compile(
    r"(?:\b(?:previous(?:ly)?|earlier|initial(?:ly)?|original(?:ly)?|prior|old|if|unless|than|versus"
    r"|instead[ \t]+of|compared[ \t]+(?:to|with))\b|\bvs\b\.?)(?:[ \t]+[\w'’]+){0,2}[ \t]*[(\[]?[ \t]*\Z"
    r"|(?:\b(?:not|never)\b|n['’]t\b)(?:[ \t]+[\w'’]+)?[ \t]*\Z",
    re.IGNORECASE,
)
# After the match ("a score of 5 would require ...", "a 4 if it were shorter", "rated 2 by a strict judge").
_ASIDE_AFTER = re.compile(
    r"[ \t]*,?[ \t]*(?:if|unless|only[ \t]+if|(?:is|was|seems?|seemed)[ \t]+(?:too|overly)"
    r"|would[ \t]+(?:require|mean|need|imply|indicate|suggest|correspond|apply|have|be[ \t]+(?:reserved|for|too|given))"
    r"|by[ \t]+(?:a|an|the|another|other|some))\b",
    re.IGNORECASE,
)
# Rule 2b: what may stand around a labelled match for its line to be a verdict line.
_LINE_LEAD = re.compile(r"[ \t>#+•-]*\Z")
_LINE_TRAIL = re.compile(r"[ \t]*[.!]?[ \t]*(?:\([^()\n]*\)[ \t]*[.!]?[ \t]*)?$", re.MULTILINE)
# An in-sentence match after a revision cue in its sentence counts as a verdict line ("On reflection,
# I'd rate it 4." after "Score: 3").
_REVISION_BEFORE = re.compile(
    r"\b(?:revis\w*|reconsider\w*|on[ \t]+(?:reflection|second[ \t]+thought)|actually)\b[^.!?\n]*\Z", re.IGNORECASE
)
# A bare fraction must end its line or sentence and not follow a date word.
_FRACTION_TRAIL = re.compile(r"[ \t]*(?:[.!]?[ \t]*$|[.!](?=\s))", re.MULTILINE)
_DATE_BEFORE = re.compile(r"\b(?:on|published|dated|posted|updated|from|since|until)[ \t]*\Z", re.IGNORECASE)
_OR_ALTERNATIVE = re.compile(rf"[ \t]*,?[ \t]*or[ \t]+(?:an?[ \t]+)?(?:-?\d|(?:{_WORDS})\b)", re.IGNORECASE)


@lru_cache(maxsize=64)
def _strict_patterns(aspect: str | None) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The strict patterns, in tie-break order, with ``aspect`` as an extra label when given."""
    parts = re.split(r"[\s_-]+", aspect.strip()) if aspect else []
    asp = "[ \t_-]+".join(re.escape(part) for part in parts if part) or None
    score_word = (
        r"(?:(?:final|overall|revised|updated|new|my|total|average)[ \t]+)?"
        + (rf"(?:{asp}[ \t]+)?" if asp else "")
        + r"(?:score|rating|grade|verdict)(?:[ \t]+for[ \t]+(?:the[ \t]+)?[a-z]+)?"
    )
    label = rf"\b(?:{score_word}|overall" + (rf"|{asp}" if asp else "") + r")\b"
    # "Final: 4", "Answer: 3": generic words, so only with a punctuation separator or "is".
    short_label = r"\b(?:final(?:[ \t]+answer)?|answer)\b"
    short_sep = r"(?:[ \t]*[:=][ \t]*|[ \t]+-[ \t]+|[ \t]+is[ \t]+)"
    labelled = re.compile(
        rf"(?:{label}{_SCALE_PAREN}{_SEP}|{short_label}{_SCALE_PAREN}{short_sep})"
        rf"(?P<num>{_SIGNED}|{_WORD_NUM}){_DEN}{_TAIL}",
        _FLAGS,
    )
    filler = (
        r"(?:it|this|that|them|a|an|as|at|of|with|score|rating|overall|final"
        r"|(?:the|this|its|their|my)[ \t]+[a-z]+|[a-z]+'s" + (rf"|{asp}" if asp else "") + ")"
    )
    rate = re.compile(
        r"\b(?:rate|rated|rating|give|gave|giving|assign|assigned|award|awarded|score|scored|grade|graded)"
        rf"\b(?:[ \t]+{filler}){{0,6}}?[ \t]+(?P<num>{_SIGNED}){_DEN}{_TAIL}",
        _FLAGS,
    )
    return (("labelled", labelled), ("rate_phrase", rate), ("fraction", _FRACTION), ("out_of", _OUT_OF))


_UNDERSCORES = re.compile(r"(?<!\w)_+|_+(?!\w)")  # markdown emphasis, not snake_case


def _normalise(text: str) -> str:
    """Drop markdown emphasis and unify dashes, so patterns see plain text."""
    text = re.sub(r"[*`]+", "", text)
    text = _UNDERSCORES.sub("", text)
    return re.sub("[\u2012\u2013\u2014\u2212]", "-", text)


def _normalise_map(text: str) -> list[int]:
    """For each character of ``_normalise(text)``, its index in ``text`` (the same deletions, in order)."""
    kept = [i for i, char in enumerate(text) if char not in "*`"]
    step = "".join(text[i] for i in kept)
    dropped = {i for match in _UNDERSCORES.finditer(step) for i in range(*match.span())}
    return [index for j, index in enumerate(kept) if j not in dropped]


def _number(token: str) -> float:
    """``"4"``, ``"3.5"``, ``"3,5"``, ``"-1"`` or ``"four"`` as a float."""
    word = token.lower()
    return float(WORD_NUMBERS[word]) if word in WORD_NUMBERS else float(token.replace(",", "."))


def _quote(text: str, limit: int = 80) -> str:
    """``text`` on one line, shortened, in single quotes for a reason sentence."""
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def _verdict(
    value: float, method: str, matched: str, scale: ScoreRange, span: tuple[int, int] | None = None
) -> ParsedScore:
    """The range check: ``parsed`` inside the scale, ``out_of_range`` (never clamped) outside."""
    if scale.contains(value):
        return ParsedScore(value, "parsed", method, f"Matched {_quote(matched)} ({method}).", span)
    return ParsedScore(
        None,
        "out_of_range",
        method,
        f"{value:g} from {_quote(matched)} is out of range (outside the {scale} scale).",
        span,
    )


def _from_match(match: re.Match[str], method: str, scale: ScoreRange) -> ParsedScore:
    """Turn one strict or per-turn match into a result, checking a denominator against the scale."""
    value = _number(match.group("num"))
    den = match.group("den")
    if den is not None and _number(den) != scale.high:
        return ParsedScore(
            None,
            "out_of_range",
            method,
            f"{_quote(match.group(0))} is out of range: out of {_number(den):g}, not on the {scale} scale.",
            match.span("num"),
        )
    return _verdict(value, method, match.group(0), scale, match.span("num"))


def _overlaps(match: re.Match[str], spans: list[tuple[int, int]]) -> bool:
    return any(match.start() < end and start < match.end() for start, end in spans)


def _set_aside(text: str, match: re.Match[str]) -> bool:
    """Rule 2a: the match is hypothetical, a comparison, negated, or an earlier score."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[max(line_start, match.start() - 60) : match.start()]
    return bool(_ASIDE_BEFORE.search(before) or _ASIDE_AFTER.match(text, match.end()))


def _is_verdict(text: str, method: str, match: re.Match[str]) -> bool:
    """Rule 2b: a labelled match alone on its line (but for bullets, a full stop and a parenthesis), or
    any match after a revision cue in its sentence."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    if _REVISION_BEFORE.search(text, line_start, match.start()):
        return True
    return (
        method == "labelled"
        and bool(_LINE_LEAD.match(text[line_start : match.start()]))
        and bool(_LINE_TRAIL.match(text, match.end()))
    )


def _strict_matches(
    text: str, scale: ScoreRange, aspect: str | None, skip: list[tuple[int, int]]
) -> list[tuple[str, re.Match[str]]]:
    """Every usable strict match outside the ``skip`` spans, in text order, without those inside a longer one."""
    found: list[tuple[int, str, re.Match[str]]] = []
    for order, (method, pattern) in enumerate(_strict_patterns(aspect)):
        for match in pattern.finditer(text):
            if _overlaps(match, skip):
                continue
            if method in ("fraction", "out_of") and _number(match.group("den")) != scale.high:
                continue  # a count ("2 out of 3 sentences") or a date, not a score
            if method == "fraction" and (
                not _FRACTION_TRAIL.match(text, match.end()) or _DATE_BEFORE.search(text[: match.start()][-20:])
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


def _strict(
    text: str, scale: ScoreRange, aspect: str | None, skip: list[tuple[int, int]]
) -> tuple[ParsedScore | None, list[tuple[int, int]]]:
    """The chosen strict match outside the ``skip`` spans (rule 2) or None, and the spans set aside."""
    matches = _strict_matches(text, scale, aspect, skip)
    aside = [match.span() for _, match in matches if _set_aside(text, match)]
    usable = [(method, match) for method, match in matches if match.span() not in aside]
    if not usable:
        return None, aside
    verdicts = [(method, match) for method, match in usable if _is_verdict(text, method, match)]
    method, match = (verdicts or usable)[-1]
    alternative = _OR_ALTERNATIVE.match(text, match.end())
    if alternative:
        shown = _quote(match.group(0) + alternative.group(0))
        return ParsedScore(None, "no_score", "none", f"No clear score: {shown} is ambiguous."), aside
    return _from_match(match, method, scale), aside


def _per_turn(text: str, scale: ScoreRange) -> ParsedScore | None:
    """The average of per-turn scores (DialEvalML), or None when there is no per-turn line."""
    matches = list(_PER_TURN.finditer(text))
    if not matches:
        return None
    for match in matches:
        single = _from_match(match, "per_turn_average", scale)
        if not single.ok:
            return single
    values = [_number(m.group("num")) for m in matches]
    mean = sum(values) / len(values)
    shown = ", ".join(f"{v:g}" for v in values)
    return ParsedScore(
        mean,
        "parsed",
        "per_turn_average",
        f"Averaged {len(values)} per-turn scores ({shown}) from {_quote(matches[0].group(0))} on.",
    )


def _last_number(text: str, scale: ScoreRange, aside: list[tuple[int, int]]) -> ParsedScore | None:
    """The last-resort rule: one unambiguous in-range number on the last non-empty line, or None.

    Numbers inside the ``aside`` spans (strict matches set aside as hypothetical) are not candidates.
    """
    candidates: list[re.Match[str]] = []
    for match in _ANY_NUMBER.finditer(text):
        if _overlaps(match, aside):
            continue
        before, after = text[: match.start()], text[match.end() :]
        line_before = before[before.rfind("\n") + 1 :]
        token = match.group("num")
        if _BAD_BEFORE.search(before[-40:]) or _BAD_AFTER.match(after):
            continue  # a scale, a date, a count, a percentage, or "step 3"
        if re.fullmatch(r"\d{4}", token):
            continue  # a year
        if not line_before.strip(" \t-+•>") and _LIST_MARKER_AFTER.match(after):
            continue  # a list marker "1. Read the article"
        if scale.contains(_number(token)):
            candidates.append(match)
    if not candidates:
        return None
    last_line_start = text.rstrip().rfind("\n") + 1
    if candidates[-1].start() < last_line_start:
        return None  # a number buried in the rationale is too ambiguous to be the score
    on_line = {_number(m.group("num")) for m in candidates if m.start() >= last_line_start}
    if len(on_line) > 1:
        shown = ", ".join(f"{v:g}" for v in sorted(on_line))
        return ParsedScore(None, "no_score", "none", f"No clear score: the last line has several numbers ({shown}).")
    line = text[last_line_start:].strip()
    return _verdict(_number(candidates[-1].group("num")), "last_number", line, scale, candidates[-1].span("num"))


def _in_text(result: ParsedScore, text: str, clean: str) -> ParsedScore:
    """``result`` with its span moved from the normalised ``clean`` back to the original ``text``."""
    if result.span is None or clean == text:
        return result
    index = _normalise_map(text)
    start, end = result.span
    return replace(result, span=(index[start], index[end - 1] + 1))


def parse_score(text: str, scale: ScoreRange, aspect: str | None = None) -> ParsedScore:
    """Parse the score an agent gave on ``scale`` for ``aspect`` out of its free-text ``text``.

    See the module docstring for the order of rules. ``aspect`` (e.g. "coherence") is accepted as a
    label besides the generic ones, case-insensitively. Never returns a made-up value: when nothing is
    found the result has status "no_score" and value None; a value outside ``scale`` is "out_of_range".
    """
    if not text or not text.strip():
        return ParsedScore(None, "no_score", "none", "No score: the message is empty.")
    clean = _normalise(text)
    turn_spans = [m.span() for m in _PER_TURN.finditer(clean)]
    result, aside = _strict(clean, scale, aspect, turn_spans)
    result = result or _per_turn(clean, scale)
    if result is not None:
        return _in_text(result, text, clean)
    bare = _BARE.match(clean)
    if bare:
        return _in_text(
            _verdict(_number(bare.group("num")), "bare_number", clean.strip(), scale, bare.span("num")), text, clean
        )
    result = _last_number(clean, scale, aside)
    if result is not None:
        return _in_text(result, text, clean)
    if aside:
        first = clean[aside[0][0] : aside[0][1]]
        return ParsedScore(
            None,
            "no_score",
            "none",
            f"No score: {_quote(first)} reads as hypothetical or comparative, and nothing else.",
        )
    return ParsedScore(
        None,
        "no_score",
        "none",
        "No score found: no labelled score, fraction, rating phrase, per-turn list or usable number.",
    )
