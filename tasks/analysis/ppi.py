"""Prediction-powered inference of a system's mean human score from many judge scores and a few human ratings.

PPI (Angelopoulos et al., Science 2023) and its power-tuned form PPI++ (Angelopoulos, Duchi and Zrnic 2024)
estimate the mean human rating from the judge's scores on all outputs, corrected by the judge's error measured
on the outputs that carry a human rating: the interval stays valid (covers the true mean at its nominal rate)
however biased the judge is, and is narrower than the human-only one when the judge's scores track the humans'.
The computation is the ``ppi-python`` package's (``ppi_mean_pointestimate``, ``ppi_mean_ci`` with the tuned
λ; ``classical_mean_ci`` for the two plain estimates), installed with ``pip install 'debate-eval[ppi]'``.

Beside it, on the same records: the **judge-only** mean (all judge scores, read as if they were human
ratings: biased when the judge is) and the **human-only** mean (the rated outputs alone). Intervals are 95 %;
with fewer than ``MIN_UNITS`` rated outputs the PPI and human-only intervals hold the minimum-units text.
``python scripts/bench_ppi_coverage.py`` measures the coverage on simulated data (``benchmarks/ppi_coverage.md``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from debate_eval.tasks.analysis.bootstrap import LEVEL, MIN_UNITS, too_few_units
from debate_eval.tasks.analysis.records import RecordLike, number, score_row

PPI_EXTRA = "pip install 'debate-eval[ppi]'"
METHOD = "PPI++ (ppi-python: power-tuned lambda)"


def _split(records: Sequence[RecordLike]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(human ratings of the rated outputs with a judge score, their judge scores, the judge scores of the
    unrated outputs, every human rating)."""
    y, y_hat, unlabeled, humans = [], [], [], []
    for record in records:
        row = score_row(record)
        score, human = number(row.score), number(row.human_score)
        if human is not None:
            humans.append(human)
        if score is None:
            continue
        if human is None:
            unlabeled.append(score)
        else:
            y.append(human)
            y_hat.append(score)
    return np.array(y), np.array(y_hat), np.array(unlabeled), np.array(humans)


def ppi_applies(records: Sequence[RecordLike]) -> bool:
    """Whether some of the records' scored outputs are rated and some are not (what PPI is for)."""
    y, _, unlabeled, _ = _split(records)
    return len(y) > 0 and len(unlabeled) > 0


def _ppi() -> Any:
    try:
        import ppi_py
    except ImportError:
        return None
    return ppi_py


def _pair(interval: Any) -> list[float]:
    low, high = interval
    return [float(np.asarray(low).reshape(-1)[0]), float(np.asarray(high).reshape(-1)[0])]


def mean_estimates(
    y: np.ndarray, y_hat: np.ndarray, unlabeled: np.ndarray, humans: np.ndarray | None = None, min_units: int = 2
) -> dict[str, Any]:
    """The PPI++, judge-only and human-only means with 95 % intervals from arrays: ``y`` the human ratings of
    the rated outputs, ``y_hat`` the judge's scores of the same outputs, ``unlabeled`` the judge's scores of
    the others, ``humans`` every human rating (default ``y``). Intervals below ``min_units`` rated outputs hold
    the minimum-units text."""
    humans = y if humans is None else humans
    ppi_py = _ppi()
    alpha = 1.0 - LEVEL
    judged = np.concatenate([y_hat, unlabeled])
    out: dict[str, Any] = {
        "n_rated": len(y),
        "n_unrated": len(unlabeled),
        "method": METHOD,
        "judge_only": {"mean": float(judged.mean()) if len(judged) else None, "ci95": None},
        "human_only": {"mean": float(humans.mean()) if len(humans) else None, "ci95": None},
        "ppi": {"mean": None, "ci95": None},
    }
    if ppi_py is None:
        out["ppi"]["ci95"] = f"ppi-python is not installed: {PPI_EXTRA}"
        return out
    if len(judged) >= 2:
        out["judge_only"]["ci95"] = _pair(ppi_py.classical_mean_ci(judged, alpha=alpha))
    withheld = too_few_units(len(y), "rated items", max(min_units, 2))
    if len(humans) >= max(min_units, 2):
        out["human_only"]["ci95"] = _pair(ppi_py.classical_mean_ci(humans, alpha=alpha))
    else:
        out["human_only"]["ci95"] = too_few_units(len(humans), "rated items", max(min_units, 2))
    if len(y) == 0 or len(unlabeled) == 0:
        return out
    # judge scores that never vary: the tuned lambda divides by their variance (0/0); with lambda = 0 the
    # estimate is the raters' mean, which is what any lambda gives when the judge's scores are all equal
    lam = None if np.var(judged) > 0 else 0.0
    out["ppi"]["mean"] = float(np.asarray(ppi_py.ppi_mean_pointestimate(y, y_hat, unlabeled, lam=lam)).reshape(-1)[0])
    out["ppi"]["ci95"] = withheld or _pair(ppi_py.ppi_mean_ci(y, y_hat, unlabeled, alpha=alpha, lam=lam))
    return out


def system_estimates(records: Sequence[RecordLike], min_units: int = MIN_UNITS) -> dict[str, Any]:
    """:func:`mean_estimates` of one system's records (``score`` the judge's, ``human_score`` where rated)."""
    y, y_hat, unlabeled, humans = _split(records)
    return mean_estimates(y, y_hat, unlabeled, humans, min_units=min_units)
