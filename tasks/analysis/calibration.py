"""Calibrating a judge to the human scale from labelled items (``debate-eval calibrate``).

From the items that carry both a judge score and a human rating, a **monotone map** from the judge's score to
the human scale: isotonic regression (pool-adjacent-violators, ``scipy.optimize.isotonic_regression``, on the
distinct scores weighted by their counts), read between the fitted scores by linear interpolation and held
constant beyond the ends, which is what scikit-learn's ``IsotonicRegression(out_of_bounds="clip")`` does
(``tests/tasks/analysis/test_calibration.py`` checks the two agree). The map is monotone, so it never changes
the order of the judge's scores: rank correlations stay as they are; what changes is the level and spacing.

Every figure about the map is **cross-fitted**: the labelled items are split into K folds (seeded), the map is
fitted on K − 1 and applied to the held-out fold, so each item's calibrated score comes from a map that never
saw its label and the "after" errors are honest (a map fitted and scored on the same items would look better
than it is).

- **Calibration error**, before (the raw score read as if it were on the human scale) and after (cross-fitted):
  the mean absolute error ``mae`` and the expected calibration error ``ece`` (the items binned by the score
  being judged: by value when it takes at most ten values, else in ten equal-count bins; the bins' mean
  |mean human − mean score|, weighted by their sizes), each with a 95 % bootstrap interval over items, and
  the paired difference before − after with its interval.
- **Transfer across systems**: the cross-fitted residual (human − calibrated) of each system's items, its
  mean with a t interval, and Welch's t-test of that system's residuals against every other system's; the
  p-values Holm-adjusted over the systems, a system **flagged** when its adjusted p is below 0.05: one map
  does not fit it (the judge is biased for or against that system in a way the others' labels do not show).
  Step-down (:func:`transfer_by_system`): a flagged system leaves the map's fit and the test is run again, so
  one biased system does not make the others look biased too. Systems need 10 labelled items to be tested.
- **Applied** to the unlabelled items (the run's own, or another run's): the calibrated mean on the human scale
  by cross-prediction-powered inference (Zrnic and Candès 2024): the mean of the K fold maps' predictions on
  the unlabelled items, corrected by the mean cross-fitted residual of the labelled ones; its normal interval
  adds the two variances, so it accounts for the labels the map was fitted on. Overall and per system. (The
  same computation as ``ppi_py.crossppi_mean_ci``, which the tests check it against.)

Labels chosen by lowest confidence are not a random sample of the run: the map may still help, but the
intervals assume randomly (or proportionally stratified) chosen labels (``label --choose stratified``).
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats
from scipy.optimize import isotonic_regression

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import (
    DEFAULT_RESAMPLES,
    MIN_UNITS,
    SEED,
    normal_quantile,
    percentile_interval,
    too_few_units,
)
from debate_eval.tasks.analysis.labels import scale_of_run
from debate_eval.tasks.analysis.ppi import t_interval
from debate_eval.tasks.analysis.records import RecordLike, number, resampling_key, score_row
from debate_eval.tasks.analysis.system_pairs import holm
from debate_eval.tasks.engine.rundir import RunDir, read_json_object

DEFAULT_FOLDS = 5
ECE_BINS = 10
FLAG_P = 0.05
MIN_SYSTEM_ITEMS = MIN_UNITS  # items of a system (and of the others) for its test


@dataclass(frozen=True)
class MonotoneMap:
    """A fitted isotonic map: the distinct judge scores (``knots``) and the human-scale value at each."""

    knots: tuple[float, ...]
    values: tuple[float, ...]

    @classmethod
    def fit(cls, scores: Sequence[float], ratings: Sequence[float]) -> MonotoneMap:
        """The least-squares non-decreasing map from ``scores`` to ``ratings`` (ties pooled, weighted)."""
        x, y = np.asarray(scores, dtype=float), np.asarray(ratings, dtype=float)
        knots, inverse, counts = np.unique(x, return_inverse=True, return_counts=True)
        means = np.bincount(inverse, weights=y) / counts
        fitted = isotonic_regression(means, weights=counts.astype(float), increasing=True).x
        return cls(tuple(float(k) for k in knots), tuple(float(v) for v in fitted))

    def __call__(self, scores: Sequence[float] | np.ndarray) -> np.ndarray:
        """The calibrated scores (linear between knots, constant beyond the ends)."""
        return np.interp(np.asarray(scores, dtype=float), self.knots, self.values)


@dataclass
class Calibration:
    """The calibration of one judge's scores (one dataset and aspect) from its labelled items."""

    n_labelled: int
    folds: int
    map: MonotoneMap
    error_before: dict[str, Any]
    error_after: dict[str, Any]
    improvement: dict[str, Any]
    by_system: list[dict[str, Any]] = field(default_factory=list)
    applied: dict[str, Any] = field(default_factory=dict)
    scale: tuple[float, float] | None = None
    reliability: dict[str, Any] = field(default_factory=dict)

    @property
    def flagged(self) -> list[str]:
        """The systems whose residual differs significantly from the others' (the map does not transfer)."""
        return [entry["system"] for entry in self.by_system if entry.get("flagged")]

    def to_dict(self) -> dict[str, Any]:
        """The calibration as JSON (``calibrate --json``)."""
        return {
            "n_labelled": self.n_labelled,
            "folds": self.folds,
            "scale": list(self.scale) if self.scale else None,
            "map": {"knots": list(self.map.knots), "values": list(self.map.values)},
            "error_before": self.error_before,
            "error_after": self.error_after,
            "improvement": self.improvement,
            "by_system": self.by_system,
            "flagged": self.flagged,
            "applied": self.applied,
            "reliability": self.reliability,
        }


def _folds(n: int, k: int, seed: int) -> list[int]:
    order = list(range(n))
    random.Random(seed).shuffle(order)
    rank = {index: position for position, index in enumerate(order)}
    return [rank[index] % k for index in range(n)]


def cross_fitted(scores: np.ndarray, ratings: np.ndarray, k: int, seed: int) -> tuple[np.ndarray, list[MonotoneMap]]:
    """Each item's calibrated score from the map fitted on the other folds, and the K fold maps."""
    fold = np.asarray(_folds(len(scores), k, seed))
    maps = []
    out = np.empty(len(scores))
    for part in range(k):
        held = fold == part
        fitted = MonotoneMap.fit(scores[~held], ratings[~held])
        maps.append(fitted)
        out[held] = fitted(scores[held])
    return out, maps


def _bins(predicted: np.ndarray) -> np.ndarray:
    distinct = np.unique(predicted)
    if len(distinct) <= ECE_BINS:
        return np.searchsorted(distinct, predicted)
    ranks = stats.rankdata(predicted, method="ordinal") - 1
    return (ranks * ECE_BINS) // len(predicted)


def _bin_means(predicted: np.ndarray, ratings: np.ndarray) -> list[tuple[float, float, int]]:
    """Per bin of ``predicted`` (:func:`_bins`): its mean prediction, mean rating and size."""
    bins = _bins(predicted)
    return [
        (float(predicted[bins == b].mean()), float(ratings[bins == b].mean()), int((bins == b).sum()))
        for b in np.unique(bins)
    ]


def expected_calibration_error(predicted: np.ndarray, ratings: np.ndarray) -> float:
    """Σ_bins (n_b / n) |mean rating − mean prediction| over the bins of the prediction (:func:`_bins`)."""
    return float(
        sum(size * abs(rating - mean) for mean, rating, size in _bin_means(predicted, ratings)) / len(predicted)
    )


def _intervals(
    before: np.ndarray, after: np.ndarray, ratings: np.ndarray, resamples: int, seed: int
) -> list[dict[str, Any]]:
    """The errors (``mae``, ``ece``) before and after and the gain (before − after), each with its bootstrap
    ``ci95`` over items when ``resamples`` > 0."""

    def figures(pick: Any) -> list[dict[str, Any]]:
        errors = [
            {"mae": float(np.abs(predicted - rated).mean()), "ece": expected_calibration_error(predicted, rated)}
            for predicted, rated in ((before[pick], ratings[pick]), (after[pick], ratings[pick]))
        ]
        return [*errors, {name: errors[0][name] - errors[1][name] for name in errors[0]}]

    out = figures(slice(None))
    if resamples > 0:
        rng = np.random.default_rng(seed)
        draws = [figures(rng.integers(0, len(ratings), len(ratings))) for _ in range(resamples)]
        for index, target in enumerate(out):
            target["ci95"] = {name: percentile_interval([draw[index][name] for draw in draws]) for name in list(target)}
    return out


def transfer_by_system(
    scores: np.ndarray, ratings: np.ndarray, systems: Sequence[str | None], k: int, seed: int
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Per system: n, mean residual (human − calibrated) with a t interval, Welch's t-test of its residuals
    against the other systems' (``p``), Holm-adjusted over the systems tested (``p_holm``) and ``flagged``; and
    every labelled item's cross-fitted residual.

    Step-down, so that one system that does not fit does not pull the common map away from the others and get
    them flagged too: the map is cross-fitted on the systems not flagged so far, the most significant of those
    is flagged when its Holm-adjusted p is below ``FLAG_P``, and the test is run again without it, until none
    is. A flagged system's items are calibrated by the map of the systems that were not flagged (which never saw
    them) and tested against those systems' residuals."""
    labels = np.asarray([str(s) if s is not None else "" for s in systems])
    names = sorted({str(name) for name in labels if name})
    flagged: list[str] = []
    while True:
        pool = ~np.isin(labels, flagged)
        residuals = np.empty(len(scores))
        fitted, _ = cross_fitted(scores[pool], ratings[pool], k, seed)
        residuals[pool] = ratings[pool] - fitted
        if (~pool).any():
            residuals[~pool] = ratings[~pool] - MonotoneMap.fit(scores[pool], ratings[pool])(scores[~pool])
        entries = [_system_entry(name, residuals, labels, pool) for name in names]
        tested = [i for i, entry in enumerate(entries) if "p" in entry]
        for i, p in zip(tested, holm([entries[i]["p"] for i in tested]), strict=True):
            entries[i]["p_holm"] = p
            entries[i]["flagged"] = entries[i]["system"] in flagged
        candidates = [e for e in entries if "p_holm" in e and e["system"] not in flagged and e["p_holm"] < FLAG_P]
        if not candidates or len(names) - len(flagged) <= 2:
            return entries, residuals
        flagged.append(min(candidates, key=lambda e: e["p"])["system"])


def _system_entry(name: str, residuals: np.ndarray, labels: np.ndarray, pool: np.ndarray) -> dict[str, Any]:
    inside = labels == name
    own, rest = residuals[inside], residuals[~inside & pool & (labels != "")]
    entry: dict[str, Any] = {"system": name, "n": int(inside.sum()), "residual": float(own.mean())}
    if len(own) < MIN_SYSTEM_ITEMS or len(rest) < MIN_SYSTEM_ITEMS:
        entry["ci95"] = too_few_units(len(own), "items", MIN_SYSTEM_ITEMS) or "too few items of the other systems"
        return entry
    entry["ci95"] = t_interval(own)
    entry["p"] = float(stats.ttest_ind(own, rest, equal_var=False).pvalue)
    return entry


def cross_ppi_mean(ratings: np.ndarray, predicted: np.ndarray, unlabelled: np.ndarray) -> dict[str, Any]:
    """Cross-prediction-powered mean: ``unlabelled`` is N × K (each fold map's prediction of each unlabelled
    item), ``predicted`` the labelled items' cross-fitted predictions. Mean and 95 % normal interval."""
    n, big_n = len(ratings), unlabelled.shape[0]
    imputed = unlabelled.mean(axis=1)
    mean = float(imputed.mean() + (ratings - predicted).mean())
    spread = math.sqrt(imputed.var() / big_n + (predicted - ratings).var() / n)
    half = normal_quantile() * spread
    return {"mean": mean, "ci95": [float(mean - half), float(mean + half)]}


def _applied(
    maps: Sequence[MonotoneMap],
    ratings: np.ndarray,
    predicted: np.ndarray,
    unlabelled: np.ndarray,
    label_systems: Sequence[str | None],
    unlabelled_systems: Sequence[str | None],
) -> dict[str, Any]:
    def one(rated: np.ndarray, unrated: np.ndarray) -> dict[str, Any]:
        judge = unlabelled[unrated]
        entry: dict[str, Any] = {"n_labelled": int(rated.sum()), "n_unlabelled": int(unrated.sum())}
        entry["judge_only"] = float(judge.mean()) if len(judge) else None
        if not len(judge):
            entry["calibrated"] = "no unlabelled items"
        elif withheld := too_few_units(int(rated.sum()), "labelled items", MIN_UNITS):
            entry["calibrated"] = withheld
        else:
            stacked = np.column_stack([m(judge) for m in maps])
            entry["calibrated"] = cross_ppi_mean(ratings[rated], predicted[rated], stacked)
        return entry

    out = one(np.ones(len(ratings), bool), np.ones(len(unlabelled), bool))
    labelled = np.asarray([str(s) for s in label_systems])
    unrated = np.asarray([str(s) for s in unlabelled_systems])
    names = sorted({str(s) for s in unlabelled_systems if s is not None})
    if names:
        out["systems"] = {name: one(labelled == name, unrated == name) for name in names}
    return out


def reliability_points(scores: np.ndarray, ratings: np.ndarray) -> dict[str, Any]:
    """The reliability diagram's data: per bin of the judge score (:func:`_bins`), the bin's mean score, mean
    human rating and size."""
    return {"points": [list(point) for point in _bin_means(scores, ratings)]}


def calibrate_records(
    records: Sequence[RecordLike],
    *,
    apply_to: Sequence[RecordLike] | None = None,
    folds: int = DEFAULT_FOLDS,
    bootstrap: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
    scale: tuple[float, float] | None = None,
) -> Calibration:
    """Calibrate the judge of ``records`` (one dataset and aspect of single-score records) from those with a
    score and a human rating; the map is applied to ``apply_to`` (default: the records with a score and no
    rating). ``folds`` for the cross-fitting, ``bootstrap`` resamples for the error intervals (0: none)."""
    if isinstance(folds, bool) or not isinstance(folds, Integral) or folds < 2:
        raise UserError(f"--folds {folds!r}: give 2 or more")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, Integral) or bootstrap < 0:
        raise UserError(f"--bootstrap {bootstrap!r}: give a number of resamples >= 0")
    rows = [score_row(record) for record in records]
    if any(row.pairwise for row in rows):
        raise UserError("calibrate maps scores onto a human scale; a pairwise run has verdicts (use meta-eval)")
    parts = {(str(row.dataset), str(row.aspect), row.method) for row in rows}
    if len(parts) > 1:
        raise UserError(
            f"calibrate reads one judge on one aspect; these records hold {len(parts)} dataset/aspect/method parts"
        )
    # in the canonical order (by group, then item id): the seeded folds and resamples draw positions in this list
    labelled = sorted(
        (r for r in rows if number(r.score) is not None and number(r.human_score) is not None), key=resampling_key
    )
    if len(labelled) < MIN_UNITS:
        raise UserError(
            f"calibrate needs at least {MIN_UNITS} items with a judge score and a human rating; found {len(labelled)}"
        )
    k = max(2, min(folds, len(labelled)))
    scores = np.asarray([float(r.score) for r in labelled])  # type: ignore[arg-type]
    ratings = np.asarray([float(r.human_score) for r in labelled])  # type: ignore[arg-type]
    predicted, maps = cross_fitted(scores, ratings, k, seed)
    before, after, gain = _intervals(scores, predicted, ratings, bootstrap, seed)
    by_system, _ = transfer_by_system(scores, ratings, [r.system_id for r in labelled], k, seed)
    targets = [score_row(r) for r in apply_to] if apply_to is not None else rows
    if apply_to is not None:
        dataset, aspect, method = next(iter(parts))
        other = {(str(r.dataset), str(r.aspect), r.method) for r in targets}
        if any(r.pairwise for r in targets) or other != {(dataset, aspect, method)}:
            found = ", ".join(sorted(f"{d}/{a} ({m})" for d, a, m in other)) or "no records"
            raise UserError(
                f"--apply: the map is {dataset}/{aspect} judged by {method}; the run to apply it to holds {found}"
                + (" with verdicts" if any(r.pairwise for r in targets) else "")
            )
    unlabelled = [
        r for r in targets if number(r.score) is not None and (apply_to is not None or number(r.human_score) is None)
    ]
    applied = _applied(
        maps,
        ratings,
        predicted,
        np.asarray([float(r.score) for r in unlabelled]),  # type: ignore[arg-type]
        [r.system_id for r in labelled],
        [r.system_id for r in unlabelled],
    )
    reliability = reliability_points(scores, ratings)
    full = MonotoneMap.fit(scores, ratings)
    reliability["map"] = [[x, y] for x, y in zip(full.knots, full.values, strict=True)]
    return Calibration(
        n_labelled=len(labelled),
        folds=k,
        map=full,
        error_before=before,
        error_after=after,
        improvement=gain,
        by_system=by_system,
        applied=applied,
        scale=scale,
        reliability=reliability,
    )


def _recorded_models(run: str | Path) -> dict[str, str] | None:
    """The model of each role of ``run`` (a run directory or its results file), from its ``config.json``; None
    when the run does not record them (an imported run, a results file alone)."""
    folder = Path(run) if Path(run).is_dir() else Path(run).parent
    models = (read_json_object(RunDir(folder).config_path).get("result_config") or {}).get("models")
    if not isinstance(models, Mapping):
        return None
    found = {str(role): str(entry.get("model")) for role, entry in models.items() if isinstance(entry, Mapping)}
    return found or None


def _models_text(models: Mapping[str, str]) -> str:
    if len(set(models.values())) == 1:
        return next(iter(models.values()))
    return ", ".join(f"{role} {model}" for role, model in sorted(models.items()))


def check_apply_run(run: str | Path, apply_run: str | Path, aspect: str | None, flag: str = "--apply") -> None:
    """Refuse, in one line naming both, to apply the map fitted on ``run`` to ``apply_run`` when the two were
    judged by other models or on another scale (method, dataset and aspect: :func:`calibrate_records`); a
    warning on stderr when a run does not record its models, which then cannot be checked."""
    fitted, target = _recorded_models(run), _recorded_models(apply_run)
    if fitted is None or target is None:
        unknown = " and ".join(str(path) for path, models in ((run, fitted), (apply_run, target)) if models is None)
        print(
            f"warning: {flag}: {unknown} records no judge model (no config.json with models); the map's judge "
            "model could not be checked against the run's",
            file=sys.stderr,
        )
    elif fitted != target:
        raise UserError(
            f"{flag} {apply_run}: judged by {_models_text(target)}, but the map was fitted on {run}, judged by "
            f"{_models_text(fitted)}; a map holds for the judge it was fitted on: calibrate with labels of that run"
        )
    if aspect is not None:
        own, other = scale_of_run(run, aspect), scale_of_run(apply_run, aspect)
        if own and other and own != other:
            raise UserError(
                f"{flag} {apply_run}: scored on the scale {other[0]:g}-{other[1]:g}, but the map was fitted on "
                f"{run}'s scale {own[0]:g}-{own[1]:g}; apply it to a run on the same scale"
            )
