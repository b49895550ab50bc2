"""Which items of a run to give a person to label (``debate-eval label --choose``).

- ``stratified`` (the default): the items fall into strata by system, by the judge's score (its value when the
  run uses at most ten distinct ones, else its quintile; a pairwise item's verdict) and, when the records carry
  a ``confidence``, by its tercile; each stratum gets its share of the K labels in proportion to its size
  (largest remainders; every stratum at least one while K allows), drawn at random within it (seeded). This is a
  proportionally stratified random sample: every system and every part of the judge's scale is labelled, and
  the labelled items stand for the run as a random sample does, which prediction-powered intervals
  (``meta-eval --labels``, PPI) and the calibration assume. Over a simple random sample it removes the chance
  of a draw that misses a system or the rare scores, so the intervals narrow.
- ``lowest-confidence``: the K items whose ``confidence`` is lowest (the judge's hardest cases; ties drawn at
  random). Useful to see where the judge fails, or to set a cascade's thresholds; **not** a random sample, so
  PPI's and the calibration's intervals do not hold for labels chosen this way (the page records the choice).
- ``random``: a simple random sample (seeded).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from debate_eval.agents.errors import UserError

STRATIFIED, LOWEST_CONFIDENCE, RANDOM = "stratified", "lowest-confidence", "random"
CHOICES = (STRATIFIED, LOWEST_CONFIDENCE, RANDOM)
DEFAULT_LABELS = 50
MAX_DISTINCT = 10  # scores with at most this many distinct values are strata of their own value


@dataclass(frozen=True)
class Candidate:
    """What the choice reads of one judged item."""

    key: str  # the item's id
    system: str | None = None
    score: float | None = None
    verdict: str | None = None
    confidence: float | None = None


def choose(candidates: Sequence[Candidate], n: int, how: str = STRATIFIED, seed: int = 0) -> list[int]:
    """The indexes of the ``n`` candidates to label (all of them when there are no more), in the order given."""
    if how not in CHOICES:
        raise UserError(f"--choose {how!r}: choose one of {', '.join(CHOICES)}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise UserError(f"--n {n!r}: give a number of items to label >= 1")
    if n >= len(candidates):
        return list(range(len(candidates)))
    rng = random.Random(seed)
    if how == RANDOM:
        return sorted(rng.sample(range(len(candidates)), n))
    if how == LOWEST_CONFIDENCE:
        rated = [i for i, c in enumerate(candidates) if c.confidence is not None]
        if not rated:
            raise UserError("--choose lowest-confidence: the run's records carry no confidence")
        order = sorted(rated, key=lambda i: (candidates[i].confidence, rng.random()))
        return sorted(order[:n])
    strata: dict[tuple[object, ...], list[int]] = {}
    for index, key in enumerate(_strata_keys(candidates)):
        strata.setdefault(key, []).append(index)
    counts = _allocate([len(members) for members in strata.values()], n)
    chosen: list[int] = []
    for members, count in zip(strata.values(), counts, strict=True):
        chosen += rng.sample(members, count)
    return sorted(chosen)


def _strata_keys(candidates: Sequence[Candidate]) -> list[tuple[object, ...]]:
    scores = [c.score for c in candidates if c.score is not None]
    distinct = sorted(set(scores))
    cuts = _quantile_cuts(scores, 5) if len(distinct) > MAX_DISTINCT else None
    confidences = [c.confidence for c in candidates if c.confidence is not None]
    confidence_cuts = _quantile_cuts(confidences, 3) if len(set(confidences)) > 1 else None
    keys = []
    for c in candidates:
        if c.verdict is not None or c.score is None:
            judged: object = c.verdict
        elif cuts is None:
            judged = c.score
        else:
            judged = sum(c.score > cut for cut in cuts)
        confidence = None
        if confidence_cuts is not None and c.confidence is not None:
            confidence = sum(c.confidence > cut for cut in confidence_cuts)
        keys.append((c.system, judged, confidence))
    return keys


def _quantile_cuts(values: Sequence[float], parts: int) -> list[float]:
    ordered = sorted(values)
    return [ordered[min(len(ordered) - 1, math.ceil(len(ordered) * k / parts) - 1)] for k in range(1, parts)]


def _allocate(sizes: Sequence[int], n: int) -> list[int]:
    """Proportional allocation of ``n`` over strata of ``sizes`` (largest remainders), every stratum at least
    one while ``n`` allows (the largest first), never more than a stratum holds."""
    total = sum(sizes)
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    counts = [0] * len(sizes)
    if n <= len(sizes):
        for i in order[:n]:
            counts[i] = 1
        return counts
    shares = [n * size / total for size in sizes]
    counts = [max(1, min(size, math.floor(share))) for size, share in zip(sizes, shares, strict=True)]
    while sum(counts) > n:  # the minimum of one took more than the floor gave: from the largest strata back
        i = max((i for i in range(len(sizes)) if counts[i] > 1), key=lambda i: counts[i] - shares[i])
        counts[i] -= 1
    while sum(counts) < n:
        open_ = [i for i in range(len(sizes)) if counts[i] < sizes[i]]
        i = max(open_, key=lambda i: (shares[i] - counts[i], sizes[i]))
        counts[i] += 1
    return counts
