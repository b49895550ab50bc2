"""The one normalisation under which markers, scores and verdicts are read and copies are compared.

Judged text is untrusted, and a planted marker need not be written in ASCII: a fullwidth
``ＮＯ ＩＳＳＵＥ``, a zero-width space in ``NO\\u200bISSUE``, a fullwidth ``Ｓｃｏｒｅ：５`` or ``［［Ｂ］］``, a
``NО ISSUE`` whose ``О`` is Cyrillic, or a marker wrapped in bidi controls all look like the marker. A
model that copies such a text back tends to write the plain form. So every place that reads a marker or a
score (the NO ISSUE check, the score and verdict parsers, ChatEval's verdict lines, Fennec's side scores)
and the copy check that blanks what an agent copied from the judged texts see both texts through
``fold``; the copy check also case-folds and compares words, so spacing and punctuation never matter there.

``fold`` (idempotent, case kept):

- NFKC's compatibility mapping: fullwidth and mathematical letters and digits, ligatures, circled and
  superscript forms become the plain ones (``Ｓｃｏｒｅ：５`` -> ``Score:5``, ``［［Ｂ］］`` -> ``[[B]]``);
- format characters are removed: zero-width spaces and joiners, bidi embeddings, overrides and isolates, the
  soft hyphen, the word joiner, the byte-order mark, tag characters; and other control characters but tab
  and line breaks;
- letters of the Cyrillic and Greek scripts that look like Latin ones become those (``О`` -> ``O``, ``Α`` ->
  ``A``), as do Latin small capitals (``ɴᴏ`` -> ``no``) and a few Latin variants (dotless ``ı``); this is
  the part of Unicode's confusables list that turns up in English text, not all of it;
- a Latin letter or digit loses its diacritics and overlays (``N̲O̲`` -> ``NO``, ``é`` -> ``e``); any other
  letter keeps them (NFC);
- every decimal digit becomes its ASCII digit (``٥`` -> ``5``);
- every space becomes one plain space, every line break one ``\\n``.

``fold_with_map`` also returns, for every character of the result, the index of the character of the input
it came from, so a parser that reads the folded text can report positions in the original.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Letters of other scripts (and Latin variants) that look like Latin letters: what a planted marker uses.
_LOOKALIKES = {
    # Cyrillic capitals and small letters
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M", "О": "O",
    "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I", "Ԍ": "G",
    "а": "a", "с": "c", "е": "e", "і": "i", "ј": "j", "о": "o", "р": "p", "ѕ": "s", "х": "x", "у": "y",
    "ү": "y", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l",
    # Greek capitals and small letters
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J", "Ϝ": "F",
    "ο": "o", "ν": "v", "ι": "i", "α": "a", "ρ": "p", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j", "κ": "k",
    # Latin small capitals and variants
    "ᴀ": "a", "ʙ": "b", "ᴄ": "c", "ᴅ": "d", "ᴇ": "e", "ꜰ": "f", "ɢ": "g", "ʜ": "h", "ɪ": "i", "ᴊ": "j",
    "ᴋ": "k", "ʟ": "l", "ᴍ": "m", "ɴ": "n", "ᴏ": "o", "ᴘ": "p", "ʀ": "r", "ꜱ": "s", "ᴛ": "t", "ᴜ": "u",
    "ᴠ": "v", "ᴡ": "w", "ʏ": "y", "ᴢ": "z", "ı": "i", "ȷ": "j", "ɡ": "g", "ɑ": "a",
    # punctuation a marker is written with that NFKC leaves alone
    "∶": ":", "꞉": ":", "ː": ":", "⟦": "[[", "⟧": "]]",
}  # fmt: skip
_LINE_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_PLAIN = re.compile(r"[\x20-\x7e\n]*")  # ASCII text that needs no folding but of its spaces
_PLAIN_SPACES = re.compile(r" {2,}")
_SPECIAL = re.compile(r"[^\x20-\x7e\n]+")  # what folding may change (but runs of spaces)


@functools.lru_cache(maxsize=4096)
def _fold_cluster(cluster: str) -> str:
    """One base character and the marks that follow it, folded (see the module docstring)."""
    pieces: list[str] = []
    for char in unicodedata.normalize("NFKD", cluster):
        category = unicodedata.category(char)
        if category == "Cf" or (category == "Cc" and char not in "\t" + _LINE_BREAKS):
            continue  # zero-width, bidi, soft hyphen, tags; control characters
        if char in _LINE_BREAKS:
            pieces.append("\n")
        elif category.startswith("Z") or char == "\t":
            pieces.append(" ")
        elif category == "Nd":
            pieces.append(str(unicodedata.digit(char)))
        else:
            pieces.append(_LOOKALIKES.get(char, char))
    folded = "".join(pieces)
    if folded[:1].isascii():  # a Latin letter, a digit or ASCII punctuation: drop its diacritics and overlays
        return "".join(char for char in folded if not unicodedata.category(char).startswith("M"))
    return unicodedata.normalize("NFC", folded)


def fold_with_map(text: str) -> tuple[str, list[int] | None]:
    """``fold(text)`` and, for each of its characters, the index in ``text`` it came from (None when the
    folded text is ``text`` itself)."""
    if _PLAIN.fullmatch(text) and "  " not in text:
        return text, None
    out: list[str] = []
    origin: list[int] = []
    cursor = 0
    for special in _SPECIAL.finditer(text):
        if special.start() > cursor:  # plain ASCII: as it is
            out.append(text[cursor : special.start()])
            origin.extend(range(cursor, special.start()))
        _fold_run(text, special.start(), special.end(), out, origin)
        cursor = special.end()
    out.append(text[cursor:])
    origin.extend(range(cursor, len(text)))
    folded = "".join(out)
    if "  " in folded:  # one space for a run of spaces
        keep = [i for i, char in enumerate(folded) if char != " " or i == 0 or folded[i - 1] != " "]
        folded, origin = "".join(folded[i] for i in keep), [origin[i] for i in keep]
    return folded, origin


def _fold_run(text: str, start: int, end: int, out: list[str], origin: list[int]) -> None:
    """Fold ``text[start:end]`` (characters other than printable ASCII) onto ``out`` and ``origin``."""
    index = start
    while index < end:
        stop = index + 1
        while stop < end and unicodedata.category(text[stop]).startswith("M"):
            stop += 1  # the marks of this base character
        cluster = text[index:stop]
        if cluster == "\r" and stop < len(text) and text[stop] == "\n":
            folded = ""  # "\r\n" is one line break
        elif unicodedata.category(cluster[0]).startswith("M") and index > 0 and text[index - 1].isascii():
            folded = ""  # marks on the ASCII letter or digit before the run
        else:
            folded = _fold_cluster(cluster)
        out.append(folded)
        origin.extend([index] * len(folded))
        index = stop


def fold(text: str) -> str:
    """``text`` under the one normalisation of marker and score reading (see the module docstring)."""
    if _PLAIN.fullmatch(text):
        return _PLAIN_SPACES.sub(" ", text)
    return fold_with_map(text)[0]
