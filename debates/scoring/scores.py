"""Score parsing: turn an agent's free-text answer into a number on the aspect's scale, or "no score".

Robust parsing in the style of prometheus-eval and DialEvalML. ``parse_score`` is a pure function; it
never invents a score (no "0 when nothing was found") and never clamps. Rules, in order:

0. ``structured``: the whole answer is one JSON object with a numeric ``score`` (``--structured-output``,
   ``debates/scoring/structured.py``); anything else falls through to the free-text rules.

1. Normalise: fold the text (``normal_form.fold``: NFKC, zero-width and bidi controls removed, look-alike
   Cyrillic/Greek letters read as Latin, any decimal digit as ASCII, one space for a run of spaces: the
   normalisation the copy check compares with, so ``Ｓｃｏｒｅ：４`` written by the agent itself is 4, while a
   copy of it from the judged text is blanked before parsing), drop markdown emphasis (``*``, ``_`` around
   words, backticks) and turn en/em dashes into ``-``.
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
   ``leading_number`` (G-Eval's rule): the message starts with a number followed by a line break, the end,
   or ``.``/``:``/``,``/``)``/`` -`` and a space (``4\n\nThe summary ...``, ``4. The summary is
   consistent.``). It beats the strict matches of rule 2c, the per-turn list and the last number, but not a
   verdict (rule 2b): ``4\n\nCoherence: 2`` is 2. Not taken when it opens a numbered list (``1. Read the
   article``, or a later line starts with the next number), is a year, or is set aside by rule 2a. A leading
   number outside the scale is reported as out of range only when no other rule finds a score.
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

from dataclasses import replace

from debate_eval.debates.scoring.score_patterns import BARE, PER_TURN, normalise_with_map, number
from debate_eval.debates.scoring.score_rules import (
    last_number_rule,
    leading_aside,
    leading_number_rule,
    per_turn_rule,
    strict_rule,
)
from debate_eval.debates.scoring.score_types import STATUSES, ParsedScore, ScoreRange, checked, quote
from debate_eval.debates.scoring.structured import structured_score

__all__ = ["STATUSES", "ParsedScore", "ScoreRange", "parse_score"]


def _in_text(result: ParsedScore, index: list[int] | None) -> ParsedScore:
    """``result`` with its span moved from the normalised text back to the original (``index``: where each
    normalised character came from; None: the same text)."""
    if result.span is None or index is None:
        return result
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
    structured = structured_score(text, scale)  # rule 0: a JSON answer's own "score" (--structured-output)
    if structured is not None:
        return structured
    clean, index = normalise_with_map(text)
    turn_spans = [m.span() for m in PER_TURN.finditer(clean)]
    strict, aside, is_verdict = strict_rule(clean, scale, aspect, turn_spans)
    if strict is not None and is_verdict:
        return _in_text(strict, index)
    bare = BARE.match(clean)
    if bare:
        return _in_text(
            checked(number(bare.group("num")), "bare_number", clean.strip(), scale, bare.span("num")), index
        )
    aside += leading_aside(clean)
    leading = leading_number_rule(clean, scale, aside)
    if leading is not None and leading.ok:
        return _in_text(leading, index)
    result = strict or per_turn_rule(clean, scale) or last_number_rule(clean, scale, aside) or leading
    if result is not None:
        return _in_text(result, index)
    if aside:
        first = clean[aside[0][0] : aside[0][1]]
        return ParsedScore(
            None,
            "no_score",
            "none",
            f"No score: {quote(first)} reads as hypothetical or comparative, and nothing else.",
        )
    return ParsedScore(
        None,
        "no_score",
        "none",
        "No score found: no labelled score, fraction, rating phrase, per-turn list or usable number.",
    )
