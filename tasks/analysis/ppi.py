"""Prediction-powered inference of a system's mean human score from many judge scores and a few human ratings.

PPI (Angelopoulos et al., Science 2023) and its power-tuned form PPI++ (Angelopoulos, Duchi and Zrnic 2024)
estimate the mean human rating from the judge's scores on all outputs, corrected by the judge's error measured
on the outputs that carry a human rating: the interval stays valid (covers the true mean at its nominal rate)
however biased the judge is, and is narrower than the human-only one when the judge's scores track the humans'.
The computation is the ``ppi-python`` package's (``ppi_mean_pointestimate``, ``ppi_mean_ci`` with the tuned
λ; ``classical_mean_ci`` for the two plain estimates), installed with ``pip install 'debate-eval[ppi]'``.

Beside it, on the same records: the **judge-only** mean (all judge scores, read as if they were human
ratings: biased when the judge is) and the **human-only** mean (the rated outputs alone, with the t interval of
the sample standard deviation: a few ratings are what a user starts with). Intervals are 95 %;
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
        out["human_only"]["ci95"] = t_interval(humans)
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


def t_interval(values: np.ndarray) -> list[float]:
    """The 95 % t interval of the mean of ``values`` (the sample standard deviation, n − 1 degrees)."""
    from scipy import stats

    n = len(values)
    half = float(stats.t.ppf(0.5 + LEVEL / 2.0, n - 1) * np.std(values, ddof=1) / np.sqrt(n))
    mean = float(np.mean(values))
    return [mean - half, mean + half]


def system_estimates(records: Sequence[RecordLike], min_units: int = MIN_UNITS) -> dict[str, Any]:
    """:func:`mean_estimates` of one system's records (``score`` the judge's, ``human_score`` where rated)."""
    y, y_hat, unlabeled, humans = _split(records)
    return mean_estimates(y, y_hat, unlabeled, humans, min_units=min_units)


# --- the difference between two systems ------------------------------------------------------------------------


def _normal_p(estimate: float, se: float) -> float:
    from scipy import stats

    if se <= 0.0:
        return 1.0 if estimate == 0.0 else 0.0
    return float(2.0 * stats.norm.sf(abs(estimate) / se))


def _ppi_mean_se(y: np.ndarray, y_hat: np.ndarray, unlabeled: np.ndarray) -> tuple[float, float]:
    """PPI++'s estimate of a mean and its standard error (ppi-python's tuned interval, read back as a z
    interval: it is the estimate ± z · se)."""
    from scipy import stats

    ppi_py = _ppi()
    lam = None if np.var(np.concatenate([y_hat, unlabeled])) > 0 else 0.0
    low, high = _pair(ppi_py.ppi_mean_ci(y, y_hat, unlabeled, alpha=1.0 - LEVEL, lam=lam))
    return (low + high) / 2.0, (high - low) / 2.0 / float(stats.norm.ppf(0.5 + LEVEL / 2.0))


Groups = dict[str, list[tuple[float, float | None]]]  # group -> (judge score, human rating or None) of its outputs


def groups_of(records: Sequence[RecordLike]) -> Groups:
    """The scored outputs of one system's records by group: (judge score, human rating or None)."""
    from debate_eval.tasks.analysis.records import group_of

    out: Groups = {}
    for record in records:
        row = score_row(record)
        score = number(row.score)
        if score is not None:
            out.setdefault(group_of(row), []).append((score, number(row.human_score)))
    return out


def _arrays(outputs: Sequence[tuple[float, float | None]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rated = [(s, h) for s, h in outputs if h is not None]
    return (
        np.array([h for _, h in rated]),
        np.array([s for s, _ in rated]),
        np.array([s for s, h in outputs if h is None]),
    )


def difference_estimate(first: Groups, second: Groups, min_units: int = MIN_UNITS) -> dict[str, Any] | None:
    """PPI++'s estimate of first − second on the human scale, with its 95 % interval and two-sided p.

    **Paired** where the two systems share at least ``min_units`` groups in which both outputs are rated (and one
    more shared group with judge scores only): the PPI++ mean of the per-group differences, ``y`` the human
    difference where both are rated, ``y_hat`` the judge's difference there, the unrated shared groups' judge
    differences as the unlabelled part (a system's outputs in one group count as their mean). **Unpaired**
    otherwise: each system's PPI++ mean, the difference of the two with the standard errors combined. Beside it
    ``human_only``: the same difference from the human ratings alone (the paired or Welch t-test of
    :mod:`system_pairs`), so the width PPI saves shows. None when ppi-python is missing or PPI has nothing to
    correct (a system without both rated and unrated outputs).
    """
    from debate_eval.tasks.analysis.system_pairs import pair_test

    if _ppi() is None:
        return None
    labelled, unlabelled = [], []
    for group in first:
        if group not in second:
            continue
        a, b = first[group], second[group]
        judge = float(np.mean([s for s, _ in a]) - np.mean([s for s, _ in b]))
        if all(h is not None for _, h in a) and all(h is not None for _, h in b):
            labelled.append((float(np.mean([h for _, h in a]) - np.mean([h for _, h in b])), judge))
        else:
            unlabelled.append(judge)
    humans = {
        name: {g: [h for _, h in outs if h is not None] for g, outs in side.items()}
        for name, side in (("first", first), ("second", second))
    }
    human_only = pair_test(humans["first"], humans["second"], min_units)
    if len(labelled) >= max(min_units, 2) and unlabelled:
        y, y_hat = np.array([d for d, _ in labelled]), np.array([j for _, j in labelled])
        estimate, se = _ppi_mean_se(y, y_hat, np.array(unlabelled))
        n_rated, n_unrated, paired = len(labelled), len(unlabelled), True
    else:
        sides = [_arrays([o for outs in side.values() for o in outs]) for side in (first, second)]
        if any(len(y) == 0 or len(u) == 0 for y, _, u in sides):
            return None
        n_rated, n_unrated, paired = sum(len(y) for y, _, _ in sides), sum(len(u) for _, _, u in sides), False
        withheld = too_few_units(min(len(y) for y, _, _ in sides), "rated items", max(min_units, 2))
        if withheld:
            return {"paired": False, "n_rated": n_rated, "n_unrated": n_unrated, "difference": None,
                    "ci95": withheld, "p_value": withheld, "human_only": human_only}  # fmt: skip
        (ma, sa), (mb, sb) = (_ppi_mean_se(*side) for side in sides)
        estimate, se = ma - mb, float(np.hypot(sa, sb))
    from scipy import stats

    half = float(stats.norm.ppf(0.5 + LEVEL / 2.0)) * se
    return {
        "paired": paired,
        "n_rated": n_rated,
        "n_unrated": n_unrated,
        "difference": estimate,
        "ci95": [estimate - half, estimate + half],
        "p_value": _normal_p(estimate, se),
        "human_only": human_only,
    }
