"""The text under evaluation is untrusted: what an agent copies from it must not steer the debate.

A summary that says "NO ISSUE" or "Score: 5" must neither end a debate nor set a score. The debate only
ever looks for those markers in an agent's *own* message, and before looking, ``neutralize`` blanks out
what the agent copied from the material under evaluation:

- a quotation ("...", “...”, «...», `...`) of two or more words whose content appears in that material;
- any run of ``MIN_COPIED_WORDS`` or more consecutive words that appears verbatim in that material.

Matching ignores case, punctuation and spacing. A bare verdict such as "NO ISSUE." is never a copy.

When the material itself contains a NO ISSUE marker, a Critic that merely *mentions* it ("the summary's
claim of NO ISSUE is unsupported") must not end the debate either: then only a marker that stands as a
sentence of its own at the end of a line (``... step by step. NO ISSUES``, ``**NO_ISSUE**``) counts.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

MIN_COPIED_WORDS = 5
PLACEHOLDER = "[quoted text]"
NO_ISSUE_ANY_CASE = re.compile(r"\bno[\s_-]?issues?\b", re.IGNORECASE)
NO_ISSUE_UPPER = re.compile(r"\bNO[\s_-]?ISSUES?\b")
# the marker as a sentence of its own: after the start of a line or a sentence end, before the end of the line
_VERDICT = r"(?:^|[.!?:;]\s)[\s*_>#-]*{marker}[\s*_.!]*$"
NO_ISSUE_VERDICT_ANY_CASE = re.compile(_VERDICT.format(marker=r"no[\s_-]?issues?"), re.IGNORECASE | re.MULTILINE)
NO_ISSUE_VERDICT_UPPER = re.compile(_VERDICT.format(marker=r"NO[\s_-]?ISSUES?"), re.MULTILINE)
_QUOTED = re.compile(r"\"([^\"\n]{1,2000})\"|“([^”\n]{1,2000})”|«([^»\n]{1,2000})»|`([^`\n]{1,2000})`")
_WORD = re.compile(r"\S+")
_EDGE_PUNCT = string.punctuation + "“”‘’«»„…–—·•¡¿"


def _norm_word(token: str) -> str:
    return token.lower().strip(_EDGE_PUNCT)


def _norm_words(text: str) -> list[str]:
    return [w for w in (_norm_word(t) for t in text.split()) if w]


class UntrustedMaterial:
    """The texts under evaluation (document, summary, dialogue, fact, response), indexed for copy checks."""

    def __init__(self, texts: Sequence[str], min_words: int = MIN_COPIED_WORDS) -> None:
        self.min_words = min_words
        self.has_marker = any(NO_ISSUE_ANY_CASE.search(t) for t in texts if t)
        normalized = [_norm_words(t) for t in texts if t]
        self._joined = [" " + " ".join(words) + " " for words in normalized]
        self._grams: set[tuple[str, ...]] = set()
        for words in normalized:
            self._grams.update(zip(*(words[i:] for i in range(min_words)), strict=False))

    def contains_phrase(self, phrase: str) -> bool:
        """True when ``phrase`` (two words or more) appears word for word in the material."""
        words = _norm_words(phrase)
        if len(words) < 2:
            return False
        needle = " " + " ".join(words) + " "
        return any(needle in text for text in self._joined)

    def neutralize(self, message: str) -> str:
        """``message`` with everything copied from the material replaced by ``[quoted text]``."""
        message = _QUOTED.sub(self._replace_quote, message)
        return self._blank_copied_runs(message)

    def _replace_quote(self, match: re.Match[str]) -> str:
        content = next(g for g in match.groups() if g is not None)
        return PLACEHOLDER if self.contains_phrase(content) else match.group(0)

    def _blank_copied_runs(self, message: str) -> str:
        tokens = list(_WORD.finditer(message))
        words = [_norm_word(t.group(0)) for t in tokens]
        covered = [False] * len(tokens)
        k = self.min_words
        for start in range(len(tokens) - k + 1):
            if tuple(words[start : start + k]) in self._grams:
                for i in range(start, start + k):
                    covered[i] = True
        pieces: list[str] = []
        cursor = 0
        i = 0
        while i < len(tokens):
            if not covered[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(tokens) and covered[j + 1]:
                j += 1
            pieces.append(message[cursor : tokens[i].start()])
            pieces.append(PLACEHOLDER)
            cursor = tokens[j].end()
            i = j + 1
        pieces.append(message[cursor:])
        return "".join(pieces)


def says_no_issue(message: str, material: UntrustedMaterial, *, case_sensitive: bool = False) -> bool:
    """True when an agent's own words (copies of the material removed) contain a NO ISSUE marker.

    Accepted spellings: ``NO ISSUE``, ``NO ISSUES``, ``NO_ISSUE``, ``NO_ISSUES`` (and ``NO-ISSUE``), in any
    case unless ``case_sensitive`` (then upper case only, as the authors' code checked). When the material
    itself contains a marker, only a marker standing as a sentence of its own at the end of a line counts.
    """
    if material.has_marker:
        pattern = NO_ISSUE_VERDICT_UPPER if case_sensitive else NO_ISSUE_VERDICT_ANY_CASE
    else:
        pattern = NO_ISSUE_UPPER if case_sensitive else NO_ISSUE_ANY_CASE
    return pattern.search(material.neutralize(message)) is not None
