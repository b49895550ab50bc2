"""DialEvalML's submetric ensemble: per aspect, weights fitted on a dev split of the human ratings.

The runs given are submetrics judged on the same items (e.g. ``dialevalml``, ``geval``, ``debate``). Per
dataset/aspect that every run holds:

- Items judged by every submetric (score not null) and rated by humans are split into dev and test:
  by group when the dataset is meta-evaluated per group (SummEval documents, Topical-Chat contexts), item by
  item otherwise (FED, xDial-Eval); ``dev_fraction`` of them (at least 2, and at least one left for test) go
  to dev, chosen with ``seed``.
- Each submetric's score is put on [0, 1]: ``score_normalized`` when the record has it (DialEvalML), else
  ``(score - low) / (high - low)`` on the scale its run's ``config.json`` names for the aspect, else min-max
  over the submetric's scores of the DEV items only (so nothing of the test items enters the fit; a test
  score outside the dev range maps outside [0, 1]).
- ``correlation`` (the paper's correlation re-scaling, Zhang et al. 2022 as DialEvalML modifies it): each
  submetric's dev Spearman ρ with the humans; a submetric whose ρ is not significant (p > 0.05) gets weight
  0, the others sign(ρ)·ρ² (a significant negative correlation keeps a negative weight); when none is
  significant, max(ρ, 0)² (the original method: negative correlations zeroed); weights scaled to sum of
  absolute values 1; equal weights when all are 0. On a per-group set (split by group) ρ is the mean of the
  per-group ρ over the dev groups (the figure ``meta-eval`` reports) and its significance a one-sample
  t-test of those per-group ρ against 0 (``scipy.stats.ttest_1samp``), not a test over pooled items, whose
  items within one document are not independent.
- ``regression``: least squares of the human scores on the submetric scores with non-negative weights
  (``scipy.optimize.nnls`` on centred data, so the intercept is free).
- The ensemble score of an item is the weighted sum (plus the intercept for ``regression``).

The ensemble is written as a run directory: ``results.jsonl`` holds the TEST items only (so ``meta-eval``
on it reports a correlation the weights never saw), ``dev.jsonl`` the dev items, ``weights.json`` the
weights, the split and the dev/test correlations, ``config.json`` what was combined.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import optimize, stats

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.correlations import ITEM, correlation_level, correlations, pairs
from debate_eval.tasks.analysis.labels import run_scale
from debate_eval.tasks.analysis.records import (
    RecordLike,
    ScoreRow,
    group_of,
    load_results,
    number,
    results_path,
    score_row,
)
from debate_eval.tasks.engine.rundir import RunDir

WEIGHTINGS = ("correlation", "regression")
SIGNIFICANCE = 0.05
MIN_DEV_ITEMS = 2


@dataclass
class Submetric:
    """One run: its label and its records by (dataset, aspect) -> item id."""

    label: str
    path: Path
    records: dict[tuple[str, str], dict[str, ScoreRow]]
    config: dict[str, Any] = field(default_factory=dict)


@dataclass
class AspectFit:
    """The weights of one dataset/aspect and how they do."""

    dataset: str
    aspect: str
    submetrics: list[str]
    weights: list[float]
    intercept: float
    dev_items: list[str]
    test_items: list[str]
    dev_spearman: dict[str, float | None]
    test_correlations: dict[str, dict[str, float] | None]  # submetric (and "ensemble") -> statistics
    split_by: str  # "group" or "item"
    records: list[dict[str, Any]] = field(default_factory=list)  # the ensemble's result lines, dev and test

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (``weights.json``)."""
        return {
            "dataset": self.dataset,
            "aspect": self.aspect,
            "weights": dict(zip(self.submetrics, self.weights, strict=True)),
            "intercept": self.intercept,
            "split_by": self.split_by,
            "dev_items": len(self.dev_items),
            "test_items": len(self.test_items),
            "dev_spearman": self.dev_spearman,
            "test": self.test_correlations,
        }


def load_submetric(name: str | Path) -> Submetric:
    """A run directory (or results file) as a submetric; its ``config.json`` is read when present."""
    path = results_path(name)
    config = (RunDir.of_results(path).config_if_readable() or {}).get("result_config") or {}
    by_part: dict[tuple[str, str], dict[str, ScoreRow]] = {}
    for row in load_results([path]):
        if row.pairwise:
            continue
        by_part.setdefault((str(row.dataset), str(row.aspect)), {})[row.key] = row
    protocols = sorted({row.method for part in by_part.values() for row in part.values()})
    label = "+".join(protocols) or path.parent.name
    return Submetric(label=label, path=path.parent, records=by_part, config=config)


def has_score(record: RecordLike) -> bool:
    """Whether a submetric's record has a score (raw or normalised) to combine."""
    row = score_row(record)
    return number(row.score_normalized) is not None or number(row.score) is not None


def normalised(
    submetric: Submetric, dataset: str, aspect: str, fit_items: Collection[str] | None = None
) -> dict[str, float]:
    """item id -> the submetric's score on [0, 1] (items without a score left out); a min-max scaling (no
    ``score_normalized``, no scale in ``config.json``) is fitted on ``fit_items`` only (all items when None)."""
    part = submetric.records.get((dataset, aspect), {})
    scale = run_scale(submetric.config, aspect)
    raw = {item: number(row.score) for item, row in part.items()}
    values = [v for item, v in raw.items() if v is not None and (fit_items is None or item in fit_items)]
    low, high = scale or ((min(values), max(values)) if values else (0.0, 1.0))
    out: dict[str, float] = {}
    for item, row in part.items():
        given = number(row.score_normalized)
        if given is not None:
            out[item] = given
        elif raw[item] is not None:
            out[item] = (raw[item] - low) / (high - low) if high > low else 0.5
    return out


def split(records: Sequence[RecordLike], dataset: str, dev_fraction: float, seed: int) -> tuple[set[str], str]:
    """The dev item ids (by group when the dataset is meta-evaluated per group) and what was split."""
    rows = [score_row(record) for record in records]
    level = correlation_level(dataset, rows)
    unit: Any = (lambda row: row.key) if level == ITEM else group_of
    units = sorted({unit(row) for row in rows})
    random.Random(seed).shuffle(units)
    count = min(len(units) - 1, max(MIN_DEV_ITEMS, round(dev_fraction * len(units))))  # and one test unit left
    dev_units = set(units[:count])
    dev = {row.key for row in rows if unit(row) in dev_units}
    return dev, "item" if level == ITEM else "group"


def _pooled_rho(column: np.ndarray, y: np.ndarray) -> tuple[float | None, float]:
    """Spearman ρ over all rows and its p (None, nan when a side is constant)."""
    if np.all(column == column[0]) or np.all(y == y[0]):
        return None, math.nan
    rho, p = stats.spearmanr(column, y)
    return (float(rho) if math.isfinite(rho) else None), float(p)


def _per_group_rho(column: np.ndarray, y: np.ndarray, groups: Sequence[str]) -> tuple[float | None, float]:
    """The mean of the per-group Spearman ρ (groups with a defined ρ) and the p of a one-sample t-test of
    those ρ against 0 (nan with fewer than 2 groups; 0 when every group has the same non-zero ρ)."""
    rhos = []
    for group in dict.fromkeys(groups):
        rows = [i for i, g in enumerate(groups) if g == group]
        rho, _ = _pooled_rho(column[rows], y[rows]) if len(rows) >= 2 else (None, math.nan)
        if rho is not None:
            rhos.append(rho)
    if len(rhos) < 2:
        return (rhos[0] if rhos else None), math.nan
    if np.all(np.asarray(rhos) == rhos[0]):  # no spread: the t statistic is infinite (or 0/0 at 0)
        return float(rhos[0]), (1.0 if rhos[0] == 0 else 0.0)
    return float(np.mean(rhos)), float(stats.ttest_1samp(rhos, 0.0).pvalue)


def correlation_weights(
    x: np.ndarray, y: np.ndarray, groups: Sequence[str] | None = None
) -> tuple[list[float], list[float | None]]:
    """The paper's correlation re-scaling (see the module docstring): weights and each column's dev ρ.

    With ``groups`` (one group id per row; a per-group set), ρ is the mean per-group ρ and its significance a
    one-sample t-test of the per-group ρ; without, Spearman's own test over all rows.
    """
    rhos: list[float | None] = []
    significant: list[bool] = []
    for column in x.T:
        rho, p = _per_group_rho(column, y, groups) if groups is not None else _pooled_rho(column, y)
        rhos.append(rho)
        significant.append(bool(rho is not None and math.isfinite(p) and p <= SIGNIFICANCE))
    if any(significant):
        raw = [math.copysign(r * r, r) if s and r is not None else 0.0 for r, s in zip(rhos, significant, strict=True)]
    else:
        raw = [max(r, 0.0) ** 2 if r is not None else 0.0 for r in rhos]
    total = sum(abs(w) for w in raw)
    weights = [w / total for w in raw] if total > 0 else [1.0 / len(raw)] * len(raw)
    return weights, rhos


def regression_weights(x: np.ndarray, y: np.ndarray) -> tuple[list[float], float]:
    """Non-negative least squares of ``y`` on the columns of ``x`` with a free intercept."""
    means = x.mean(axis=0)
    weights, _ = optimize.nnls(x - means, y - y.mean())
    return [float(w) for w in weights], float(y.mean() - weights @ means)


def fit_aspect(
    submetrics: Sequence[Submetric], dataset: str, aspect: str, weighting: str, dev_fraction: float, seed: int
) -> AspectFit:
    """Fit the weights of one dataset/aspect and score every shared item (``UserError`` when too few)."""
    base = submetrics[0].records[(dataset, aspect)]
    parts = [s.records.get((dataset, aspect), {}) for s in submetrics]
    shared = [
        item
        for item in base
        if all(item in part and has_score(part[item]) for part in parts) and number(base[item].human_score) is not None
    ]
    if len(shared) < 2 * MIN_DEV_ITEMS:
        raise UserError(
            f"{dataset}/{aspect}: only {len(shared)} items have a score from every run and a human rating; "
            f"an ensemble needs at least {2 * MIN_DEV_ITEMS}"
        )
    dev, split_by = split([base[i] for i in shared], dataset, dev_fraction, seed)
    dev_items = [i for i in shared if i in dev]
    test_items = [i for i in shared if i not in dev]
    if len(dev_items) < MIN_DEV_ITEMS or not test_items:
        raise UserError(
            f"{dataset}/{aspect}: the split left {len(dev_items)} dev and {len(test_items)} test items; "
            "change --dev-fraction"
        )
    scores = [normalised(s, dataset, aspect, fit_items=set(dev_items)) for s in submetrics]
    matrix = {i: np.array([s[i] for s in scores]) for i in shared}
    x_dev = np.array([matrix[i] for i in dev_items])
    y_dev = np.array([float(base[i].human_score) for i in dev_items])
    groups = [group_of(base[i]) for i in dev_items] if split_by == "group" else None
    weights, rhos = correlation_weights(x_dev, y_dev, groups)  # the dev rho are reported for either weighting
    intercept = 0.0
    if weighting == "regression":
        weights, intercept = regression_weights(x_dev, y_dev)
    labels = [s.label for s in submetrics]
    records = [
        _record(base[i], float(np.dot(weights, matrix[i]) + intercept), labels, matrix[i], i in dev) for i in shared
    ]
    test = [r for r in records if r["split"] == "test"]
    test_corr = {
        label: correlations([(float(matrix[i][index]), float(base[i].human_score)) for i in test_items])
        for index, label in enumerate(labels)
    }
    test_corr["ensemble"] = correlations(pairs(test))
    return AspectFit(
        dataset, aspect, labels, weights, intercept, dev_items, test_items,
        dict(zip(labels, rhos, strict=True)), test_corr, split_by, records,
    )  # fmt: skip


def _record(base: ScoreRow, score: float, labels: list[str], values: np.ndarray, dev: bool) -> dict[str, Any]:
    """The ensemble's result line of one item (a ``results.jsonl`` line of the ensemble's run directory)."""
    return {
        "item_id": base.item_id,
        "dataset": base.dataset,
        "aspect": base.aspect,
        "method": "ensemble",
        "group_id": base.group_id,
        "system_id": base.system_id,
        "human_score": base.human_score,
        "score": score,
        "parse_status": "parsed",
        "split": "dev" if dev else "test",
        "error": None,
        "details": {"submetrics": {label: float(v) for label, v in zip(labels, values, strict=True)}},
        "transcript": [],
    }


def fit_ensemble(
    runs: Sequence[str | Path], weighting: str = "correlation", dev_fraction: float = 0.3, seed: int = 0
) -> tuple[list[AspectFit], list[str]]:
    """Fit one ensemble per dataset/aspect that every run holds; a part that cannot be fitted (too few items
    scored by every run) is skipped with one line why (a ``UserError`` when none can be)."""
    if weighting not in WEIGHTINGS:
        raise UserError(f"--weights {weighting}: choose one of {', '.join(WEIGHTINGS)}")
    if not 0 < dev_fraction < 1:
        raise UserError(f"--dev-fraction {dev_fraction}: give a fraction between 0 and 1 (exclusive)")
    if len(runs) < 2:
        raise UserError(f"ensemble: give at least two runs (submetrics), got {len(runs)}")
    submetrics = [load_submetric(run) for run in runs]
    labels = [s.label for s in submetrics]
    for submetric in submetrics:  # labelled by the method, with the folder's name where two share a method
        if labels.count(submetric.label) > 1:
            submetric.label = f"{submetric.label}({submetric.path.name})"
    parts = [key for key in submetrics[0].records if all(key in s.records for s in submetrics[1:])]
    if not parts:
        raise UserError("ensemble: the runs share no dataset/aspect (they must judge the same items)")
    fits, skipped = [], []
    for dataset, aspect in parts:
        try:
            fits.append(fit_aspect(submetrics, dataset, aspect, weighting, dev_fraction, seed))
        except UserError as error:
            skipped.append(str(error))
    if not fits:
        raise UserError("ensemble: nothing to fit: " + "; ".join(skipped))
    return fits, skipped
