"""Quality bars for a judge in CI: ``meta-eval RUN --fail-under spearman=0.40,kappa=0.3`` and a pytest helper.

A bar ``statistic=value`` applies to every dataset/aspect of the run that reports the statistic
(``spearman``, ``kendall``, ``pearson``, their pooled forms ``pooled_*``, their system-level forms
``system_*`` (the systems' mean scores correlated with their mean human scores, :mod:`systems`; every
single-score dataset/aspect), or the pairwise ``accuracy``, ``kappa``, ``macro_f1``, ``consistency``,
``agreement``). A bar is a finite number in the statistic's range
(``[-1, 1]`` for correlations and κ, ``[0, 1]`` for the shares), each statistic at most once; anything else is
a ``UserError`` (exit 2).

A part fails when its figure is below the bar, is undefined, or (``lower_ci``) when the lower end of its 95 %
interval is below the bar or there is no interval (no bootstrap, or the minimum-units rule withheld it).

**Coverage** (on by default, ``min_coverage`` = :data:`DEFAULT_MIN_COVERAGE`): a figure that stands on too
little fails too, naming the shortfall, so a gate never passes on a judge that answered 3 of 100 items:

- the share of the rated items (with a human score or label) that have a score or verdict must be at least
  ``min_coverage``;
- at group level (SummEval documents, Topical-Chat contexts), the share of the groups with a defined
  correlation (``n_groups`` of ``n_groups + n_skipped``) must be at least ``min_coverage``;
- ``consistency`` and ``agreement`` also need that share of the items judged in both orders (``--swap``);
- the figure must stand on at least ``min_units`` units (the minimum-units rule, :data:`bootstrap.MIN_UNITS`:
  groups at group level, scored items otherwise);
- a system-level figure must stand on at least :data:`MIN_GATE_SYSTEMS` systems (the fewest whose perfect
  ranking a two-sided Kendall test finds at p < 0.05: 2/5! = 0.017, where 4 systems give 2/4! = 0.083) and
  its systems' means on at least ``min_units`` groups; below three systems there is no system-level figure,
  which fails whatever ``min_coverage`` says.

``min_coverage=0`` turns the coverage requirement off (shares and units).

In a user's own test suite (pytest)::

    from debate_eval.tasks.analysis.gates import assert_judge_meets

    def test_judge_still_agrees_with_humans():
        assert_judge_meets("runs/nightly", spearman=0.40, lower_ci=True)

``assert_judge_meets`` raises ``AssertionError`` with one line naming every part below its bar or short of
coverage.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from numbers import Real
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import (
    DEFAULT_CI_METHOD,
    DEFAULT_RESAMPLES,
    MIN_UNITS,
    is_withheld,
)
from debate_eval.tasks.analysis.correlations import ITEM, STATISTICS, AspectReport
from debate_eval.tasks.analysis.meta_eval import Report, meta_evaluate
from debate_eval.tasks.analysis.pairwise_metrics import METRICS, PairwiseReport
from debate_eval.tasks.analysis.systems import MIN_SYSTEMS

POOLED_PREFIX = "pooled_"
SYSTEM_PREFIX = "system_"
SYSTEM_STATISTICS = tuple(f"{SYSTEM_PREFIX}{s}" for s in STATISTICS)
GATE_STATISTICS = (*STATISTICS, *(f"{POOLED_PREFIX}{s}" for s in STATISTICS), *SYSTEM_STATISTICS, *METRICS)
#: The fewest systems a system-level bar accepts its figure from (see the module docstring).
MIN_GATE_SYSTEMS = 5
# Older spellings still accepted in a bar (a CI configuration written before the rename): old -> current.
BAR_ALIASES = {f"global_{s}": f"{POOLED_PREFIX}{s}" for s in STATISTICS}
SHARE_STATISTICS = frozenset({"accuracy", "macro_f1", "consistency", "agreement"})  # range [0, 1]
DEFAULT_MIN_COVERAGE = 0.9
COVERAGE_MARK = "stands on too little:"  # every coverage failure text holds this


def check_bar(statistic: str, value: Any, where: str) -> float:
    """``value`` as a float when it is a finite number in ``statistic``'s range; a ``UserError`` naming
    ``where`` (``--fail-under 'spearman=nan'``) otherwise."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise UserError(f"{where}: the bar for {statistic} must be a number, not {value!r}")
    number = float(value)
    low, high = (0.0, 1.0) if statistic in SHARE_STATISTICS else (-1.0, 1.0)  # shares; correlations and κ
    if not math.isfinite(number) or not low <= number <= high:
        raise UserError(
            f"{where}: the bar for {statistic} must be a finite number in [{low:g}, {high:g}], not {value!r}"
        )
    return number


def check_min_coverage(value: Any, where: str = "--min-coverage") -> float:
    """``value`` as a float when it is a share in [0, 1]; a ``UserError`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, Real) or not 0.0 <= float(value) <= 1.0:
        raise UserError(f"{where} {value!r}: give a share between 0 and 1 (0: no coverage requirement)")
    return float(value)


def parse_bars(text: str) -> dict[str, float]:
    """``"spearman=0.40,kappa=0.3"`` → ``{"spearman": 0.4, "kappa": 0.3}``; a ``UserError`` naming the bad part
    (not ``STATISTIC=NUMBER``, an unknown statistic, a number that is not finite or out of range, a statistic
    given twice, or nothing at all)."""
    if not text.strip():
        raise UserError(f"--fail-under {text!r}: give at least one STATISTIC=NUMBER, e.g. spearman=0.40")
    bars: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        name, sep, value = part.partition("=")
        name = BAR_ALIASES.get(name.strip(), name.strip())
        if not sep or name not in GATE_STATISTICS:
            raise UserError(
                f"--fail-under {text!r}: {part!r} is not STATISTIC=NUMBER with STATISTIC one of "
                + ", ".join(GATE_STATISTICS)
            )
        if name in bars:
            raise UserError(f"--fail-under {text!r}: {name} is given more than once; give each statistic one bar")
        try:
            number = float(value)
        except ValueError:
            raise UserError(f"--fail-under {text!r}: {value.strip()!r} is not a number (in {part!r})") from None
        bars[name] = check_bar(name, number, f"--fail-under {text!r}")
    return bars


def _share_text(have: int, total: int, what: str, min_coverage: float) -> str | None:
    if total <= 0 or have / total >= min_coverage:
        return None
    return f"{have} of {total} {what} ({have / total:.0%}, needs {min_coverage:.0%})"


def coverage_shortfall(
    entry: AspectReport | PairwiseReport, statistic: str, min_coverage: float, min_units: int = MIN_UNITS
) -> str | None:
    """Why ``statistic``'s figure of ``entry`` stands on too little (module docstring), or None when it does
    not (or ``min_coverage`` is 0)."""
    if min_coverage <= 0:
        return None
    shortfalls: list[str | None] = []
    if isinstance(entry, PairwiseReport):
        rated = entry.n_items - entry.n_unlabelled
        shortfalls.append(_share_text(entry.n_scored, rated, "labelled items with a verdict", min_coverage))
        if statistic in ("consistency", "agreement"):
            shortfalls.append(_share_text(entry.n_swapped, entry.n_items, "items judged in both orders", min_coverage))
        units, counted = entry.n_scored, f"{entry.n_scored} items"
    else:
        rated = entry.n_items - entry.n_unrated
        shortfalls.append(_share_text(entry.n_scored, rated, "rated items with a score", min_coverage))
        if statistic.startswith(SYSTEM_PREFIX):
            level = entry.system_level or {}
            n_systems, units = int(level.get("n_systems") or 0), int(level.get("n_groups") or 0)
            if n_systems < MIN_GATE_SYSTEMS:
                shortfalls.append(f"{n_systems} systems (a system-level bar needs at least {MIN_GATE_SYSTEMS})")
            counted = f"the systems' means over {units} groups"
        elif entry.level == ITEM or statistic.startswith(POOLED_PREFIX):
            units, counted = entry.n_scored, f"{entry.n_scored} items"
        else:
            groups = entry.n_groups + entry.n_skipped
            shortfalls.append(_share_text(entry.n_groups, groups, "groups with a defined correlation", min_coverage))
            units, counted = entry.n_groups, f"{entry.n_groups} groups"
    if units < min_units:
        shortfalls.append(f"{counted} (the minimum is {min_units})")
    found = [text for text in shortfalls if text]
    return "; ".join(found) if found else None


def _interval(entry: AspectReport | PairwiseReport, statistic: str) -> Any:
    if statistic.startswith(SYSTEM_PREFIX):
        intervals = (getattr(entry, "system_level", None) or {}).get("ci95")
    elif statistic.startswith(POOLED_PREFIX):
        intervals = getattr(entry, "pooled_ci95", None)
    else:
        intervals = entry.ci95
    if intervals is None or is_withheld(intervals):
        return intervals
    return intervals.get(statistic.removeprefix(SYSTEM_PREFIX).removeprefix(POOLED_PREFIX))


def check_bars(
    report: Report,
    bars: Mapping[str, float],
    lower_ci: bool = False,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    min_units: int = MIN_UNITS,
) -> list[str]:
    """One short text per part below a bar or short of coverage (empty when every part meets every bar).

    A ``UserError`` when a bar names a statistic no part of the report has (e.g. ``kappa`` on a run without
    pairwise records), so a typo never passes silently. Coverage (module docstring) is checked for every
    defined figure; ``min_coverage`` 0 turns it off.
    """
    failures: list[str] = []
    for statistic, bar in bars.items():
        system = statistic.startswith(SYSTEM_PREFIX)  # a system-level bar applies to the parts of single scores
        parts = [
            (f"{dataset}/{key}", entry)
            for dataset, aspects in report.items()
            for key, entry in aspects.items()
            if (isinstance(entry, AspectReport) if system else hasattr(entry, statistic))
        ]
        if not parts:
            raise UserError(f"--fail-under {statistic}: no dataset/aspect of these runs reports {statistic}")
        for name, entry in parts:
            level = getattr(entry, "system_level", None) or {}
            if system and not level:
                failures.append(
                    f"{name} {statistic} {COVERAGE_MARK} fewer than {MIN_SYSTEMS} systems with rated, scored items, "
                    f"no system-level figure (a system-level bar needs at least {MIN_GATE_SYSTEMS})"
                )
                continue
            value = level.get(statistic.removeprefix(SYSTEM_PREFIX)) if system else getattr(entry, statistic)
            if value is None:
                failures.append(f"{name} {statistic} undefined (bar {bar:g})")
                continue
            shortfall = coverage_shortfall(entry, statistic, min_coverage, min_units)
            if shortfall:
                failures.append(f"{name} {statistic} {COVERAGE_MARK} {shortfall}")
            if not lower_ci:
                if value < bar:
                    failures.append(f"{name} {statistic} {value:.3f} < {bar:g}")
                continue
            interval = _interval(entry, statistic)
            if is_withheld(interval):
                failures.append(f"{name} {statistic} lower CI bound withheld: {interval} (bar {bar:g})")
            elif not interval:
                failures.append(f"{name} {statistic} has no interval (bar {bar:g}; give --bootstrap N > 0)")
            elif interval[0] < bar:
                failures.append(f"{name} {statistic} lower 95% CI bound {interval[0]:.3f} < {bar:g}")
    return failures


def failure_line(failures: Sequence[str], lower_ci: bool = False) -> str:
    """The one line a failed gate prints: the parts below the bar first, then those short of coverage."""
    what = "lower CI bound below the bar" if lower_ci else "below the bar"
    below = [f for f in failures if COVERAGE_MARK not in f]
    short = [f for f in failures if COVERAGE_MARK in f]
    sections = []
    if below:
        sections.append(f"{what}: " + "; ".join(below))
    if short:
        sections.append("; ".join(short))
    return "meta-eval: " + " | ".join(sections)


def assert_judge_meets(
    *runs: str | Path,
    lower_ci: bool = False,
    bootstrap: int = DEFAULT_RESAMPLES,
    ci_method: str = DEFAULT_CI_METHOD,
    min_coverage: float = DEFAULT_MIN_COVERAGE,
    **bars: float,
) -> Report:
    """For a user's own pytest suite: meta-evaluate ``runs`` (run folders or results files) and raise
    ``AssertionError`` (one line) when a figure, or with ``lower_ci`` its lower 95 % bound, is below its bar,
    or stands on too little (``min_coverage``, see the module docstring; 0 turns it off).

    ``bars`` are ``statistic=value`` (e.g. ``spearman=0.40, kappa=0.3``; see :data:`GATE_STATISTICS`), each a
    finite number in the statistic's range (a ``UserError`` otherwise). Returns the report, for further
    checks of your own.
    """
    from debate_eval.tasks.analysis.records import load_results, require_human_ratings, results_path

    if not runs:
        raise UserError("assert_judge_meets: give at least one run folder or results file")
    if not bars:
        raise UserError("assert_judge_meets: give at least one bar, e.g. spearman=0.40")
    named = {BAR_ALIASES.get(name, name): value for name, value in bars.items()}
    unknown = [name for name in named if name not in GATE_STATISTICS]
    if unknown:
        raise UserError(
            f"assert_judge_meets: unknown statistic {', '.join(unknown)}; one of {', '.join(GATE_STATISTICS)}"
        )
    if len(named) < len(bars):
        raise UserError("assert_judge_meets: a pooled statistic is given twice (pooled_* and its older name)")
    checked = {name: check_bar(name, value, "assert_judge_meets") for name, value in named.items()}
    coverage = check_min_coverage(min_coverage, "assert_judge_meets: min_coverage")
    if lower_ci and bootstrap <= 0:
        raise UserError("assert_judge_meets: lower_ci needs bootstrap > 0")
    records = load_results([results_path(run) for run in runs])
    require_human_ratings(records, ", ".join(str(run) for run in runs))
    report = meta_evaluate(records, bootstrap=bootstrap if lower_ci else 0, ci_method=ci_method)
    failures = check_bars(report, checked, lower_ci, coverage)
    if failures:
        raise AssertionError(failure_line(failures, lower_ci))
    return report
