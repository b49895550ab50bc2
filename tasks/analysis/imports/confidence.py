"""How sure a released judge was, from what its published outputs hold: the confidence of an imported record.

- a reward model's score gap (JudgeBench's reward-model outputs): with scores r_A and r_B, the Bradley-Terry
  probability of the preferred response, ``sigmoid(|r_A - r_B|)`` (0.5 for equal scores, near 1 for a wide gap);
- AlpacaEval's preference p in [1, 2] (the GPT-4-Turbo judge's probability-weighted preference): the probability
  of the side it prefers, ``0.5 + |p - 1.5|``;
- an LLM judge's verdicts in both orders (JudgeBench's Arena-Hard outputs): its verdict strength, 1 for
  ``[[A>>B]]`` (significantly better) and 0.5 for ``[[A>B]]`` (slightly better), the mean over the two orders
  when they agree, and 0 when they disagree (as for any ``--swap`` pair).

Like a method's confidence it ranks judgments; ``debate-eval cascade`` turns it into thresholds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

STRONG, WEAK = 1.0, 0.5
_VERDICT = re.compile(r"\[\[\s*([AB])\s*(>>|>|=)\s*([AB])\s*\]\]")


def margin_confidence(margin: float) -> float:
    """``sigmoid(|margin|)``: the preferred response's Bradley-Terry probability from a reward score gap."""
    return 1.0 / (1.0 + math.exp(-abs(float(margin))))


def preference_confidence(preference: float) -> float:
    """``0.5 + |p - 1.5|`` for AlpacaEval's preference p in [1, 2], clipped to [0.5, 1]."""
    return min(1.0, 0.5 + abs(float(preference) - 1.5))


def verdict_strength(text: str) -> float | None:
    """The strength of the last ``[[X>>Y]]`` / ``[[X>Y]]`` verdict in ``text`` (1 or 0.5; 0 for ``=``), or None."""
    found = _VERDICT.findall(text or "")
    if not found:
        return None
    return {">>": STRONG, ">": WEAK, "=": 0.0}[found[-1][1]]


def orders_confidence(consistent: bool | None, strengths: Sequence[float | None]) -> tuple[float, str] | None:
    """A two-order judge's confidence: 0 when the orders disagree, else the mean verdict strength (1 for each
    order without a readable strength); None when an order gave no verdict."""
    if consistent is None:
        return None
    if not consistent:
        return 0.0, "the two orders disagree"
    known = [STRONG if s is None else s for s in strengths]
    value = sum(known) / len(known) if known else STRONG
    return value, f"both orders agree; verdict strength {value:.2f} (1: [[A>>B]], 0.5: [[A>B]])"
