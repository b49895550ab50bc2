"""The text under evaluation is untrusted: what an agent copies from it must not steer the debate.

A summary that says "NO ISSUE" or "Score: 5" must neither end a debate nor set a score. The debate only
ever looks for those markers in an agent's *own* message, and before looking, ``neutralize`` blanks out
what the agent copied from the material under evaluation:

- a quotation ("...", “...”, «...», `...`) of two or more words whose content appears in that material;
- any run of ``MIN_COPIED_WORDS`` or more consecutive words that appears verbatim in that material.

Both sides are normalised by one function (``canonical_words``), so tokenised text such as SummEval's
("... with burnley . NO ISSUE", "team 's", "does n't") matches the same words written naturally ("burnley.
NO ISSUE", "team's", "doesn't"): case, punctuation, spacing and apostrophes are ignored, a stand-alone
punctuation token is no word at all, and a detached contraction ('s, n't, 're ...) joins the word before it.
Before that, both sides go through ``normal_form.fold`` (NFKC, zero-width and bidi controls removed,
look-alike Cyrillic and Greek letters read as Latin), the same normalisation the marker and score parsers
read with, so a fullwidth ``ＮＯ ＩＳＳＵＥ`` or a zero-width ``NO\u200bISSUE`` in the judged text, copied back
as plain ``NO ISSUE``/``NOISSUE``, is still a copy; every spelling of the NO ISSUE marker (``NO ISSUE``,
``NOISSUE``, ``NO_ISSUES`` ...) is one word there. A bare verdict such as "NO ISSUE." is never a copy.

When the material itself contains a NO ISSUE marker, a Critic that merely *mentions* it ("the summary's
claim of NO ISSUE is unsupported") must not end the debate either: then only a marker that stands as a
sentence of its own at the end of a line (``... step by step. NO ISSUES``, ``**NO_ISSUE**``) counts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from debate_eval.debates.scoring.normal_form import fold, fold_with_map

MIN_COPIED_WORDS = 5
PLACEHOLDER = "[quoted text]"
NO_ISSUE_ANY_CASE = re.compile(r"\bno[\s_-]?issues?\b", re.IGNORECASE)
NO_ISSUE_UPPER = re.compile(r"\bNO[\s_-]?ISSUES?\b")
# the marker as a sentence of its own: after the start of a line or a sentence end, before the end of the line
_VERDICT = r"(?:^|[.!?:;]\s)[\s*_>#-]*{marker}[\s*_.!]*$"
NO_ISSUE_VERDICT_ANY_CASE = re.compile(_VERDICT.format(marker=r"no[\s_-]?issues?"), re.IGNORECASE | re.MULTILINE)
NO_ISSUE_VERDICT_UPPER = re.compile(_VERDICT.format(marker=r"NO[\s_-]?ISSUES?"), re.MULTILINE)
_QUOTED = re.compile(
    r"[\"＂]([^\"＂\n]{1,2000})[\"＂]|[“„]([^“”\n]{1,2000})”|«([^»\n]{1,2000})»|`([^`\n]{1,2000})`"
    r"|「([^」\n]{1,2000})」|『([^』\n]{1,2000})』"
)
_TOKEN = re.compile(r"\S+")
_PIECE = re.compile(r"[^\W_]+")  # letters and digits (any script); everything else separates words
_APOSTROPHES = str.maketrans("", "", "'’‘`´")
_ISSUE = ("issue", "issues")
_MARKER_WORD = "noissue"  # every spelling of the NO ISSUE marker, as one word
_DETACHED_CONTRACTION = re.compile(r"^(?:['’](?:s|re|ve|ll|d|m)|n['’]t)\W*$", re.IGNORECASE)


def canonical_words(text: str) -> list[tuple[str, int, int]]:
    """The words of ``text`` as compared for copies, each with the span of ``text`` it came from.

    ``text`` is folded (``normal_form.fold``) and case-folded, apostrophes removed, split at anything that
    is not a letter or digit (a lone "." gives no word); a detached contraction token ("'s", "n't") is
    joined to the word before it, so "team 's" and "team's" both give "teams"; "no" before "issue(s)" and
    "noissues" are the one word "noissue". The one normalisation of both the material and the agents'
    messages.
    """
    folded, origin = fold_with_map(text)
    words: list[list[Any]] = []
    for match in _TOKEN.finditer(folded):
        token = match.group(0)
        start, end = match.span()
        if origin is not None:
            start, end = origin[start], origin[end - 1] + 1
        if token.isascii() and token.isalnum():  # most words: one piece, no apostrophe, no contraction
            pieces, glue = [token.lower()], False
        else:
            pieces = _PIECE.findall(token.casefold().translate(_APOSTROPHES))
            glue = bool(words) and _DETACHED_CONTRACTION.match(token) is not None
        for index, piece in enumerate(pieces):
            if index == 0 and glue:
                words[-1][0] += piece
                words[-1][2] = end
            elif piece in _ISSUE and words and words[-1][0] == "no":
                words[-1][0] = _MARKER_WORD
                words[-1][2] = end
            else:
                words.append([_MARKER_WORD if piece == "noissues" else piece, start, end])
    return [(word, start, end) for word, start, end in words]


def _norm_words(text: str) -> list[str]:
    return [word for word, _, _ in canonical_words(text)]


@dataclass(frozen=True)
class _Indexed:
    """One judged text as the copy checks read it: whether it holds a NO ISSUE marker, its words joined by
    spaces (with a space at each end) and its runs of ``min_words`` words."""

    has_marker: bool
    joined: str
    grams: frozenset[tuple[str, ...]]


@functools.lru_cache(maxsize=64)
def _indexed(text: str, min_words: int) -> _Indexed:
    """A judged text indexed once, kept for the next items: the items of one document share it (the document
    was folded and indexed again for every item before)."""
    words = _norm_words(text)
    return _Indexed(
        has_marker=NO_ISSUE_ANY_CASE.search(fold(text)) is not None,
        joined=" " + " ".join(words) + " ",
        grams=frozenset(zip(*(words[i:] for i in range(min_words)), strict=False)),
    )


class UntrustedMaterial:
    """The texts under evaluation (document, summary, dialogue, fact, response), indexed for copy checks."""

    def __init__(self, texts: Sequence[str], min_words: int = MIN_COPIED_WORDS) -> None:
        self.min_words = min_words
        indexed = [_indexed(t, min_words) for t in texts if t]
        self.has_marker = any(text.has_marker for text in indexed)
        self._joined = [text.joined for text in indexed]
        self._grams = frozenset().union(*(text.grams for text in indexed))
        self._neutralized: dict[str, str] = {}  # message -> its neutralized text (a debate reads some twice)

    def contains_phrase(self, phrase: str) -> bool:
        """True when ``phrase`` (two words or more) appears word for word in the material."""
        words = _norm_words(phrase)
        if len(words) < 2:
            return False
        needle = " " + " ".join(words) + " "
        return any(needle in text for text in self._joined)

    def neutralize(self, message: str) -> str:
        """``message`` with everything copied from the material replaced by ``[quoted text]`` (kept for the
        material's life: the deciding agent's last answer is read for the score and again for the transcript)."""
        done = self._neutralized.get(message)
        if done is None:
            done = self._neutralized[message] = self._blank_copied_runs(_QUOTED.sub(self._replace_quote, message))
        return done

    def _replace_quote(self, match: re.Match[str]) -> str:
        content = next(g for g in match.groups() if g is not None)
        return PLACEHOLDER if self.contains_phrase(content) else match.group(0)

    def _blank_copied_runs(self, message: str) -> str:
        words = canonical_words(message)
        plain = [word for word, _, _ in words]
        k = self.min_words
        spans: list[tuple[int, int]] = []  # character spans of copied words, in order
        for start in range(len(words) - k + 1):
            if tuple(plain[start : start + k]) in self._grams:
                for _, begin, end in words[start : start + k]:
                    if spans and begin <= spans[-1][1]:
                        spans[-1] = (spans[-1][0], max(spans[-1][1], end))
                    else:
                        spans.append((begin, end))
        pieces: list[str] = []
        cursor = 0
        for begin, end in _merge_adjacent(message, spans):
            pieces += [message[cursor:begin], PLACEHOLDER]
            cursor = end
        pieces.append(message[cursor:])
        return "".join(pieces)


def _merge_adjacent(message: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Join spans separated only by spacing and punctuation (a copied run is one placeholder)."""
    merged: list[tuple[int, int]] = []
    for begin, end in spans:
        if merged and not _PIECE.search(message[merged[-1][1] : begin].translate(_APOSTROPHES)):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((begin, end))
    return merged


def says_no_issue(message: str, material: UntrustedMaterial, *, case_sensitive: bool = False) -> bool:
    """True when an agent's own words (copies of the material removed) contain a NO ISSUE marker.

    Accepted spellings: ``NO ISSUE``, ``NO ISSUES``, ``NO_ISSUE``, ``NO_ISSUES`` (and ``NO-ISSUE``), in any
    case unless ``case_sensitive`` (then upper case only, as the authors' code checked), read after
    ``normal_form.fold`` (so the agent's own fullwidth ``ＮＯ ＩＳＳＵＥ`` counts too). When the material itself
    contains a marker, only a marker standing as a sentence of its own at the end of a line counts.
    """
    if material.has_marker:
        pattern = NO_ISSUE_VERDICT_UPPER if case_sensitive else NO_ISSUE_VERDICT_ANY_CASE
    else:
        pattern = NO_ISSUE_UPPER if case_sensitive else NO_ISSUE_ANY_CASE
    return pattern.search(fold(material.neutralize(message))) is not None
