"""Combining pairwise verdicts: the majority of a panel, and the two orders of a swapped item."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from debate_eval.debates.scoring.verdicts import TIE, ParsedVerdict, no_verdict


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
