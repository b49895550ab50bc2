"""Bootstrap intervals: percentile 95 % intervals by resampling units, and the paired bootstrap of a difference.

A *unit* is what is resampled with replacement: a group (SummEval document, Topical-Chat context) for the
group-level statistics, an item for item-level ones and for pairwise metrics. Every resample has as many units
as the data. A statistic that is undefined on a resample (e.g. all resampled groups constant) leaves that
resample out; an interval needs at least half of the resamples to be defined, else it is ``None``.
The generator is seeded (``SEED``), so the same data and ``n`` give the same interval every time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

DEFAULT_RESAMPLES = 1000
SEED = 20240453
LEVEL = 0.95

T = TypeVar("T")
Statistic = Callable[[list[T]], Mapping[str, float | None] | None]


def percentile_interval(values: Sequence[float], level: float = LEVEL) -> list[float] | None:
    """The central ``level`` percentile interval ``[lo, hi]`` of ``values`` (None when empty)."""
    if not values:
        return None
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(np.asarray(values, dtype=float), [tail, 100.0 - tail])
    return [float(low), float(high)]


def _resamples(n_units: int, n: int, seed: int) -> np.ndarray:
    """``n`` rows of ``n_units`` unit indexes drawn with replacement."""
    return np.random.default_rng(seed).integers(0, n_units, size=(n, n_units))


def bootstrap_ci(
    units: Sequence[T], statistic: Statistic, names: Sequence[str], n: int = DEFAULT_RESAMPLES, seed: int = SEED
) -> dict[str, list[float] | None] | None:
    """Percentile 95 % intervals of each named value of ``statistic`` over ``n`` resamples of ``units``.

    ``statistic`` maps a list of units to ``{name: value or None}`` (or None when wholly undefined). Returns
    ``{name: [lo, hi] or None}``, or None when ``n`` is 0 or there are fewer than 2 units.
    """
    if n <= 0 or len(units) < 2:
        return None
    draws: dict[str, list[float]] = {name: [] for name in names}
    for row in _resamples(len(units), n, seed):
        values = statistic([units[i] for i in row]) or {}
        for name in names:
            value = values.get(name)
            if value is not None:
                draws[name].append(float(value))
    return {name: (percentile_interval(v) if len(v) * 2 >= n else None) for name, v in draws.items()}


@dataclass(frozen=True)
class PairedDifference:
    """One statistic of run B minus run A on the units both share, with its paired-bootstrap interval."""

    statistic: str
    a: float | None
    b: float | None
    delta: float | None
    ci95: list[float] | None
    p_value: float | None
    n_units: int
    n_resamples: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)


def two_sided_p(deltas: Sequence[float]) -> float | None:
    """The paired-bootstrap two-sided p of "no difference": twice the smaller tail share at 0, at most 1."""
    if not deltas:
        return None
    array = np.asarray(deltas, dtype=float)
    tail = min(float(np.mean(array <= 0.0)), float(np.mean(array >= 0.0)))
    return min(1.0, 2.0 * tail)


def paired_bootstrap(
    units: Sequence[T],
    statistic_a: Statistic,
    statistic_b: Statistic,
    names: Sequence[str],
    n: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
) -> list[PairedDifference]:
    """Δ = B − A of each named statistic, resampling the shared ``units`` together for both runs.

    The same resample of units feeds both statistics, so what the two runs share (the items' difficulty)
    cancels. ``ci95`` is the percentile interval of the resampled Δ; ``p_value`` is :func:`two_sided_p`.
    """
    full_a, full_b = statistic_a(list(units)) or {}, statistic_b(list(units)) or {}
    draws: dict[str, list[float]] = {name: [] for name in names}
    if n > 0 and len(units) >= 2:
        for row in _resamples(len(units), n, seed):
            sample = [units[i] for i in row]
            a, b = statistic_a(sample) or {}, statistic_b(sample) or {}
            for name in names:
                if a.get(name) is not None and b.get(name) is not None:
                    draws[name].append(float(b[name]) - float(a[name]))  # type: ignore[arg-type]
    out = []
    for name in names:
        a_value, b_value = full_a.get(name), full_b.get(name)
        delta = b_value - a_value if a_value is not None and b_value is not None else None
        enough = len(draws[name]) * 2 >= n and n > 0
        out.append(
            PairedDifference(
                statistic=name,
                a=a_value,
                b=b_value,
                delta=delta,
                ci95=percentile_interval(draws[name]) if enough else None,
                p_value=two_sided_p(draws[name]) if enough else None,
                n_units=len(units),
                n_resamples=len(draws[name]),
            )
        )
    return out
