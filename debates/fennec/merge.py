"""Merging the branch judgments into the item's result (the paper's merge step).

- single: the mean of the criterion scores that parsed; branches without a score are left out and named;
  no parsed score at all gives no score;
- pairwise: each branch with a verdict votes +1 for the first response, -1 for the second, 0 for a tie; the
  sum decides (positive: first, negative: second, zero: tie); branches without a verdict do not vote; no
  vote at all gives no verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from debate_eval.debates.kit.combine import PREFERENCE
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.verdicts import FIRST, SECOND, TIE, ParsedVerdict, no_verdict

MEAN = "branch_mean"
PREFERENCE_SUM = "preference_sum"


def merge_scores(parses: Sequence[ParsedScore]) -> ParsedScore:
    """The item's score: the mean of the branches' parsed scores."""
    values = [p.value for p in parses if p.ok and p.value is not None]
    missing = [str(i + 1) for i, p in enumerate(parses) if not p.ok]
    note = f"; no score in branch {', '.join(missing)}" if missing else ""
    if not values:
        return ParsedScore(None, "no_score", MEAN, f"No branch gave a score ({len(parses)} branches).")
    mean = sum(values) / len(values)
    reason = f"Mean of {len(values)} criterion scores ({', '.join(f'{v:g}' for v in values)}){note}."
    return ParsedScore(mean, "parsed", MEAN, reason)


def merge_verdicts(verdicts: Sequence[ParsedVerdict]) -> ParsedVerdict:
    """The item's verdict: the sign of the summed per-criterion preferences."""
    votes = [PREFERENCE[v.value] for v in verdicts if v.ok and v.value in PREFERENCE]
    if not votes:
        return no_verdict(f"No verdict: no branch gave a preference ({len(verdicts)} branches).")
    total = sum(votes)
    value = FIRST if total > 0 else SECOND if total < 0 else TIE
    shown = ", ".join(v.value or "none" for v in verdicts)
    return ParsedVerdict(value, "parsed", PREFERENCE_SUM, f"Summed preferences {total:+d} over branches: {shown}.")
