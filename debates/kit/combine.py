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

Also here: a panel's majority verdict (ChatEval's referees, G-Eval's samples: ``majority_verdict``) and the
verdict of the two orders of a swapped item (``combine_orders``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

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


def majority_verdict(finals: Mapping[str, ParsedVerdict]) -> ParsedVerdict:
    """ChatEval's answer extractor for comparisons: the verdict most referees gave, ``tie`` when no verdict
    has more votes than every other (a split panel). Referees without a verdict do not vote; with no vote at
    all there is no verdict."""
    votes = {name: parsed.value for name, parsed in finals.items() if parsed.ok and parsed.value is not None}
    missing = [name for name in finals if name not in votes]
    if not votes:
        return no_verdict("No verdict: no referee's last message had a verdict.")
    counts = Counter(votes.values()).most_common()
    listed = ", ".join(f"{name} {value}" for name, value in votes.items())
    note = f" (no verdict: {', '.join(missing)})" if missing else ""
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return ParsedVerdict(TIE, "parsed", "referee_majority", f"Split panel, so a tie: {listed}{note}.")
    value, count = counts[0]
    return ParsedVerdict(value, "parsed", "referee_majority", f"{count} of {len(votes)} referees: {listed}{note}.")


def combine_orders(original: ParsedVerdict, swapped_back: ParsedVerdict) -> tuple[ParsedVerdict, bool | None]:
    """The item's verdict from both orders (``swapped_back``: the swapped order's verdict already put back in
    the original order) and whether they agree: the agreeing verdict, ``tie`` when they disagree (position
    bias shows up as ties), no verdict when either order has none."""
    if not (original.ok and swapped_back.ok):
        side = "the original order" if not original.ok else "the swapped order"
        return no_verdict(f"No verdict: {side} gave none."), None
    if original.value == swapped_back.value:
        return ParsedVerdict(original.value, "parsed", "swap_agreement", f"Both orders: {original.value}."), True
    reason = f"The orders disagree (original {original.value}, swapped {swapped_back.value}), so a tie."
    return ParsedVerdict(TIE, "parsed", "swap_disagreement", reason), False
