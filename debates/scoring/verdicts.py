"""Verdict parsing: which of two responses an agent's free-text answer prefers, a tie, or "no verdict".

The pairwise twin of ``scores.parse_score``: a pure function that never invents a verdict (no "A when
nothing was found") and says how it read the answer. Values: ``first`` (the response shown first: A, 1,
Output (a)), ``second`` (B, 2, Output (b)) and ``tie``. Rules, in order:

0. ``structured``: the whole answer is one JSON object whose ``verdict`` is ``A``, ``B`` or ``C``
   (``--structured-output``, ``debates/scoring/structured.py``); anything else falls through.
1. Normalise: fold the text as the copy check does (``normal_form.fold``: NFKC, zero-width and bidi
   controls removed, look-alike Cyrillic/Greek letters read as Latin; ``［［Ｂ］］`` is ``[[B]]``), drop markdown
   emphasis (``*``, ``_`` around words) and turn en/em dashes into ``-``.
2. Patterns, all tried over the whole message:
   ``bracket``    MT-Bench's ``[[A]]``, ``[[B]]``, ``[[C]]`` (C is a tie), also ``[[1]]``, ``[[2]]``, ``[[tie]]``.
   ``labelled``   a label, a separator, then a side: ``Verdict: A``, ``Winner: Response 2``, ``Better
                  response: Output (b)``, ``Final decision: tie``, ``The better answer is Assistant A``,
                  ``So, the final decision is Response 1``. Labels: verdict, winner, decision, judgment,
                  preference, conclusion, choice, better/preferred response|answer|output|one; with ``:``
                  only, ``answer`` and ``result``. A side is a reference (``Response 1``, ``Assistant B``,
                  ``Output (a)``, ``the first response``), a bracket, a tie word (tie, draw, equal,
                  neither, both ... equally good), or a bare ``A``/``B``/``1``/``2``/``first``/``second``
                  that ends its phrase (``Verdict: A clear case ...`` is not a verdict).
   ``statement``  a sentence that names the better one: ``Response 1 is better (than Response 2)``,
                  ``Assistant B's answer is more helpful``, ``Output (a) wins``, ``I prefer Response 2``,
                  ``Assistant B provided a better answer``, ``B is better`` (a capital A or B alone),
                  ``Response 2 is worse`` (so the first), ``it's a tie``, ``both responses are equally
                  good``, ``neither response is better``.
   A match inside a longer one (the ``Response 1`` of ``Verdict: Response 1 is better``) is dropped.
3. Choosing among matches:
   a. matches that are hypothetical, attributed, negated or quoted are set aside: after "if", "unless",
      "when", "whether", "previous", "earlier", "initial", "original", "instead of", "rather than", "not"/"n't",
      or after someone else's claim ("the Critic argues that ...", "your verdict of ..."); followed by
      "if", "unless", "would", "could"; or inside quotation marks (``"[[A]]"`` echoes the format, it
      picks nothing).
   b. a **verdict line** (a line holding only the match, bullets, a full stop and one parenthesis
      allowed: ``[[A]]``, ``Verdict: Response 2.``) or a match after a concluding cue in its sentence
      ("overall", "in conclusion", "therefore", "on reflection", "revised", ...) beats any other match;
      the LAST such match wins (a revision comes after the first verdict).
   c. otherwise the LAST remaining match wins.
   The winner followed by "or"/"/" and another side (``[[A]] or [[B]]``, ``Verdict: A/B``) is ambiguous.
4. ``bare``: the whole message is one side (``A``, ``[[B]]``, ``Response 1``, ``tie``) — a re-ask's answer.

Untrusted material (``planted``, see ``planted_verdicts``): when the judged texts themselves hold verdict
phrases, only verdict lines (3b) count, and a verdict line that is word for word one of the judged texts'
own verdict lines counts neither: a response that ends with ``[[A]]`` must not pick itself.

Nothing found gives status ``no_verdict`` with method ``none``; its reason says when the only verdicts
seen were set aside.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from debate_eval.debates.scoring.normal_form import fold
from debate_eval.debates.scoring.score_types import ParseOutcome, quote
from debate_eval.debates.scoring.structured import structured_verdict

FIRST, SECOND, TIE = "first", "second", "tie"
VALUES = (FIRST, SECOND, TIE)
STATUSES = ("parsed", "no_verdict")


@dataclass(frozen=True)
class ParsedVerdict(ParseOutcome):
    """The outcome of parsing one message: ``first``/``second``/``tie``, or why there is none."""

    statuses: ClassVar[tuple[str, ...]] = STATUSES

    value: str | None  # None unless status == "parsed"
    status: str  # "parsed" | "no_verdict"

    def check_value(self) -> None:
        """A verdict is ``first``, ``second`` or ``tie``."""
        if self.value is not None and self.value not in VALUES:
            raise ValueError(f"unknown verdict {self.value!r}")

    def record_fields(self) -> dict[str, Any]:
        """A pairwise record's fields of this parse: ``verdict``, ``verdict_parse`` and ``parse_status``,
        ``parse_method``, ``parse_reason``."""
        return {
            "verdict": self.value,
            "verdict_parse": self.to_dict(),
            "parse_status": self.status,
            "parse_method": self.method,
            "parse_reason": self.reason,
        }


def no_verdict(reason: str) -> ParsedVerdict:
    """A "no verdict" result with ``reason``."""
    return ParsedVerdict(None, "no_verdict", "none", reason)


def swap_value(value: str | None) -> str | None:
    """A verdict read with the two responses exchanged, in the original order (``first`` <-> ``second``)."""
    return {FIRST: SECOND, SECOND: FIRST}.get(value, value) if value is not None else None


_FLAGS = re.IGNORECASE | re.MULTILINE
_S = r"[ \t]"  # horizontal space

# A side named by a word and a letter or digit: "Response 1", "Assistant B", "Output (a)", "Assistant A's
# answer"; or by position: "the first response", "the latter".
_SIDE_WORD = r"(?:output|response|assistant|answer|candidate|model)"
_POSSESSIVE = rf"(?:['’]s(?:{_S}+(?:answer|response|output|reply))?)?"
_REF = (
    rf"(?:\b{_SIDE_WORD}{_S}*(?:\({_S}*[ab12]{_S}*\)|#?[ab12]\b){_POSSESSIVE}"
    rf"|\bthe{_S}+(?:first|second|former|latter)\b(?:{_S}+(?:one|{_SIDE_WORD}))?)"
)
_BRACKET = rf"\[\[{_S}*(?:a|b|c|tie|1|2){_S}*\]\]"
# A bare side is a side only when it ends its phrase ("Verdict: A." but not "Verdict: A clear win").
_BARE_SIDE = rf"(?:\(?\b(?:[ab12]|first|second)\b\)?)(?={_S}*(?:[.,;:!)\]/]|$|\(|is\b|wins\b|or\b|-{_S}))"
_TIE_WORDS = (
    rf"(?:(?:it['’]?s|it{_S}+is|this{_S}+is|that['’]?s){_S}+)?(?:a{_S}+)?\b(?:tie|draw)\b"
    rf"|\bequal(?:ly{_S}+good)?\b|\bneither\b|\bno{_S}+(?:clear{_S}+)?(?:winner|preference)\b"
    rf"|\bboth(?:{_S}+(?:responses|answers|outputs|assistants|of{_S}+them|are|were)){{0,2}}"
    rf"{_S}+(?:equally|equal|tied|the{_S}+same)\b"
)
_ADVERBS = (
    rf"(?:(?:clearly|slightly|much|significantly|somewhat|marginally|overall|definitely|far|a{_S}+bit"
    rf"|the|generally|noticeably|considerably|probably){_S}+)*"
)
_GOOD = (
    rf"(?:better|superior|stronger|preferable|preferred|the{_S}+winner|more{_S}+(?:helpful|accurate|relevant"
    rf"|complete|informative|useful|correct|appropriate|comprehensive))"
)
_BAD = rf"(?:worse|weaker|inferior|less{_S}+(?:helpful|accurate|relevant|complete|informative|useful|correct))"
_BE = rf"(?:is|was|seems|appears|remains)(?:{_S}+to{_S}+be)?"
_THAN = rf"(?:{_S}+than{_S}+{_REF})?"
# "is better than Response 2", "is worse": a comparison after a side (group ``bad`` names the worse one).
_COMPARED = (
    rf"{_S}+{_BE}{_S}+{_ADVERBS}(?:{_GOOD}|(?P<bad>{_BAD}))(?:{_S}+(?:one|response|answer|output|choice))?{_THAN}"
)
_VALUE = rf"(?P<value>{_BRACKET}|{_REF}|{_TIE_WORDS}|{_BARE_SIDE})"
_LABEL = (
    rf"\b(?:(?:my|the|our|final|overall|revised|updated|new|so|,){_S}*){{0,4}}"
    rf"(?:verdict|winner|decision|judge?ment|preference|conclusion|choice"
    rf"|(?:better|preferred|stronger|winning){_S}+(?:response|answer|output|one|assistant))\b"
)
_SEP = (
    rf"(?:{_S}*[:=]{_S}*|{_S}+-{_S}+|{_S}+(?:is|was|would{_S}+be|goes{_S}+to){_S}+(?:that{_S}+)?)"
    rf"(?:(?:clearly|definitely|probably){_S}+)?"
)
_SHORT_LABEL = rf"\b(?:(?:final){_S}+)?(?:answer|result){_S}*:{_S}*"
_TIE_STATEMENT = (
    rf"(?:\b(?:it['’]?s|it{_S}+is|this{_S}+is|that['’]?s){_S}+a{_S}+(?:tie|draw)\b)"
    rf"|\bboth(?:{_S}+(?:responses|answers|outputs|assistants|of{_S}+them))?{_S}+(?:are|were)"
    rf"{_S}+(?:equally{_S}+\w+|equal|tied|of{_S}+(?:equal|similar|the{_S}+same){_S}+quality)\b"
    rf"|\bneither(?:{_S}+(?:response|answer|output|assistant|one))?{_S}+is{_S}+(?:clearly{_S}+)?better\b"
    rf"|\bthey{_S}+are{_S}+(?:equally{_S}+good|tied|of{_S}+equal{_S}+quality)\b"
    rf"|\bthere{_S}+is{_S}+no{_S}+clear{_S}+winner\b"
)

# (method, pattern, fixed value or None: the side is read from the match's ``value`` group)
_PATTERNS: tuple[tuple[str, re.Pattern[str], str | None], ...] = (
    ("bracket", re.compile(rf"(?P<value>{_BRACKET})", _FLAGS), None),
    ("labelled", re.compile(rf"(?:{_LABEL}{_SEP}|{_SHORT_LABEL}){_VALUE}(?:{_COMPARED})?", _FLAGS), None),
    (
        "statement",
        re.compile(
            rf"(?P<value>{_REF}|(?-i:\b[AB]\b))(?:{_COMPARED}|{_S}+(?:wins|prevails|comes{_S}+out{_S}+ahead)\b"
            rf"|{_S}+(?:provides|provided|gives|gave|offers|offered|writes|wrote|did|does){_S}+(?:a|the){_S}+"
            rf"(?:(?:much|far|slightly|clearly){_S}+)?(?:better|stronger|more{_S}+helpful){_S}+"
            rf"(?:answer|response|job|reply|output)\b)",
            _FLAGS,
        ),
        None,
    ),
    (
        "statement",
        re.compile(
            rf"\bI{_S}+(?:would{_S}+)?(?:prefer|choose|pick|favou?r|select|side{_S}+with|go{_S}+with)"
            rf"{_S}+(?P<value>{_REF}|{_BARE_SIDE})",
            _FLAGS,
        ),
        None,
    ),
    ("statement", re.compile(_TIE_STATEMENT, _FLAGS), TIE),
)

# Rule 3a: hypothetical, earlier, negated or someone else's verdicts.
_ASIDE_BEFORE = re.compile(
    rf"(?:\b(?:if|when|unless|whether|previous(?:ly)?|earlier|initial(?:ly)?|original(?:ly)?|prior|suppose|supposing"
    rf"|assuming|instead{_S}+of|rather{_S}+than|than|versus)\b|\bvs\b\.?)(?:{_S}+[\w'’]+){{0,2}}{_S}*[(\[]?{_S}*\Z"
    rf"|(?:\b(?:not|never)\b|n['’]t\b)(?:{_S}+[\w'’]+)?{_S}*\Z"
    rf"|\b(?:critic|scorer|you|they|others?|he|she|the{_S}+other{_S}+\w+|devil['’]s{_S}+advocate|referees?"
    rf"|[A-Z]\w+_\w+)(?:['’]s)?{_S}+(?:argues?|argued|says?|said|claims?|claimed|suggests?|suggested|thinks?"
    rf"|thought|believes?|believed|insists?|insisted|maintains?|maintained|concludes?|concluded|chose|picked"
    rf"|states?|stated|verdict|choice|decision|judge?ment)(?:{_S}+(?:that|of|is|was))?{_S}*:?{_S}*\Z",
    re.IGNORECASE,
)
_ASIDE_AFTER = re.compile(rf"{_S}*,?{_S}*(?:if|unless|only{_S}+if|would|could|might)\b", re.IGNORECASE)
_QUOTES = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|`[^`\n]*`|„[^“”\n]*[“”]")
# Rule 3b.
_LINE_LEAD = re.compile(rf"[ \t>#+•-]*(?:\d+[.)]{_S}+)?\Z")
_LINE_TRAIL = re.compile(rf"{_S}*[.!]?{_S}*(?:\([^()\n]*\){_S}*[.!]?{_S}*)?$", re.MULTILINE)
_CUE_BEFORE = re.compile(
    rf"\b(?:overall|in{_S}+conclusion|in{_S}+summary|to{_S}+conclude|therefore|thus|hence|finally|ultimately"
    rf"|all{_S}+things{_S}+considered|on{_S}+balance|on{_S}+reflection|on{_S}+second{_S}+thought|revis\w*"
    rf"|reconsider\w*|actually|in{_S}+the{_S}+end|so)\b,?[^.!?\n,;]*\Z",
    re.IGNORECASE,
)
_ANY_SIDE = rf"(?:{_BRACKET}|{_REF}|\(?\b[ab12]\b\)?|\btie\b)"
_AMBIGUOUS_AFTER = re.compile(rf"{_S}*(?:,?{_S}*or|/){_S}*{_ANY_SIDE}", re.IGNORECASE)
_AMBIGUOUS_BEFORE = re.compile(rf"{_ANY_SIDE}{_S}*(?:,?{_S}*or|/){_S}*\Z", re.IGNORECASE)
_UNDERSCORES = re.compile(r"(?<!\w)_+|_+(?!\w)")
_SIDE_IN_VALUE = re.compile(r"\b(first|former|second|latter)\b|\(?\b([ab12c])\b\)?|\b(tie)\b", re.IGNORECASE)


def _normalise(text: str) -> str:
    """Fold the text (``normal_form.fold``: ``［［Ｂ］］`` is ``[[B]]``, a Cyrillic ``В`` is ``B``, zero-width and
    bidi controls are gone), drop markdown emphasis and unify dashes, so patterns see plain text."""
    text = re.sub(r"\*+", "", fold(text))
    text = _UNDERSCORES.sub("", text)
    return re.sub("[\u2012\u2013\u2014\u2212]", "-", text)


def _side(value: str, bad: bool = False) -> str:
    """``first``/``second``/``tie`` for a matched side text; ``bad``: the text names the worse one."""
    if re.search(_TIE_WORDS, value, re.IGNORECASE) and not re.search(_REF, value, re.IGNORECASE):
        return TIE
    found = _SIDE_IN_VALUE.search(value.replace("[[", " ").replace("]]", " "))
    if found is None:  # pragma: no cover - every pattern's value holds a side
        raise ValueError(f"no side in {value!r}")
    word, letter, tie = found.groups()
    if tie or (letter and letter.lower() == "c"):
        return TIE
    key = (word or letter or "").lower()
    side = FIRST if key in ("first", "former", "a", "1") else SECOND
    if bad:
        side = SECOND if side == FIRST else FIRST
    return side


@dataclass(frozen=True)
class _Match:
    method: str
    start: int
    end: int
    value: str  # first / second / tie
    text: str


def _matches(text: str) -> list[_Match]:
    """Every match, in text order, without those inside (or overlapping) an earlier-ranked one."""
    found: list[tuple[int, _Match]] = []
    for rank, (method, pattern, fixed) in enumerate(_PATTERNS):
        for match in pattern.finditer(text):
            value = fixed or _side(match.group("value"), bool(match.groupdict().get("bad")))
            found.append((rank, _Match(method, match.start(), match.end(), value, match.group(0))))
    found.sort(key=lambda item: (-(item[1].end - item[1].start), item[0]))
    kept: list[_Match] = []
    for _, candidate in found:
        if not any(candidate.start < other.end and other.start < candidate.end for other in kept):
            kept.append(candidate)
    return sorted(kept, key=lambda m: (m.end, m.start))


def _line_of(text: str, match: _Match) -> tuple[int, int]:
    start = text.rfind("\n", 0, match.start) + 1
    end = text.find("\n", match.end)
    return start, len(text) if end < 0 else end


def _set_aside(text: str, match: _Match) -> bool:
    """Rule 3a: hypothetical, attributed, negated or quoted."""
    line_start, line_end = _line_of(text, match)
    before = text[max(line_start, match.start - 80) : match.start]
    if _ASIDE_BEFORE.search(before) or _ASIDE_AFTER.match(text, match.end):
        return True
    return any(
        q.start() + line_start <= match.start and match.end <= q.end() + line_start
        for q in _QUOTES.finditer(text[line_start:line_end])
    )


def _is_verdict_line(text: str, match: _Match) -> bool:
    """Rule 3b: the match alone on its line (bullets, a full stop, a parenthesis), or after a cue."""
    line_start, _ = _line_of(text, match)
    if _CUE_BEFORE.search(text, line_start, match.start):
        return True
    return bool(_LINE_LEAD.match(text[line_start : match.start]) and _LINE_TRAIL.match(text, match.end))


def _line_key(line: str) -> str:
    return " ".join(re.findall(r"\w+|\[\[|\]\]", line.casefold()))


def planted_verdicts(texts: Iterable[str]) -> frozenset[str]:
    """The verdict phrases the judged ``texts`` themselves hold, as keys of their lines.

    Pass the result as ``parse_verdict(..., planted=...)``. Empty when no text holds a verdict phrase.
    The set also holds the marker ``"*"`` whenever it is not empty.
    """
    keys: set[str] = set()
    for text in texts:
        if not text:
            continue
        clean = _normalise(text)
        for match in _matches(clean):
            keys.add("*")
            line_start, line_end = _line_of(clean, match)
            keys.add(_line_key(clean[line_start:line_end]))
    return frozenset(keys)


_BARE_MESSAGE = re.compile(
    rf"\A[\s>#•-]*(?P<value>{_BRACKET}|{_REF}|\(?\b(?:[ab12]|first|second)\b\)?|(?:a{_S}+)?(?:tie|draw)\b|equal)"
    rf"[\s.!]*\Z",
    re.IGNORECASE,
)


def parse_verdict(text: str, planted: frozenset[str] = frozenset()) -> ParsedVerdict:
    """Parse which response an agent's free-text ``text`` prefers: ``first``, ``second`` or ``tie``.

    See the module docstring for the rules. ``planted`` (from ``planted_verdicts`` over the judged texts)
    makes only verdict lines count, and not those copied from the judged texts. Never returns a made-up
    verdict: when nothing is found the status is ``no_verdict`` and the value None.
    """
    if not text or not text.strip():
        return no_verdict("No verdict: the message is empty.")
    structured = structured_verdict(text)  # rule 0: a JSON answer's own "verdict" (--structured-output)
    if structured is not None:
        return ParsedVerdict(structured, "parsed", "structured", f"The JSON answer's verdict is {structured}.")
    clean = _normalise(text)
    bare = _BARE_MESSAGE.match(clean)
    if bare and _line_key(clean) not in planted:
        value = _side(bare.group("value"))
        return ParsedVerdict(value, "parsed", "bare", f"The whole answer is {quote(clean.strip())} (bare).")
    matches = _matches(clean)
    aside = [m for m in matches if _set_aside(clean, m)]
    usable = [m for m in matches if m not in aside]
    verdict_lines = [m for m in usable if _is_verdict_line(clean, m)]
    if planted:
        copied = [m for m in verdict_lines if _line_key(clean[slice(*_line_of(clean, m))]) in planted]
        verdict_lines = [m for m in verdict_lines if m not in copied]
        aside += [m for m in usable if m not in verdict_lines]
        usable = verdict_lines
    if not usable:
        if aside:
            why = (
                "the judged texts hold verdict phrases, so only a verdict line of the agent's own counts"
                if planted
                else "it reads as hypothetical, quoted, negated or someone else's"
            )
            return no_verdict(f"No verdict: {quote(aside[0].text)} is set aside ({why}).")
        return no_verdict("No verdict found: no [[A]]/[[B]]/[[C]], labelled verdict or statement of the better one.")
    chosen = (verdict_lines or usable)[-1]
    alternative = _AMBIGUOUS_AFTER.match(clean, chosen.end)
    before = _AMBIGUOUS_BEFORE.search(clean[max(0, chosen.start - 40) : chosen.start])
    if alternative or before:
        shown = (before.group(0) if before else "") + chosen.text + (alternative.group(0) if alternative else "")
        return no_verdict(f"No clear verdict: {quote(shown)} is ambiguous.")
    return ParsedVerdict(chosen.value, "parsed", chosen.method, f"Matched {quote(chosen.text)} ({chosen.method}).")
