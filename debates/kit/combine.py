"""Combining K samples of a judge: the scores' mean or majority, the verdicts' majority or mean preference.

Scores (single items), over the samples that have one:

- ``mean``: their mean;
- ``majority``: the score most samples gave; when several scores are given equally often, the mean of those
  scores (order-independent, and between the tied values).

Verdicts (pairwise items), over the samples that have one:

- ``majority``: the verdict most samples gave (``tie`` counts as a verdict of its own); when two verdicts are
  given equally often, ``tie`` (a split jury), as ChatEval's panel majority;
- ``mean``: the mean preference, ``first`` = +1, ``tie`` = 0, ``second`` = -1: ``first`` when above 0,
  ``second`` when below, ``tie`` at 0.

A sample without a score or verdict does not vote; with no vote at all there is none.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import FIRST, SECOND, TIE, ParsedVerdict, no_verdict

MEAN, MAJORITY = "mean", "majority"
COMBINES = (MEAN, MAJORITY)
PREFERENCE = {FIRST: 1, TIE: 0, SECOND: -1}


def combine_scores(parses: Sequence[ParsedScore], how: str) -> ParsedScore:
    """One score from the samples' parsed scores (``how``: ``mean`` or ``majority``)."""
    values = [p.value for p in parses if p.ok and p.value is not None]
    method = f"sample_{how}"
    counted = f"{len(values)}/{len(parses)} samples scored"
    if not values:
        return ParsedScore(None, "no_score", method, f"{counted}: no sample has a score")
    if how == MEAN:
        return ParsedScore(sum(values) / len(values), "parsed", method, f"{counted}; the score is their mean")
    counts = Counter(values).most_common()
    top = [value for value, count in counts if count == counts[0][1]]
    if len(top) == 1:
        return ParsedScore(top[0], "parsed", method, f"{counted}; {counts[0][1]} gave {top[0]:g}")
    tied = ", ".join(f"{v:g}" for v in sorted(top))
    reason = f"{counted}; {tied} tie with {counts[0][1]} each, so their mean"
    return ParsedScore(sum(top) / len(top), "parsed", method, reason)


def combine_verdicts(parses: Sequence[ParsedVerdict], how: str) -> ParsedVerdict:
    """One verdict from the samples' parsed verdicts (``how``: ``majority`` or ``mean``)."""
    votes = [p.value for p in parses if p.ok and p.value is not None]
    method = f"sample_{how}"
    listed = ", ".join(votes)
    counted = f"{len(votes)}/{len(parses)} samples with a verdict"
    if not votes:
        return no_verdict(f"No verdict: {counted}.")
    if how == MEAN:
        preference = sum(PREFERENCE[v] for v in votes) / len(votes)
        value = FIRST if preference > 0 else SECOND if preference < 0 else TIE
        return ParsedVerdict(value, "parsed", method, f"{counted} ({listed}); mean preference {preference:+.2f}.")
    counts = Counter(votes).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return ParsedVerdict(TIE, "parsed", method, f"{counted} ({listed}); split, so a tie.")
    value, count = counts[0]
    return ParsedVerdict(value, "parsed", method, f"{counted} ({listed}); {count} say {value}.")
