"""How often the 95 % intervals of a system's mean human score cover the true mean, with a biased judge and few
human ratings: prediction-powered inference (PPI++, ``ppi-python`` through ``debate_eval.tasks.analysis.ppi``)
against the judge-only and the human-only estimates. Writes ``benchmarks/ppi_coverage.md``.

Each replication draws a system's outputs from a known population: ``n`` outputs carry a human rating, ``N``
more only the judge's score; the estimates are the ones ``meta-eval`` and the run summary report per system
(``ppi.mean_estimates``). Scenarios: a judge that is linear in the human rating with a shift (continuous), and a
judge on the 1-5 scale that rounds and over-rates by about one point (the ``DEBATE``/G-Eval situation).

    python scripts/bench_ppi_coverage.py                      # 1000 replications per scenario
    python scripts/bench_ppi_coverage.py --replications 200 --out -   # quicker, print only
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from debate_eval.tasks.analysis.ppi import mean_estimates

ESTIMATES = ("ppi", "human_only", "judge_only")


@dataclass(frozen=True)
class Scenario:
    """A population of (human rating, judge score) pairs and how many of each kind a replication sees."""

    name: str
    n_rated: int
    n_unrated: int
    draw: Callable[[np.random.Generator, int], tuple[np.ndarray, np.ndarray]]
    true_mean: float


def linear(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Human ~ N(3.2, 0.9); judge = 0.7 human + 1.6 + N(0, 0.5): mean 3.84, biased by +0.64."""
    human = rng.normal(3.2, 0.9, size)
    return human, 0.7 * human + 1.6 + rng.normal(0.0, 0.5, size)


HUMAN_LEVELS = np.array([1, 2, 3, 4, 5], dtype=float)
HUMAN_P = np.array([0.10, 0.20, 0.30, 0.25, 0.15])


def likert(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Human ratings 1-5 (mean 3.15); the judge adds about one point and noise, rounds, clips to 1-5."""
    human = rng.choice(HUMAN_LEVELS, size=size, p=HUMAN_P)
    judge = np.clip(np.rint(human + 1.0 + rng.normal(0.0, 0.8, size)), 1, 5)
    return human, judge


SCENARIOS = (
    Scenario("linear judge, +0.64 bias, 50 rated + 5000 unrated", 50, 5000, linear, 3.2),
    Scenario("linear judge, +0.64 bias, 20 rated + 2000 unrated", 20, 2000, linear, 3.2),
    Scenario("1-5 judge, ~+0.8 bias, 50 rated + 5000 unrated", 50, 5000, likert, float(HUMAN_LEVELS @ HUMAN_P)),
    Scenario("1-5 judge, ~+0.8 bias, 200 rated + 5000 unrated", 200, 5000, likert, float(HUMAN_LEVELS @ HUMAN_P)),
)


def replicate(scenario: Scenario, replications: int, seed: int) -> dict[str, tuple[float, float]]:
    """Per estimate: (share of intervals covering the true mean, mean interval width)."""
    rng = np.random.default_rng(seed)
    hits = {name: 0 for name in ESTIMATES}
    widths: dict[str, list[float]] = {name: [] for name in ESTIMATES}
    for _ in range(replications):
        human, judge = scenario.draw(rng, scenario.n_rated)
        _, unrated = scenario.draw(rng, scenario.n_unrated)
        found = mean_estimates(human, judge, unrated, min_units=2)
        for name in ESTIMATES:
            low, high = found[name]["ci95"]
            hits[name] += int(low <= scenario.true_mean <= high)
            widths[name].append(high - low)
    return {name: (hits[name] / replications, float(np.mean(widths[name]))) for name in ESTIMATES}


def _span(values: list[float]) -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}" if f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}-{high:.2f}"


def main(argv: list[str] | None = None) -> int:
    """Run every scenario and print (or write) the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2023)
    parser.add_argument("--out", default="benchmarks/ppi_coverage.md", help="Markdown file, or - to print only")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    rows = []
    results = []
    for index, scenario in enumerate(SCENARIOS):
        result = replicate(scenario, args.replications, args.seed + index)
        results.append(result)
        cells = " | ".join(f"{result[name][0]:.3f} | {result[name][1]:.3f}" for name in ESTIMATES)
        rows.append(f"| {scenario.name} | {scenario.true_mean:.2f} | {cells} |")
    command = "python scripts/bench_ppi_coverage.py" + (
        f" --replications {args.replications}" if args.replications != 1000 else ""
    )
    lines = [
        "# PPI coverage: a biased judge, few human ratings",
        "",
        f"Command: `{command}` (seed {args.seed}; {args.replications} replications per row; "
        f"{time.perf_counter() - started:.0f} s on {platform.node() or 'this machine'}, {os.cpu_count()} cores, "
        f"load average {load:.1f} at the start; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC).",
        "",
        "Each replication draws one system's outputs: some rated by humans, many more scored only by a judge that",
        "over-rates. Coverage is the share of nominal 95 % intervals that contain the true mean human rating;",
        "width is the mean interval width. PPI is PPI++ (power-tuned, `ppi-python`), as `meta-eval` and the run",
        "summary report it per system; judge-only treats the judge's scores as human ratings; human-only uses the",
        "rated outputs alone.",
        "",
        "| scenario | true mean | PPI coverage | PPI width | human-only coverage | human-only width "
        "| judge-only coverage | judge-only width |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Reading: PPI covers {_span([r['ppi'][0] for r in results])} of the time (nominal 0.95), the human-only "
        f"interval {_span([r['human_only'][0] for r in results])}, the judge-only one "
        f"{_span([r['judge_only'][0] for r in results])}: narrow and centred on the judge's own, biased mean. The",
        f"PPI interval is {_span([r['ppi'][1] / r['human_only'][1] for r in results])} times as wide as the "
        "human-only one on the same ratings.",
    ]
    text = "\n".join(lines) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
