"""The score parser's vocabulary: number words, the regular expressions of each rule, and text normalisation.

Rules and their order are described in :mod:`scores`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from debate_eval.debates.scoring.normal_form import fold_with_map

_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
WORD_NUMBERS = {word: value for value, word in enumerate(_NUMBER_WORDS)}
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
PER_TURN = re.compile(
    rf"^[ \t]*(?:[-+•][ \t]*)?(?:turn|response|utterance|reply)[ \t]*#?[ \t]*\d+{_SCALE_PAREN}"
    rf"(?:[ \t]+(?:score|rating))?{_SEP}(?P<num>{_DIG}){_DEN}{_TAIL}",
    _FLAGS,
)
# G-Eval's rule: a number opening the answer, then a line break, the end, or punctuation and a space.
LEADING_NUMBER = re.compile(r"\A\s*(?P<num>-?\d+(?:\.\d+)?)(?=[ \t]*(?:\n|\Z)|[.:,)](?:\s|\Z)|[ \t]+-[ \t])")
# After "1." or "1)": an evaluation step ("1. Read the article", "2) Compare ..."), so a list marker.
STEP_VERB_AFTER = re.compile(
    r"[.)][ \t]+(?:read|identify|compare|check|assess|evaluate|assign|consider|review|look|determine|examine"
    r"|note|analy[sz]e|judge|count|list|summari[sz]e|verify|find|rate|score|decide|think|go|start|first)\b",
    re.IGNORECASE,
)
BARE = re.compile(r"\A\s*(?P<num>-?\d+(?:\.\d+)?)\s*\.?\s*\Z")

# Lenient: any standalone number, then context checks on the text around it.
# A minus glued to the digits is kept, so "-1" is never read as 1.
ANY_NUMBER = re.compile(r"(?<![\w./])(?<!\w-)(?<!\d:)(?<!\d,)(?P<num>-?\d+(?:\.\d+)?)(?![\w%/]|\.\d|,\d|:\d)")
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
BAD_BEFORE = re.compile(
    rf"(?:\d[ \t]*(?:-|to|and)[ \t]*|\bout[ \t]+of[ \t]*|\b{_MONTH}[ \t]*|#[ \t]*"
    r"|\b(?:step|turn|sentence|section|paragraph|line|point|item|number|no\.|page|chapter|version|figure"
    r"|table|example|criterion|question|part|round|response|utterance|article|top)[ \t]*)\Z",
    re.IGNORECASE,
)
# After a lenient candidate: a range, a date, a percent, a fraction, or a word (a count: "2 aspects").
BAD_AFTER = re.compile(
    rf"\A(?:[ \t]*(?:-|to\b|and\b)[ \t]*\d|(?:st|nd|rd|th)?[ \t]+{_MONTH}\b|,[ \t]*\d{{4}}|[ \t]*%"
    r"|[ \t]+out[ \t]+of\b"
    r"|[ \t]+(?!(?:points?|stars?|for|because|since|as|given|overall|is|seems|here|and|or)\b)[a-z])",
    re.IGNORECASE,
)
LIST_MARKER_AFTER = re.compile(r"\A[.)][ \t]+\S")

# Rule 2a: a score that is hypothetical, compared, negated or someone else's earlier one. Before the
# match: a marker then at most two words ("previous score of 2", "the earlier judge's rating: 3",
# "(vs. 4/5"), or a negation right before it, one word at most ("would not give it a 5").
ASIDE_BEFORE = re.compile(
    r"(?:\b(?:previous(?:ly)?|earlier|initial(?:ly)?|original(?:ly)?|prior|old|if|unless|than|versus"
    r"|instead[ \t]+of|compared[ \t]+(?:to|with))\b|\bvs\b\.?)(?:[ \t]+[\w'’]+){0,2}[ \t]*[(\[]?[ \t]*\Z"
    r"|(?:\b(?:not|never)\b|n['’]t\b)(?:[ \t]+[\w'’]+)?[ \t]*\Z",
    re.IGNORECASE,
)
# After the match ("a score of 5 would require ...", "a 4 if it were shorter", "rated 2 by a strict judge").
ASIDE_AFTER = re.compile(
    r"[ \t]*,?[ \t]*(?:if|unless|only[ \t]+if|(?:is|was|seems?|seemed)[ \t]+(?:too|overly)"
    r"|would[ \t]+(?:require|mean|need|imply|indicate|suggest|correspond|apply|have|be[ \t]+(?:reserved|for|too|given))"
    r"|by[ \t]+(?:a|an|the|another|other|some))\b",
    re.IGNORECASE,
)
# Rule 2b: what may stand around a labelled match for its line to be a verdict line.
LINE_LEAD = re.compile(r"[ \t>#+•-]*\Z")
LINE_TRAIL = re.compile(r"[ \t]*[.!]?[ \t]*(?:\([^()\n]*\)[ \t]*[.!]?[ \t]*)?$", re.MULTILINE)
# An in-sentence match after a revision cue in its sentence counts as a verdict line ("On reflection,
# I'd rate it 4." after "Score: 3").
REVISION_BEFORE = re.compile(
    r"\b(?:revis\w*|reconsider\w*|on[ \t]+(?:reflection|second[ \t]+thought)|actually)\b[^.!?\n]*\Z", re.IGNORECASE
)
# A bare fraction must end its line or sentence and not follow a date word.
FRACTION_TRAIL = re.compile(r"[ \t]*(?:[.!]?[ \t]*$|[.!](?=\s))", re.MULTILINE)
DATE_BEFORE = re.compile(r"\b(?:on|published|dated|posted|updated|from|since|until)[ \t]*\Z", re.IGNORECASE)
OR_ALTERNATIVE = re.compile(rf"[ \t]*,?[ \t]*or[ \t]+(?:an?[ \t]+)?(?:-?\d|(?:{_WORDS})\b)", re.IGNORECASE)


@lru_cache(maxsize=64)
def strict_patterns(aspect: str | None) -> tuple[tuple[str, re.Pattern[str]], ...]:
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
_DASHES = str.maketrans("\u2012\u2013\u2014\u2212", "----")


def normalise_with_map(text: str) -> tuple[str, list[int] | None]:
    """``text`` folded (``normal_form.fold``: NFKC, no zero-width or bidi controls, look-alike letters read
    as Latin), without markdown emphasis and with dashes unified, so patterns see plain text; and for each
    of its characters the index in ``text`` it came from (None: the same text)."""
    folded, origin = fold_with_map(text)
    if "*" not in folded and "`" not in folded and "_" not in folded:  # most answers: nothing to drop
        clean = folded.translate(_DASHES)
        if clean == text:
            return clean, None
        return clean, list(origin) if origin is not None else list(range(len(clean)))
    kept = [i for i, char in enumerate(folded) if char not in "*`"]
    step = "".join(folded[i] for i in kept)
    dropped = {i for match in _UNDERSCORES.finditer(step) for i in range(*match.span())}
    if dropped:
        kept = [index for j, index in enumerate(kept) if j not in dropped]
    clean = "".join(folded[i] for i in kept).translate(_DASHES)
    if clean == text:
        return clean, None
    return clean, [origin[i] if origin is not None else i for i in kept]


def number(token: str) -> float:
    """``"4"``, ``"3.5"``, ``"3,5"``, ``"-1"`` or ``"four"`` as a float."""
    word = token.lower()
    return float(WORD_NUMBERS[word]) if word in WORD_NUMBERS else float(token.replace(",", "."))
