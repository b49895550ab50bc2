"""Which system is better: every pair of systems tested, the family adjusted, and the ranks each system can hold.

The input is each system's per-item values grouped by what the items share (``system -> group -> values``: a
SummEval document, an AlpacaEval instruction, the source text of own data). :func:`compare_values` gives:

- **Per pair** (each unordered pair once, in the order the systems are given): ``difference`` = mean of the
  first − mean of the second with its 95 % t interval and two-sided p. Where the two systems share at least
  ``min_units`` groups the test is the **paired t-test** on the per-group differences over the shared groups
  (``test = "paired t"``; a system with several values in one group counts their mean; ``wins`` / ``ties`` /
  ``losses``: groups where the first is higher / equal / lower); otherwise **Welch's t-test** on all the values of
  each (``test = "Welch t"``; no wins). Neither needs resamples, so p can be as small as the data allows
  (a bootstrap's floor ``2 / (B + 1)`` made Holm over 28 or more pairs unreachable with B = 1,000). Below
  ``min_units`` units the interval and p hold the minimum-units text (``"too few groups (n=4)"``), as everywhere.
- **The family** (``family``, ``family_size``): every pair with a numeric p. ``p_holm`` is Holm's step-down
  adjustment (controls the family-wise error rate: the chance that *any* pair called different is not);
  ``p_bh`` is Benjamini–Hochberg's (controls the false discovery rate: the expected share of wrong calls among
  the pairs called different). Read ``p_holm`` to claim "these two differ"; ``p_bh`` to screen many pairs.
- **Rank sets** (``ranks``): per system its ``rank`` by mean (1 = best) and ``rank_set`` = [1 + the systems
  significantly better than it, n − the systems significantly worse] by the Holm decisions at ``alpha``: the
  ranks it can hold. As Holm holds the family-wise rate, all the systems' rank sets hold together
  (simultaneously) with probability at least 1 − ``alpha`` when the tests are valid.

``python scripts/bench_systems_pairs.py`` measures the false-positive rates and the power on simulated
systems (``benchmarks/systems_pairs.md``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from debate_eval.tasks.analysis.bootstrap import LEVEL, MIN_UNITS, too_few_units

#: The level at which pairs are called different for the rank sets.
ALPHA = 0.05
PAIRED, WELCH = "paired t", "Welch t"

Values = Mapping[str, Sequence[float]]


def holm(p_values: Sequence[float | str | None]) -> list[float | str | None]:
    """Holm's step-down adjustment of the numeric p-values (family-wise error rate); a withheld (text) or
    missing p-value stays as it is and does not count among the tests."""
    numeric = sorted((p, i) for i, p in enumerate(p_values) if isinstance(p, float))
    out: list[float | str | None] = list(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(numeric):
        running = max(running, min(1.0, (len(numeric) - rank) * p))
        out[i] = running
    return out


def benjamini_hochberg(p_values: Sequence[float | str | None]) -> list[float | str | None]:
    """Benjamini–Hochberg's step-up adjustment of the numeric p-values (false discovery rate); a withheld (text)
    or missing p-value stays as it is and does not count among the tests."""
    numeric = sorted((p, i) for i, p in enumerate(p_values) if isinstance(p, float))
    out: list[float | str | None] = list(p_values)
    m = len(numeric)
    running = 1.0
    for rank in range(m - 1, -1, -1):
        p, i = numeric[rank]
        running = min(running, min(1.0, p * m / (rank + 1)))
        out[i] = running
    return out


def t_test_interval(estimate: float, se: float, df: float) -> tuple[list[float], float]:
    """The 95 % t interval and two-sided p of ``estimate`` with standard error ``se`` on ``df`` degrees."""
    from scipy import stats

    if se == 0.0:
        return [estimate, estimate], (1.0 if estimate == 0.0 else 0.0)
    half = float(stats.t.ppf(0.5 + LEVEL / 2.0, df)) * se
    p = float(2.0 * stats.t.sf(abs(estimate) / se, df))
    return [estimate - half, estimate + half], p


def pair_test(first: Values, second: Values, min_units: int = MIN_UNITS) -> dict[str, Any] | None:
    """First − second: the paired t-test over the groups both have values in (at least ``min_units`` of them),
    else Welch's t-test over all their values (see the module doc). None when neither test has data (fewer than
    2 shared groups and fewer than 2 values on a side)."""
    shared = [group for group in first if group in second and len(first[group]) and len(second[group])]
    if len(shared) >= max(min_units, 2):
        a = np.array([sum(first[group]) / len(first[group]) for group in shared], dtype=float)
        b = np.array([sum(second[group]) / len(second[group]) for group in shared], dtype=float)
        differences = a - b
        n = len(differences)
        ci95, p = t_test_interval(float(differences.mean()), float(differences.std(ddof=1) / np.sqrt(n)), n - 1)
        wins = [int(np.sum(differences > 0)), int(np.sum(differences == 0)), int(np.sum(differences < 0))]
        return _pair(PAIRED, n, a, b, float(differences.mean()), ci95, p, wins)
    x = np.array([v for values in first.values() for v in values], dtype=float)
    y = np.array([v for values in second.values() for v in values], dtype=float)
    if len(shared) < 2 and (len(x) < 2 or len(y) < 2):
        return None
    difference = float(x.mean() - y.mean())
    if shared:  # a few shared groups: below the minimum for a paired test
        ci95 = p = too_few_units(len(shared), "groups", min_units)
        return _pair(PAIRED, len(shared), x, y, difference, ci95, p)
    withheld = too_few_units(min(len(x), len(y)), "items", min_units)
    if withheld:
        return _pair(WELCH, len(x) + len(y), x, y, difference, withheld, withheld)
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    se = float(np.sqrt(vx + vy))
    df = (vx + vy) ** 2 / (vx**2 / (len(x) - 1) + vy**2 / (len(y) - 1)) if se > 0 else 1.0
    return _pair(WELCH, len(x) + len(y), x, y, difference, *t_test_interval(difference, se, df))


def _pair(
    test: str, n: int, first: np.ndarray, second: np.ndarray, difference: float, ci95: Any, p: Any, wins: Any = None
) -> dict[str, Any]:
    """A pair's entry, its keys in the order the JSON shows them (``wins``: wins, ties, losses; paired only)."""
    return {
        "test": test,
        "n_inputs": n,
        "mean_first": float(first.mean()),
        "mean_second": float(second.mean()),
        "difference": difference,
        "ci95": ci95,
        "p_value": p,
        **dict(zip(("wins", "ties", "losses"), wins or (None, None, None), strict=True)),
    }


def adjust(pairs: list[dict[str, Any]], key: str = "p_value", prefix: str = "p") -> None:
    """Add ``{prefix}_holm`` and ``{prefix}_bh`` to each pair, adjusting ``pair[key]`` over all the pairs."""
    values = [pair.get(key) for pair in pairs]
    for pair, by_holm, by_bh in zip(pairs, holm(values), benjamini_hochberg(values), strict=True):
        pair[f"{prefix}_holm"] = by_holm
        pair[f"{prefix}_bh"] = by_bh


def rank_sets(
    means: Mapping[str, float | None],
    pairs: Sequence[Mapping[str, Any]],
    alpha: float = ALPHA,
    key: str = "p_holm",
    difference: str = "difference",
    higher_is_better: bool = True,
) -> dict[str, dict[str, Any]]:
    """Per system its ``rank`` by mean (1 = best, ties share the better rank) and ``rank_set`` = [1 + the
    systems significantly better, n − the systems significantly worse], a pair significant when its ``key``
    (an adjusted p) is below ``alpha``; with ``better`` and ``worse``, those systems' names."""
    names = [name for name, mean in means.items() if mean is not None]
    sign = 1.0 if higher_is_better else -1.0
    better: dict[str, list[str]] = {name: [] for name in names}
    worse: dict[str, list[str]] = {name: [] for name in names}
    for pair in pairs:
        p, delta = pair.get(key), pair.get(difference)
        first, second = pair["first"], pair["second"]
        if not isinstance(p, float) or p >= alpha or delta is None or first not in better or second not in better:
            continue
        winner, loser = (first, second) if sign * delta > 0 else (second, first)
        better[loser].append(winner)
        worse[winner].append(loser)
    n = len(names)
    out = {}
    for name in names:
        value = sign * float(means[name])  # type: ignore[arg-type]
        rank = 1 + sum(1 for other in names if sign * float(means[other]) > value)  # type: ignore[arg-type]
        out[name] = {
            "rank": rank,
            "rank_set": [1 + len(better[name]), n - len(worse[name])],
            "better": better[name],
            "worse": worse[name],
        }
    return out


def compare_values(
    values: Mapping[str, Values],
    family: str = "",
    min_units: int = MIN_UNITS,
    alpha: float = ALPHA,
    higher_is_better: bool = True,
) -> dict[str, Any]:
    """Every pair of systems compared on their per-item values (``system -> group -> values``; see the module
    doc), adjusted over the family, and each system's rank set.

    Returns ``{"pairs": [...], "family": TEXT, "family_size": m, "alpha", "ranks": {system: {"rank",
    "rank_set", "better", "worse", "mean"}}}``; each pair has ``first``, ``second``, ``test``, ``n_inputs``,
    ``mean_first``, ``mean_second``, ``difference``, ``ci95``, ``p_value``, ``p_holm``, ``p_bh``, ``wins``,
    ``ties``, ``losses``. ``family`` names where the systems are compared (e.g. ``summeval/coherence``); the
    returned ``family`` says which tests were adjusted together
    (``the 120 tested pairs of 16 systems (summeval/coherence)``).
    """
    names = list(values)
    pairs = []
    for first, second in combinations(names, 2):
        result = pair_test(values[first], values[second], min_units)
        if result is not None:
            pairs.append({"first": first, "second": second, **result})
    adjust(pairs)
    size = sum(1 for pair in pairs if isinstance(pair["p_value"], float))
    means = {
        name: (float(np.mean(every)) if (every := [v for group in values[name].values() for v in group]) else None)
        for name in names
    }
    ranks = rank_sets(means, pairs, alpha=alpha, higher_is_better=higher_is_better)
    for name, entry in ranks.items():
        entry["mean"] = means[name]
    return {
        "pairs": pairs,
        "family": f"the {size} tested pairs of {len(names)} systems" + (f" ({family})" if family else ""),
        "family_size": size,
        "alpha": alpha,
        "ranks": ranks,
    }
