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

import math
from bisect import bisect_left
from collections.abc import Sequence
from typing import Any

import numpy as np

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import LEVEL, MIN_UNITS, normal_quantile, too_few_units
from debate_eval.tasks.analysis.records import RecordLike, group_of, number, partition, score_row

PPI_EXTRA = "pip install 'debate-eval[ppi]'"
METHOD = "PPI++ (ppi-python: power-tuned lambda)"


def _split(records: Sequence[RecordLike]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(human ratings of the rated outputs with a judge score, their judge scores, the judge scores of the
    unrated outputs, every human rating)."""
    rows = [score_row(record) for record in records]
    outputs = [(score, number(row.human_score)) for row in rows if (score := number(row.score)) is not None]
    return (*_arrays(outputs), np.array([human for row in rows if (human := number(row.human_score)) is not None]))


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
    out["human_only"]["ci95"] = too_few_units(len(humans), "rated items", max(min_units, 2)) or t_interval(humans)
    if len(y) == 0 or len(unlabeled) == 0:
        return out
    # judge scores that never vary: the tuned lambda divides by their variance (0/0); with lambda = 0 the
    # estimate is the raters' mean, which is what any lambda gives when the judge's scores are all equal
    lam = None if np.var(judged) > 0 else 0.0
    out["ppi"]["mean"] = float(np.asarray(ppi_py.ppi_mean_pointestimate(y, y_hat, unlabeled, lam=lam)).reshape(-1)[0])
    out["ppi"]["ci95"] = too_few_units(len(y), "rated items", max(min_units, 2)) or _pair(
        ppi_py.ppi_mean_ci(y, y_hat, unlabeled, alpha=alpha, lam=lam)
    )
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


def _ppi_mean_se(y: np.ndarray, y_hat: np.ndarray, unlabeled: np.ndarray) -> tuple[float, float]:
    """PPI++'s estimate of a mean and its standard error (ppi-python's tuned interval, read back as a z
    interval: it is the estimate ± z · se)."""
    ppi_py = _ppi()
    lam = None if np.var(np.concatenate([y_hat, unlabeled])) > 0 else 0.0
    low, high = _pair(ppi_py.ppi_mean_ci(y, y_hat, unlabeled, alpha=1.0 - LEVEL, lam=lam))
    return (low + high) / 2.0, (high - low) / 2.0 / normal_quantile()


Groups = dict[str, list[tuple[float, float | None]]]  # group -> (judge score, human rating or None) of its outputs


def groups_of(records: Sequence[RecordLike]) -> Groups:
    """The scored outputs of one system's records by group: (judge score, human rating or None)."""
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
    :mod:`system_pairs`), so the width PPI saves shows. The interval and p use ppi-python's standard error
    (its tuned interval read back) with a t quantile on n − 1 degrees, n the rated documents (the smaller
    system's rated outputs when unpaired), in place of the normal one: the rectifier's variance is estimated
    from those n, and with the normal quantile the interval covered 0.929 at 100 rated documents
    (``benchmarks/systems_pairs.md``). None when ppi-python is missing or PPI has nothing to
    correct (a system without both rated and unrated outputs).
    """
    from debate_eval.tasks.analysis.system_pairs import pair_test, t_test_interval

    if _ppi() is None:
        return None
    labelled, unlabelled = [], []
    for group in first:
        if group not in second:
            continue
        a, b = first[group], second[group]
        judge = sum(s for s, _ in a) / len(a) - sum(s for s, _ in b) / len(b)
        if all(h is not None for _, h in a) and all(h is not None for _, h in b):
            labelled.append((sum(h for _, h in a) / len(a) - sum(h for _, h in b) / len(b), judge))  # type: ignore[misc]
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
        ci95, p_value = t_test_interval(estimate, se, n_rated - 1)
    else:
        sides = [_arrays([o for outs in side.values() for o in outs]) for side in (first, second)]
        if any(len(y) == 0 or len(u) == 0 for y, _, u in sides):
            return None
        n_rated, n_unrated, paired = sum(len(y) for y, _, _ in sides), sum(len(u) for _, _, u in sides), False
        fewest = min(len(y) for y, _, _ in sides)
        estimate, ci95 = None, too_few_units(fewest, "rated items", max(min_units, 2))
        p_value: Any = ci95
        if ci95 is None:
            (ma, sa), (mb, sb) = (_ppi_mean_se(*side) for side in sides)
            estimate = ma - mb
            ci95, p_value = t_test_interval(estimate, float(np.hypot(sa, sb)), fewest - 1)
    return {
        "paired": paired,
        "n_rated": n_rated,
        "n_unrated": n_unrated,
        "difference": estimate,
        "ci95": ci95,
        "p_value": p_value,
        "human_only": human_only,
    }


# --- planning the human labels ---------------------------------------------------------------------------------

#: Labels the planner looks at at most (a width no number of labels below this reaches is "not reachable").
MAX_PLANNED = 1_000_000
#: Outputs per system a plan takes at most (``plan-labels --outputs``): far past any study, inside numpy's integers.
MAX_OUTPUTS = 1_000_000_000


def human_only_labels(sd_human: float, width: float) -> int:
    """The fewest human labels whose 95 % t interval of the mean (sample sd ``sd_human``) is at most ``width``
    wide: the smallest n with 2 · t(n − 1) · sd / √n ≤ width."""
    from scipy import stats

    if sd_human <= 0:
        return 2
    ratio = 2 * normal_quantile() * sd_human / width
    if not math.isfinite(ratio * ratio):  # a float's ``**`` raises OverflowError here
        raise UserError(f"--width {width:g}: so narrow an interval needs more labels than a float can count")
    n = max(2, math.ceil(ratio * ratio))  # the z answer; t needs a few more
    while n < MAX_PLANNED and 2 * float(stats.t.ppf(0.5 + LEVEL / 2.0, n - 1)) * sd_human / np.sqrt(n) > width:
        n += 1
    return n


def ppi_width(n: int, outputs: int | None, sd_human: float, sd_judge: float, covariance: float) -> float:
    """The 95 % width of the PPI++ mean with ``n`` labels among ``outputs`` judged outputs (None: unlimited
    unlabelled outputs): 2 z √(λ² σ_ŷ² / N + (σ_y² − 2 λ c + λ² σ_ŷ²) / n), N = outputs − n unlabelled, with
    PPI++'s λ = c / (σ_ŷ² (1 + n / N)) clipped to [0, 1]."""
    unlabelled = np.inf if outputs is None else outputs - n
    if unlabelled <= 0:
        return 2 * normal_quantile() * sd_human / np.sqrt(n)
    ratio = 0.0 if not np.isfinite(unlabelled) else n / unlabelled
    lam = float(np.clip(covariance / (sd_judge**2 * (1 + ratio)), 0.0, 1.0)) if sd_judge > 0 else 0.0
    imputed = 0.0 if not np.isfinite(unlabelled) else lam**2 * sd_judge**2 / unlabelled
    variance = imputed + (sd_human**2 - 2 * lam * covariance + lam**2 * sd_judge**2) / n
    return float(2 * normal_quantile() * np.sqrt(max(variance, 0.0)))


def ppi_labels(width: float, outputs: int | None, sd_human: float, sd_judge: float, covariance: float) -> int | None:
    """The fewest labels whose PPI++ interval (:func:`ppi_width`) is at most ``width`` wide (None: not reachable
    with ``outputs`` judged outputs)."""
    counts = range(2, (MAX_PLANNED if outputs is None else outputs) + 1)
    if ppi_width(counts[-1], outputs, sd_human, sd_judge, covariance) > width:
        return None
    # the width falls as labels are added: the first count whose width is within ``width``
    return counts[
        bisect_left(counts, True, key=lambda n: ppi_width(n, outputs, sd_human, sd_judge, covariance) <= width)
    ]


def plan_labels(records: Sequence[RecordLike], width: float, outputs: int | None = None) -> dict[str, Any]:
    """From a pilot (records with both a judge score and a human rating), per dataset/aspect and per system: how
    many human labels a 95 % interval of the system's mean human score ``width`` wide needs, from the human
    ratings alone (t interval) and with the judge's scores of all the outputs (PPI++, :func:`ppi_labels`).

    ``outputs``: how many outputs per system the judge scores (default: each system's scored outputs in the
    records). Returns ``{"width", "parts": {"dataset/aspect": {system: {"n_pilot", "sd_human", "sd_judge",
    "correlation", "outputs", "human_only", "with_judge"}}}}``; ``with_judge`` None when ``outputs`` cannot reach
    the width; a system with fewer than 3 pilot labels gets ``"too few pilot labels (n=…)"``.
    """
    from debate_eval.tasks.analysis.systems import ALL_SYSTEMS, natural_key, system_of

    parts: dict[str, Any] = {}
    for (dataset, aspect, _), rows in partition(records).items():
        single = [row for row in rows if not row.pairwise]
        by_system: dict[str, list[Any]] = {}
        for row in single:
            by_system.setdefault(system_of(row) or ALL_SYSTEMS, []).append(row)
        plans: dict[str, Any] = {}
        for name in sorted(by_system, key=natural_key):
            scored = [(number(r.score), number(r.human_score)) for r in by_system[name] if number(r.score) is not None]
            pilot = np.array([(s, h) for s, h in scored if h is not None], dtype=float).reshape(-1, 2)
            if len(pilot) < 3:
                plans[name] = too_few_units(len(pilot), "pilot labels", 3)
                continue
            judge, human = pilot[:, 0], pilot[:, 1]
            sd_human, sd_judge = float(np.std(human, ddof=1)), float(np.std(judge, ddof=1))
            covariance = float(np.cov(human, judge, ddof=1)[0, 1])
            correlation = covariance / (sd_human * sd_judge) if sd_human > 0 and sd_judge > 0 else None
            total = outputs if outputs is not None else len(scored)
            plans[name] = {
                "n_pilot": len(pilot),
                "sd_human": sd_human,
                "sd_judge": sd_judge,
                "correlation": correlation,
                "outputs": total,
                "human_only": human_only_labels(sd_human, width),
                "with_judge": ppi_labels(width, total, sd_human, sd_judge, covariance),
            }
        if plans and any(isinstance(plan, dict) for plan in plans.values()):
            parts[f"{dataset}/{aspect}"] = plans
    return {"width": width, "level": LEVEL, "parts": parts}


PILOT_LABELS = 30  # a plan from fewer pilot labels rests on rough estimates of the spreads: the text says so


def plan_lines(plan: dict[str, Any]) -> list[str]:
    """The label plan as text, one line per system (and one warning when a pilot has too few labels)."""
    lines = [
        f"human labels for a 95% interval of a system's mean human score at most {plan['width']:g} wide "
        "(from the pilot's spread; PPI++ uses the judge's scores of every output)"
    ]
    few: set[str] = set()  # plans from fewer than PILOT_LABELS pilot labels
    for part, plans in plan["parts"].items():
        lines.append(f"{part}:")
        for name, entry in plans.items():
            if isinstance(entry, str):
                lines.append(f"  {name}: {entry}")
                continue
            if entry["n_pilot"] < PILOT_LABELS:
                few.add(f"{part} {name}")
            with_judge = (
                f"{entry['with_judge']} with the judge (PPI++, of {entry['outputs']} judged outputs)"
                if entry["with_judge"] is not None
                else f"not reachable with the judge's {entry['outputs']} outputs"
            )
            correlation = "-" if entry["correlation"] is None else f"{entry['correlation']:.2f}"
            lines.append(
                f"  {name}: {entry['human_only']} human-only, {with_judge}; pilot {entry['n_pilot']} labels, "
                f"human sd {entry['sd_human']:.3f}, judge-human correlation {correlation}"
            )
    if few:
        shown = ", ".join(sorted(few)[:5]) + (" ..." if len(few) > 5 else "")
        lines.append(
            f"rough: {len(few)} plans rest on fewer than {PILOT_LABELS} pilot labels ({shown}); their spreads are "
            f"guesses, label {PILOT_LABELS} or more in the pilot first"
        )
    return lines
