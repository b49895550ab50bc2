"""Escalating with a guarantee: a cascade of judges whose thresholds are chosen on labelled items.

Trust or Escalate (Jung et al., ICLR 2025, "cascaded selective evaluation"): judge 1 decides an item when its
confidence is at least τ1; otherwise judge 2 decides when its confidence is at least τ2; otherwise the item is
left for a person (abstained). The thresholds are chosen on a labelled calibration split so that the agreement
with the human labels on the items the cascade decides is at least ``alpha`` with probability at least
``1 - delta`` over the draw of the calibration split.

How a threshold is chosen (``calibrate_threshold``), for one judge on the calibration items that reach it: the
candidate thresholds are a fixed grid on [0, 1] (``threshold_grid``), tested from the highest down (fixed-
sequence testing: each test at the full level, no correction; the first failure stops the sequence). At
threshold λ, the n(λ) items with confidence ≥ λ of which a(λ) agree with the human label give the exact
(Clopper-Pearson) one-sided lower bound of the agreement, ``beta.ppf(level, a, n - a + 1)``; the null "agreement
< alpha" is rejected when that bound is ≥ alpha. The threshold is the lowest one reached before a failure (a
grid point with fewer than ``min_decided`` items is skipped, as the authors' code does); when the highest
testable one already fails, the judge decides nothing. The judges are calibrated in turn, judge 2 on the
calibration items judge 1 left, each at level ``delta / k`` for k judges (Bonferroni: with probability ≥ 1 -
delta every judge's decided items agree at rate ≥ alpha, hence so do all decided items; the authors' code tests
each judge at ``delta``).

What it promises and what not: the probability is over calibration draws (marginal, not for one particular
split); the calibration and new items must be exchangeable (drawn from the same distribution); it is about
the decided items only (abstained items are not covered, and the share abstained is not bounded).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.labelled import DEFAULT_TOLERANCE, align, confidence_value

DEFAULT_GRID = 2001  # candidate thresholds (threshold_grid)
DEFAULT_MIN_DECIDED = 30  # a threshold is tested only with this many calibration items above it (the authors')
ABSTAINED = -1  # who decided an item: a judge's index, or this
NO_ITEM_ACCEPTED = "n/a (no item accepted)"  # in place of a bound over no decided items (text and JSON)


def agreement_lower_bound(agreed: int, decided: int, level: float) -> float:
    """The exact (Clopper-Pearson) one-sided lower confidence bound, at level ``level`` (e.g. 0.05), of an
    agreement rate from ``agreed`` agreements out of ``decided`` items; 0 when nothing agreed or was decided."""
    from scipy.stats import beta

    if decided <= 0 or agreed <= 0:
        return 0.0
    return float(beta.ppf(level, agreed, decided - agreed + 1))


@dataclass(frozen=True)
class Threshold:
    """One judge's calibrated threshold: ``value`` (``math.inf``: it decides nothing), and on the calibration
    items that reached the judge, how many it decided there, how many of those agreed, and the lower bound."""

    value: float
    decided: int
    agreed: int
    lower_bound: float
    reached: int  # calibration items that reached this judge
    level: float  # the test's level (delta over the number of judges)

    @property
    def decides(self) -> bool:
        """False when the judge decides nothing (no threshold passed the test)."""
        return math.isfinite(self.value)

    def to_dict(self) -> dict[str, Any]:
        """The threshold as JSON (``None`` for a judge that decides nothing, whose bound is
        :data:`NO_ITEM_ACCEPTED`)."""
        return {
            "threshold": self.value if self.decides else None,
            "decided": self.decided,
            "agreed": self.agreed,
            "lower_bound": round(self.lower_bound, 6) if self.decided else NO_ITEM_ACCEPTED,
            "reached": self.reached,
            "level": self.level,
        }


def threshold_grid(points: int = DEFAULT_GRID) -> np.ndarray:
    """The candidate thresholds, highest first: 1, then ``points - 2`` values evenly spaced on the logit scale
    from sigmoid(15) down to sigmoid(-15), then 0. Fixed in advance (as fixed-sequence testing needs), and fine
    near 0 and 1, where a reward model's confidences (a sigmoid of its score gap) crowd."""
    if points < 3:
        raise ValueError(f"a threshold grid needs at least 3 points, not {points}")
    inner = 1.0 / (1.0 + np.exp(-np.linspace(15.0, -15.0, points - 2)))
    return np.concatenate(([1.0], inner, [0.0]))


def calibrate_threshold(
    confidence: np.ndarray,
    correct: np.ndarray,
    alpha: float,
    level: float,
    *,
    grid: int = DEFAULT_GRID,
    min_decided: int = DEFAULT_MIN_DECIDED,
) -> Threshold:
    """The lowest threshold of ``threshold_grid(grid)`` reached by fixed-sequence testing from the highest
    (each step: the Clopper-Pearson lower bound, at ``level``, of the agreement of the items at or above the
    threshold is ≥ ``alpha``; thresholds with fewer than ``min_decided`` such items are skipped).
    ``confidence``: per item, NaN for an item the judge cannot decide; ``correct``: agreement with the label."""
    from scipy.stats import beta

    confidence = np.asarray(confidence, dtype=float)
    correct = np.asarray(correct, dtype=bool)
    usable = ~np.isnan(confidence)
    conf, right = confidence[usable], correct[usable]
    chosen = Threshold(math.inf, 0, 0, 0.0, len(confidence), level)
    values = threshold_grid(grid)
    order = np.argsort(-conf, kind="stable")
    sorted_conf, agreed_so_far = conf[order], np.concatenate(([0], np.cumsum(right[order])))
    # items at or above each threshold: sorted_conf is descending, so count those >= value
    decided = np.searchsorted(-sorted_conf, -values, side="right")
    agreed = agreed_so_far[decided]
    tested = decided >= min_decided
    with np.errstate(all="ignore"):
        bounds = np.where(agreed > 0, beta.ppf(level, np.maximum(agreed, 1), decided - agreed + 1), 0.0)
    for index in np.flatnonzero(tested):
        if bounds[index] < alpha:
            break
        chosen = Threshold(
            float(values[index]), int(decided[index]), int(agreed[index]), float(bounds[index]), len(confidence), level
        )
    return chosen


def calibrate_cascade(
    confidences: Sequence[np.ndarray],
    corrects: Sequence[np.ndarray],
    alpha: float,
    delta: float,
    *,
    grid: int = DEFAULT_GRID,
    min_decided: int = DEFAULT_MIN_DECIDED,
) -> list[Threshold]:
    """Each judge's threshold in turn, on the calibration items the judges before it left, at ``delta / k``."""
    check_levels(alpha, delta)
    level = delta / len(confidences)
    left = np.ones(len(confidences[0]), dtype=bool)
    thresholds = []
    for conf, right in zip(confidences, corrects, strict=True):
        conf, right = np.asarray(conf, dtype=float), np.asarray(right, dtype=bool)
        found = calibrate_threshold(conf[left], right[left], alpha, level, grid=grid, min_decided=min_decided)
        thresholds.append(found)
        if found.decides:
            left &= ~(np.nan_to_num(conf, nan=-1.0) >= found.value)
    return thresholds


def assign(confidences: Sequence[np.ndarray], thresholds: Sequence[float]) -> np.ndarray:
    """Which judge decides each item (its index), or ``ABSTAINED``: the first whose confidence reaches its
    threshold."""
    who = np.full(len(confidences[0]), ABSTAINED)
    for index, (conf, value) in enumerate(zip(confidences, thresholds, strict=True)):
        conf = np.nan_to_num(np.asarray(conf, dtype=float), nan=-1.0)
        who[(who == ABSTAINED) & (conf >= value)] = index
    return who


def check_levels(alpha: float, delta: float) -> None:
    """``alpha`` and ``delta`` are probabilities strictly between 0 and 1 (else a ValueError naming which)."""
    for name, value in (("alpha", alpha), ("delta", delta)):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
            raise ValueError(f"{name} must be between 0 and 1 (exclusive), not {value!r}")


@dataclass(frozen=True)
class CascadeOutcome:
    """A cascade applied to items: who decided each (``who``), and with labels the agreement realised."""

    names: tuple[str, ...]
    who: np.ndarray
    cost_per_item: float | None  # judge 1 on every item, judge 2 on those judge 1 passed on (no human cost)
    agreed: int | None  # decided items that agree with the label (None without labels)

    @property
    def decided(self) -> int:
        """Items some judge decided."""
        return int((self.who != ABSTAINED).sum())

    @property
    def agreement(self) -> float | None:
        """The agreement realised on the decided items (None without labels or decided items)."""
        return None if self.agreed is None or not self.decided else self.agreed / self.decided

    def shares(self) -> dict[str, float]:
        """The share of items each judge decided, and ``abstained``."""
        n = max(1, len(self.who))
        out = {name: float((self.who == i).sum()) / n for i, name in enumerate(self.names)}
        out["abstained"] = float((self.who == ABSTAINED).sum()) / n
        return out


def apply_cascade(
    names: Sequence[str],
    confidences: Sequence[np.ndarray],
    thresholds: Sequence[float],
    *,
    corrects: Sequence[np.ndarray] | None = None,
    costs: Sequence[np.ndarray] | None = None,
) -> CascadeOutcome:
    """The cascade on items (``corrects``: each judge's agreement with the label, for the realised agreement;
    ``costs``: each judge's cost per item, judge k's counted only where judges before it passed)."""
    who = assign(confidences, thresholds)
    agreed = None
    if corrects is not None:
        agreed = sum(int(np.asarray(c, dtype=bool)[who == i].sum()) for i, c in enumerate(corrects))
    cost = None
    if costs is not None and len(who):
        total = 0.0
        reached = np.ones(len(who), dtype=bool)
        for index, judge_cost in enumerate(costs):
            total += float(np.nansum(np.asarray(judge_cost, dtype=float)[reached]))
            reached &= who != index
        cost = total / len(who)
    return CascadeOutcome(tuple(names), who, cost, agreed)


@dataclass(frozen=True)
class SplitResult:
    """One calibration/test split: the thresholds chosen and the outcome on the test items."""

    thresholds: tuple[Threshold, ...]
    test: CascadeOutcome


def run_split(
    names: Sequence[str],
    confidences: Sequence[np.ndarray],
    corrects: Sequence[np.ndarray],
    calibration: np.ndarray,
    alpha: float,
    delta: float,
    *,
    costs: Sequence[np.ndarray] | None = None,
    grid: int = DEFAULT_GRID,
    min_decided: int = DEFAULT_MIN_DECIDED,
) -> SplitResult:
    """Calibrate on the items where ``calibration`` is true, apply to the others."""
    cal, test = calibration, ~calibration
    thresholds = calibrate_cascade(
        [c[cal] for c in confidences], [r[cal] for r in corrects], alpha, delta, grid=grid, min_decided=min_decided
    )
    outcome = apply_cascade(
        names,
        [c[test] for c in confidences],
        [t.value for t in thresholds],
        corrects=[r[test] for r in corrects],
        costs=None if costs is None else [c[test] for c in costs],
    )
    return SplitResult(tuple(thresholds), outcome)


@dataclass(frozen=True)
class Simulation:
    """Many random calibration/test splits: how often the realised agreement on the decided test items reached
    ``alpha`` (a split that decided nothing counts as reaching it: it made no claim)."""

    alpha: float
    delta: float
    splits: tuple[SplitResult, ...]
    names: tuple[str, ...]

    @property
    def held(self) -> float:
        """The share of splits whose decided test items agreed at rate ≥ alpha."""
        ok = [s.test.agreement is None or s.test.agreement >= self.alpha for s in self.splits]
        return sum(ok) / len(ok)

    def mean(self, what: str) -> float:
        """The mean over splits of ``agreement`` (over splits that decided something), ``cost``, or a share
        (a judge's name or ``abstained``)."""
        figures = {"agreement": lambda test: test.agreement, "cost": lambda test: test.cost_per_item}
        read = figures.get(what, lambda test: test.shares()[what])
        values = [value for split in self.splits if (value := read(split.test)) is not None]
        return float(np.mean(values)) if values else float("nan")


def simulate(
    names: Sequence[str],
    confidences: Sequence[np.ndarray],
    corrects: Sequence[np.ndarray],
    alpha: float,
    delta: float,
    *,
    splits: int = 200,
    calibration_share: float = 0.5,
    seed: int = 0,
    costs: Sequence[np.ndarray] | None = None,
    grid: int = DEFAULT_GRID,
    min_decided: int = DEFAULT_MIN_DECIDED,
) -> Simulation:
    """``splits`` random calibration/test splits (``calibration_share`` of the items calibrate), seeded."""
    rng = np.random.default_rng(seed)
    options = {"costs": costs, "grid": grid, "min_decided": min_decided}
    results = [
        run_split(names, confidences, corrects, _calibration_split(len(confidences[0]), calibration_share, rng),
                  alpha, delta, **options)
        for _ in range(splits)
    ]  # fmt: skip
    return Simulation(alpha, delta, tuple(results), tuple(names))


def _calibration_split(n: int, share: float, rng: np.random.Generator) -> np.ndarray:
    """A random ``share`` of ``n`` items (rounded) marked to calibrate on, the rest to test."""
    calibration = np.zeros(n, dtype=bool)
    calibration[rng.permutation(n)[: round(share * n)]] = True
    return calibration


# ------------------------------------------------------------------------------------ over finished runs


@dataclass(frozen=True)
class CascadeReport:
    """A cascade over finished runs of the same items: thresholds chosen on a random calibration split of the
    labelled items, and on the held-out test split the share each judge decided, the share abstained, the cost
    and the agreement realised (with its exact 1 - delta lower bound); ``abstained`` lists every item (labelled
    test items and unlabelled ones) the cascade leaves for a person."""

    names: tuple[str, ...]
    alpha: float
    delta: float
    thresholds: tuple[Threshold, ...]
    calibration_items: int
    test: CascadeOutcome
    test_items: int
    tokens_per_item: tuple[float, ...]  # each judge alone, per item
    usd_per_item: tuple[float | None, ...]
    cascade_tokens_per_item: float
    cascade_usd_per_item: float | None
    abstained: tuple[str, ...]
    unlabelled_items: int
    seed: int
    not_shared_items: int = 0  # judged by some runs only: left out

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (``debate-eval cascade --json``)."""
        agreement = self.test.agreement
        return {
            "judges": list(self.names),
            "alpha": self.alpha,
            "delta": self.delta,
            "seed": self.seed,
            "thresholds": [t.to_dict() for t in self.thresholds],
            "calibration_items": self.calibration_items,
            "test_items": self.test_items,
            "test": {
                "shares": self.test.shares(),
                "decided": self.test.decided,
                "agreed": self.test.agreed,
                "agreement": agreement,
                "agreement_lower_bound": (
                    agreement_lower_bound(self.test.agreed or 0, self.test.decided, self.delta)
                    if self.test.decided
                    else NO_ITEM_ACCEPTED
                ),
            },
            "cost": {
                "tokens_per_item": dict(zip(self.names, self.tokens_per_item, strict=True)),
                "usd_per_item": dict(zip(self.names, self.usd_per_item, strict=True)),
                "cascade_tokens_per_item": self.cascade_tokens_per_item,
                "cascade_usd_per_item": self.cascade_usd_per_item,
            },
            "unlabelled_items": self.unlabelled_items,
            "not_shared_items": self.not_shared_items,
            "abstained": list(self.abstained),
        }


def cascade_runs(
    runs: Sequence[Any],
    *,
    alpha: float,
    delta: float,
    labels: Mapping[str, Any] | None = None,
    calibration_share: float = 0.5,
    seed: int = 0,
    tolerance: float | None = None,
    grid: int = DEFAULT_GRID,
    min_decided: int = DEFAULT_MIN_DECIDED,
) -> CascadeReport:
    """The cascade of ``runs`` (``LabelledJudge`` objects, cheapest first) calibrated on ``calibration_share``
    of the labelled items (a seeded random split) and reported on the rest."""
    check_levels(alpha, delta)
    if not 0 < calibration_share < 1:
        raise UserError(f"--calibration must be between 0 and 1 (exclusive), not {calibration_share}")
    if len(runs) < 1:
        raise UserError("a cascade needs at least one run")
    if min_decided < 1:
        raise UserError(f"--min-decided {min_decided}: give 1 or more (the calibration items a threshold is tested on)")
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
        raise UserError(f"--tolerance {tolerance:g}: give a distance >= 0 on the score scale")
    aligned = align(runs, labels, tolerance=DEFAULT_TOLERANCE if tolerance is None else tolerance)
    for name, conf in zip(aligned.names, aligned.confidence, strict=True):
        if len(conf) and np.isnan(conf).all():
            raise UserError(
                f"run {name} records no confidence (its method gives none, or the run predates confidences): "
                "rescore it, or choose a method that records one"
            )
    n = len(aligned.keys)
    if n < 2:
        raise UserError(f"a cascade needs labelled items to calibrate and test on; the runs share {n}")
    calibration = _calibration_split(n, calibration_share, np.random.default_rng(seed))
    _check_reachable(int(calibration.sum()), alpha, delta / len(runs), min_decided, calibration_share)
    split = run_split(
        aligned.names,
        list(aligned.confidence),
        list(aligned.correct),
        calibration,
        alpha,
        delta,
        costs=list(aligned.tokens),
        grid=grid,
        min_decided=min_decided,
    )
    values = [t.value for t in split.thresholds]
    test_keys = [key for key, cal in zip(aligned.keys, calibration, strict=True) if not cal]
    abstained = [key for key, who in zip(test_keys, split.test.who, strict=True) if who == ABSTAINED]
    unlabelled = list(aligned.unlabelled)
    if unlabelled:
        confidences = [
            np.array([confidence_value(run.confidence.get(key)) for key in unlabelled], dtype=float) for run in runs
        ]
        who = assign(confidences, values)
        abstained += [key for key, w in zip(unlabelled, who, strict=True) if w == ABSTAINED]
    costs = [run.cost_per_item(test_keys) for run in runs]
    cascade_usd = None
    if test_keys and all(usd is not None for _, usd in costs):
        usd_rates = [run.usd_per_token or 0.0 for run in runs]
        usd_costs = [tokens[~calibration] * rate for tokens, rate in zip(aligned.tokens, usd_rates, strict=True)]
        cascade_usd = apply_cascade(
            aligned.names, [c[~calibration] for c in aligned.confidence], values, costs=usd_costs
        ).cost_per_item
    return CascadeReport(
        names=aligned.names,
        alpha=alpha,
        delta=delta,
        thresholds=split.thresholds,
        calibration_items=int(calibration.sum()),
        test=split.test,
        test_items=len(test_keys),
        tokens_per_item=tuple(tokens for tokens, _ in costs),
        usd_per_item=tuple(usd for _, usd in costs),
        cascade_tokens_per_item=split.test.cost_per_item or 0.0,
        cascade_usd_per_item=cascade_usd,
        abstained=tuple(sorted(abstained)),
        unlabelled_items=len(unlabelled),
        seed=seed,
        not_shared_items=aligned.not_shared,
    )


def items_to_reach(alpha: float, level: float) -> int:
    """The fewest decided items whose exact lower bound at ``level`` can reach ``alpha``: all of them agreeing,
    the bound is ``level ** (1 / n)``."""
    needed = max(1, math.ceil(math.log(level) / math.log(alpha)))
    while agreement_lower_bound(needed, needed, level) < alpha:  # the float edge of the closed form
        needed += 1
    return needed


def _check_reachable(calibrating: int, alpha: float, level: float, min_decided: int, share: float) -> None:
    """A one-line ``UserError`` when no threshold can pass on ``calibrating`` items, whatever the judges answer:
    the cascade would report that it decides nothing, and the cause is too few labels, not the judges."""

    perfect = items_to_reach(alpha, level)
    needed = max(perfect, min_decided)
    if calibrating >= needed:
        return
    if calibrating < perfect:
        bound = agreement_lower_bound(calibrating, calibrating, level)
        why = (
            f"even if the first judge agreed on all of them, the exact lower bound at level {level:.3g} (--delta over "
            f"the judges) is {bound:.3f}, under --alpha {alpha:g} ({perfect} items needed)"
        )
        instead = "lower --alpha or raise --delta"
    else:
        why = f"a threshold is tested only on --min-decided {min_decided} items or more"
        instead = "lower --min-decided"
    raise UserError(
        f"cascade: {calibrating} labelled calibration items can pass no threshold: {why}; label about "
        f"{math.ceil(needed / Fraction(repr(share)))} items ({needed} to calibrate on at --calibration {share:g}), or "
        f"{instead}"
    )
