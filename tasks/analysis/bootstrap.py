"""Bootstrap intervals, the paired bootstrap of a difference, and the minimum-units rule.

A *unit* is what is resampled with replacement: a group (SummEval document, Topical-Chat context) for the
group-level statistics, an item for item-level ones and for pairwise metrics. Every resample has as many units
as the data. A statistic that is undefined on a resample (e.g. all resampled groups constant) leaves that
resample out; an interval needs at least half of the resamples to be defined, else it is ``None``.
The generator is seeded (``SEED``), so the same data and ``n`` give the same interval every time: callers draw
the resamples from the units in a canonical order (by group, then item id: ``records.resampling_key``), not
the order of a run's ``results.jsonl``, which is the order its items finished in and varies with the concurrency.

- **Minimum units** (:func:`too_few_units`): with fewer than ``MIN_UNITS`` (10) units no interval and no p-value
  is computed; the place of the number holds the reason, e.g. ``"too few groups (n=2)"``. A bootstrap over
  n units has only C(2n−1, n) distinct resamples (3 for n = 2, 126 for n = 5) and its nominal 95 % percentile
  interval covers far less: about 50 % at n = 2, 82 % at n = 5, 90 % from n = 10 for a mean of per-document
  ρ in ``benchmarks/bootstrap_coverage.md`` (``python scripts/bench_bootstrap_coverage.py``).
- **Interval methods** (``CI_METHODS``): ``percentile`` (the default: the 2.5th and 97.5th percentiles of the
  resampled values; defined whenever half the resamples are) or ``bca`` (``scipy.stats.bootstrap``'s
  bias-corrected and accelerated interval on the same units; ``None`` where scipy cannot form it, e.g. when
  every resample gives the same value or some resample is undefined).
- **p-values** (:func:`two_sided_p`): the paired-bootstrap p of "no difference", ``2 · (k + 1) / (B + 1)``
  with ``k`` the resamples on the smaller side of 0 and ``B`` the defined resamples: never 0, at least
  ``2 / (B + 1)`` (about 1/B·2) when no resample crosses 0.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from debate_eval.agents.errors import UserError

DEFAULT_RESAMPLES = 1000
#: The most resamples a command takes (``--bootstrap``): 100 times the default, 10 times the 10,000 of careful
#: studies. A percentile interval keeps every resampled value and BCa (scipy) every resample's unit indexes at once,
#: so memory grows with the count times the units: a million resamples of 1,600 items would hold 12.8 GB of indexes.
MAX_RESAMPLES = 100_000
SEED = 20240453
LEVEL = 0.95
MIN_UNITS = 10
PERCENTILE, BCA = "percentile", "bca"
CI_METHODS = (PERCENTILE, BCA)
DEFAULT_CI_METHOD = PERCENTILE

T = TypeVar("T")
Statistic = Callable[[list[T]], Mapping[str, float | None] | None]
# An interval [lo, hi], None (not computed or undefined) or the reason it is withheld ("too few groups (n=2)").
Interval = list[float] | str | None
Intervals = dict[str, list[float] | None] | str | None


def too_few_units(n_units: int, unit: str = "groups", min_units: int = MIN_UNITS) -> str | None:
    """The minimum-units rule: ``"too few groups (n=2)"`` when ``n_units`` < ``min_units``, else None.

    ``unit`` names what is resampled (``groups`` or ``items``). Callers print the returned text in place of
    an interval or p-value (text, JSON and the report), never a number.
    """
    return f"too few {unit} (n={n_units})" if n_units < min_units else None


def check_resamples(n: int, flag: str = "--bootstrap") -> None:
    """A one-line ``UserError`` naming ``flag`` unless ``n`` is a number of resamples from 0 to
    :data:`MAX_RESAMPLES`."""
    if n < 0:
        raise UserError(f"{flag} {n}: give a number of resamples >= 0")
    if n > MAX_RESAMPLES:
        raise UserError(f"{flag} {n}: give at most {MAX_RESAMPLES:,} resamples")


def is_withheld(value: Any) -> bool:
    """Whether an interval or p-value is the minimum-units text rather than a number."""
    return isinstance(value, str)


def normal_quantile() -> float:
    """The standard normal quantile of a two-sided ``LEVEL`` interval (1.96 at 95 %)."""
    from scipy import stats

    return float(stats.norm.ppf(0.5 + LEVEL / 2.0))


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


#: Unit indexes drawn at a time by :func:`resample_blocks` (about 8 MB): a bootstrap over 40,000 items with
#: 1,000 resamples would otherwise hold all 40 million indexes (320 MB) at once.
BLOCK_INDEXES = 1 << 20


def resample_blocks(n_units: int, n: int, seed: int) -> Iterator[np.ndarray]:
    """The rows of ``_resamples(n_units, n, seed)``, the same draws in the same order, a block of rows at a time
    (an even number of rows of about :data:`BLOCK_INDEXES` indexes)."""
    rng = np.random.default_rng(seed)
    rows = max(2, BLOCK_INDEXES // max(n_units, 1) // 2 * 2)
    for start in range(0, n, rows):
        yield rng.integers(0, n_units, size=(min(rows, n - start), n_units))


def resample_rows(n_units: int, n: int, seed: int) -> Iterator[np.ndarray]:
    """The rows of ``_resamples(n_units, n, seed)`` one at a time (drawn a block at a time)."""
    for block in resample_blocks(n_units, n, seed):
        yield from block


def resampled_means(values: np.ndarray, n: int, seed: int) -> np.ndarray:
    """The mean of each of ``n`` resamples of ``values`` (``values[_resamples(...)].mean(axis=1)``, computed a
    block of resamples at a time)."""
    means = [values[block].mean(axis=1) for block in resample_blocks(len(values), n, seed)]
    return np.concatenate(means) if means else np.zeros(0)


def _check_method(method: str) -> None:
    if method not in CI_METHODS:
        raise ValueError(f"ci method {method!r}: choose one of {', '.join(CI_METHODS)}")


def _bca(
    n_units: int, values_of: Callable[[np.ndarray], np.ndarray], n: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """scipy's BCa over unit indexes: (low, high, bootstrap distribution) per value of ``values_of``; NaN
    where scipy cannot form the interval."""
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns (DegenerateDataWarning) where it returns NaN
        result = stats.bootstrap(
            (np.arange(n_units),),
            values_of,
            vectorized=False,
            n_resamples=n,
            method="BCa",
            confidence_level=LEVEL,
            rng=np.random.default_rng(seed),
        )
    low, high = result.confidence_interval
    return np.atleast_1d(low), np.atleast_1d(high), np.atleast_2d(result.bootstrap_distribution)


def _resampled(
    units: Sequence[T], statistic: Statistic, names: Sequence[str], n: int, seed: int, method: str
) -> tuple[dict[str, list[float]], dict[str, list[float] | None]]:
    """Per name, the defined values of ``statistic`` over ``n`` resamples of ``units``, and for BCa scipy's
    interval (None where it cannot form one; no intervals for percentile)."""
    if method == BCA:

        def values_of(indexes: np.ndarray) -> np.ndarray:
            values = statistic([units[i] for i in indexes]) or {}
            return np.array([np.nan if values.get(k) is None else float(values[k]) for k in names])  # type: ignore[arg-type]

        low, high, distribution = _bca(len(units), values_of, n, seed)
        draws = {name: [float(v) for v in row[np.isfinite(row)]] for name, row in zip(names, distribution, strict=True)}
        finite = np.isfinite(low) & np.isfinite(high)
        return draws, {name: [float(low[i]), float(high[i])] if finite[i] else None for i, name in enumerate(names)}
    draws: dict[str, list[float]] = {name: [] for name in names}
    for row in resample_rows(len(units), n, seed):
        values = statistic([units[i] for i in row]) or {}
        for name in names:
            value = values.get(name)
            if value is not None:
                draws[name].append(float(value))
    return draws, {}


def bootstrap_ci(
    units: Sequence[T],
    statistic: Statistic,
    names: Sequence[str],
    n: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
    method: str = DEFAULT_CI_METHOD,
    unit: str = "groups",
    min_units: int = MIN_UNITS,
) -> Intervals:
    """95 % intervals of each named value of ``statistic`` over ``n`` resamples of ``units``.

    ``statistic`` maps a list of units to ``{name: value or None}`` (or None when wholly undefined). Returns
    ``{name: [lo, hi] or None}``; None when ``n`` is 0; the minimum-units text (``"too few groups (n=2)"``)
    when there are fewer than ``min_units`` units. ``method`` is ``percentile`` or ``bca``.
    """
    _check_method(method)
    if n <= 0:
        return None
    withheld = too_few_units(len(units), unit, min_units)
    if withheld or len(units) < 2:
        return withheld
    draws, bca_bounds = _resampled(units, statistic, names, n, seed, method)
    if method == BCA:
        return bca_bounds
    return {name: (percentile_interval(v) if len(v) * 2 >= n else None) for name, v in draws.items()}


@dataclass(frozen=True)
class PairedDifference:
    """One statistic of run B minus run A on the units both share, with its paired-bootstrap interval.

    ``ci95`` and ``p_value`` hold the minimum-units text instead of numbers below ``MIN_UNITS`` units.
    """

    statistic: str
    a: float | None
    b: float | None
    delta: float | None
    ci95: Interval
    p_value: float | str | None
    n_units: int
    n_resamples: int
    ci_method: str = DEFAULT_CI_METHOD
    p_ttest: float | str | None = None  # paired t-test on per-group differences (group level only)
    p_holm: float | str | None = None  # the reported p, Holm-adjusted over the comparison's family

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return dict(self.__dict__)

    @property
    def p_reported(self) -> float | str | None:
        """The p the comparison reports for this statistic (and adjusts in its family): the paired t-test's
        where there is one (group level), else the paired bootstrap's."""
        return self.p_ttest if self.p_ttest is not None else self.p_value

    @property
    def p_at_floor(self) -> bool:
        """Whether no resample crossed 0: ``p_value`` is then the smallest the resamples can show."""
        return (
            isinstance(self.p_value, float)
            and self.n_resamples > 0
            and self.p_value <= 2.0 / (self.n_resamples + 1) + 1e-12
        )


def two_sided_p(deltas: Sequence[float]) -> float | None:
    """The paired-bootstrap two-sided p of "no difference": ``2 · (k + 1) / (B + 1)``, at most 1, where ``k``
    counts the resampled differences on the smaller side of 0 (ties at 0 count on both sides) and ``B`` all of
    them; so p is never 0 (at least ``2 / (B + 1)``), and 1 when every difference is 0."""
    if not deltas:
        return None
    array = np.asarray(deltas, dtype=float)
    smaller = min(int(np.sum(array <= 0.0)), int(np.sum(array >= 0.0)))
    return min(1.0, 2.0 * (smaller + 1) / (len(array) + 1))


def paired_bootstrap(
    units: Sequence[T],
    statistic_a: Statistic,
    statistic_b: Statistic,
    names: Sequence[str],
    n: int = DEFAULT_RESAMPLES,
    seed: int = SEED,
    method: str = DEFAULT_CI_METHOD,
    unit: str = "groups",
    min_units: int = MIN_UNITS,
    resampled: Sequence[T] | None = None,
) -> list[PairedDifference]:
    """Δ = B − A of each named statistic, resampling the shared ``units`` together for both runs.

    ``resampled``: the same units in the order to draw the resamples from (the canonical order of the module
    docstring; default ``units`` as given); A, B and Δ are the statistics of ``units``.

    The same resample of units feeds both statistics, so what the two runs share (the items' difficulty)
    cancels. ``ci95`` is the 95 % interval of the resampled Δ (``method``: percentile or scipy's BCa);
    ``p_value`` is :func:`two_sided_p` of the same resamples. Below ``min_units`` units both hold the
    minimum-units text (:func:`too_few_units`).
    """
    _check_method(method)
    full_a, full_b = statistic_a(list(units)) or {}, statistic_b(list(units)) or {}
    withheld = too_few_units(len(units), unit, min_units) if n > 0 else None
    draws: dict[str, list[float]] = {name: [] for name in names}
    bca_bounds: dict[str, list[float] | None] = {}
    if n > 0 and len(units) >= 2 and not withheld:

        def deltas(sample: list[T]) -> dict[str, float | None]:
            a, b = statistic_a(sample) or {}, statistic_b(sample) or {}
            return {
                k: None if a.get(k) is None or b.get(k) is None else float(b[k]) - float(a[k])  # type: ignore[arg-type]
                for k in names
            }

        draws, bca_bounds = _resampled(units if resampled is None else resampled, deltas, names, n, seed, method)
    out = []
    for name in names:
        a_value, b_value = full_a.get(name), full_b.get(name)
        ci: Interval = withheld
        p: float | str | None = withheld
        if not withheld and len(draws[name]) * 2 >= n > 0:
            ci = bca_bounds.get(name) if method == BCA else percentile_interval(draws[name])
            p = two_sided_p(draws[name])
        delta = b_value - a_value if a_value is not None and b_value is not None else None
        out.append(
            PairedDifference(name, a_value, b_value, delta, ci, p, len(units), len(draws[name]), ci_method=method)
        )
    return out
