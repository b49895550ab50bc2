"""Quality bars for a judge in CI: ``meta-eval RUN --fail-under spearman=0.40,kappa=0.3`` and a pytest helper.

A bar ``statistic=value`` applies to every dataset/aspect of the run that reports the statistic
(``spearman``, ``kendall``, ``pearson``, their pooled forms ``pooled_*``, or the pairwise ``accuracy``,
``kappa``, ``macro_f1``, ``consistency``, ``agreement``). A part fails when its figure is below the bar, is
undefined, or (``lower_ci``) when the lower end of its 95 % interval is below the bar or there is no
interval (no bootstrap, or the minimum-units rule withheld it: a gate never passes on too few units).

In a user's own test suite (pytest)::

    from debate_eval.tasks.analysis.gates import assert_judge_meets

    def test_judge_still_agrees_with_humans():
        assert_judge_meets("runs/nightly", spearman=0.40, lower_ci=True)

``assert_judge_meets`` raises ``AssertionError`` with one line naming every part below its bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, DEFAULT_RESAMPLES, is_withheld
from debate_eval.tasks.analysis.correlations import STATISTICS, AspectReport
from debate_eval.tasks.analysis.pairwise_metrics import METRICS, PairwiseReport

GATE_STATISTICS = (*STATISTICS, *(f"pooled_{s}" for s in STATISTICS), *METRICS)
Report = dict[str, dict[str, "AspectReport | PairwiseReport"]]


def parse_bars(text: str) -> dict[str, float]:
    """``"spearman=0.40,kappa=0.3"`` → ``{"spearman": 0.4, "kappa": 0.3}``; a ``UserError`` naming the bad part."""
    bars: dict[str, float] = {}
    for part in (p.strip() for p in text.split(",")):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in GATE_STATISTICS:
            raise UserError(
                f"--fail-under {text!r}: {part!r} is not STATISTIC=NUMBER with STATISTIC one of "
                + ", ".join(GATE_STATISTICS)
            )
        try:
            bars[name] = float(value)
        except ValueError:
            raise UserError(f"--fail-under {text!r}: {value.strip()!r} is not a number (in {part!r})") from None
    return bars


def _interval(entry: AspectReport | PairwiseReport, statistic: str) -> Any:
    if statistic.startswith("pooled_"):
        intervals = getattr(entry, "pooled_ci95", None)
        statistic = statistic.removeprefix("pooled_")
    else:
        intervals = entry.ci95
    if intervals is None or is_withheld(intervals):
        return intervals
    return intervals.get(statistic)


def check_bars(report: Report, bars: Mapping[str, float], lower_ci: bool = False) -> list[str]:
    """One short text per part below a bar (empty when every part meets every bar).

    A ``UserError`` when a bar names a statistic no part of the report has (e.g. ``kappa`` on a run without
    pairwise records), so a typo never passes silently.
    """
    failures: list[str] = []
    for statistic, bar in bars.items():
        parts = [
            (f"{dataset}/{key}", entry)
            for dataset, aspects in report.items()
            for key, entry in aspects.items()
            if hasattr(entry, statistic)
        ]
        if not parts:
            raise UserError(f"--fail-under {statistic}: no dataset/aspect of these runs reports {statistic}")
        for name, entry in parts:
            value = getattr(entry, statistic)
            if value is None:
                failures.append(f"{name} {statistic} undefined (bar {bar:g})")
                continue
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
    """The one line a failed gate prints."""
    what = "lower CI bound below the bar" if lower_ci else "below the bar"
    return f"meta-eval: {what}: " + "; ".join(failures)


def assert_judge_meets(
    *runs: str | Path,
    lower_ci: bool = False,
    bootstrap: int = DEFAULT_RESAMPLES,
    ci_method: str = DEFAULT_CI_METHOD,
    **bars: float,
) -> Report:
    """For a user's own pytest suite: meta-evaluate ``runs`` (run folders or results files) and raise
    ``AssertionError`` (one line) when a figure, or with ``lower_ci`` its lower 95 % bound, is below its bar.

    ``bars`` are ``statistic=value`` (e.g. ``spearman=0.40, kappa=0.3``; see :data:`GATE_STATISTICS`).
    Returns the report, for further checks of your own.
    """
    from debate_eval.tasks.analysis.meta_eval import meta_evaluate
    from debate_eval.tasks.analysis.records import load_results, results_path

    if not runs:
        raise UserError("assert_judge_meets: give at least one run folder or results file")
    if not bars:
        raise UserError("assert_judge_meets: give at least one bar, e.g. spearman=0.40")
    unknown = [name for name in bars if name not in GATE_STATISTICS]
    if unknown:
        raise UserError(
            f"assert_judge_meets: unknown statistic {', '.join(unknown)}; one of {', '.join(GATE_STATISTICS)}"
        )
    if lower_ci and bootstrap <= 0:
        raise UserError("assert_judge_meets: lower_ci needs bootstrap > 0")
    records = load_results([results_path(run) for run in runs])
    report = meta_evaluate(records, bootstrap=bootstrap if lower_ci else 0, ci_method=ci_method)
    failures = check_bars(report, {name: float(value) for name, value in bars.items()}, lower_ci)
    if failures:
        raise AssertionError(failure_line(failures, lower_ci))
    return report
