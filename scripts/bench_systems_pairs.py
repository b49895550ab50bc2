"""Which system is better, simulated: the pair tests, the PPI differences and the system-level intervals that
``meta-eval`` and the run summary report, on constructed systems with known truth. Writes
``benchmarks/systems_pairs.md``.

1. **Pairs** (``system_pairs.compare_values``): 16 systems on 100 shared documents (SummEval's shape), each
   output's score = the system's quality + the document's difficulty + noise. Under 16 equal systems: the
   per-pair rate of p < 0.05 and the family-wise rate of any ``p_holm`` < 0.05 (and of any ``p_bh`` < 0.05,
   the same thing when every pair is equal). With the systems' human means spread evenly over 1.5 points and a
   judge that tracks the human score with noise: the share of pairs called different after Holm, by how far
   apart their human means are, and how many rank sets are a single rank.
2. **PPI differences** (``ppi.difference_estimate``): two systems on 1,000 shared documents, ``n`` of them
   rated by humans, the judge over-rating one of them by 0.5. The PPI++ difference's coverage of the true human
   difference and its width against the human-only (paired t) interval on the same ratings, and how often the
   judge's scores alone call a difference.
3. **System-level intervals** (``systems.fisher_z_interval``): 8, 16 and 32 systems whose true human and judge
   means are bivariate normal with correlation 0.8 across systems, scored on 100 documents; coverage of the
   Fisher z intervals (Pearson, Spearman, Kendall) of the population correlation (Spearman's and Kendall's
   population values under normality: 6/pi asin(rho/2) and 2/pi asin(rho)), and of the documents' bootstrap.

    python scripts/bench_systems_pairs.py                       # the committed figures
    python scripts/bench_systems_pairs.py --quick --out -       # fewer replications, print only
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
from scipy import stats

from debate_eval.tasks.analysis.ppi import difference_estimate
from debate_eval.tasks.analysis.system_pairs import compare_values
from debate_eval.tasks.analysis.systems import fisher_z_interval

SEED = 2026
N_DOCS = 100


def grouped(matrix: np.ndarray, names: list[str]) -> dict[str, dict[str, list[float]]]:
    """documents x systems -> system -> document -> [value]."""
    return {name: {f"d{d}": [float(matrix[d, s])] for d in range(matrix.shape[0])} for s, name in enumerate(names)}


def draw_scores(rng: np.random.Generator, means: np.ndarray, noise: float = 0.7) -> np.ndarray:
    """documents x systems: the system's mean + the document's difficulty + noise."""
    difficulty = rng.normal(0.0, 0.5, (N_DOCS, 1))
    return means[None, :] + difficulty + rng.normal(0.0, noise, (N_DOCS, len(means)))


def null_pairs(rng: np.random.Generator, replications: int) -> dict[str, float]:
    names = [f"M{i}" for i in range(16)]
    per_pair = any_holm = any_bh = 0
    pairs_seen = 0
    for _ in range(replications):
        block = compare_values(grouped(draw_scores(rng, np.full(16, 3.0)), names))
        p = np.array([pair["p_value"] for pair in block["pairs"]])
        per_pair += int(np.sum(p < 0.05))
        pairs_seen += len(p)
        any_holm += int(any(pair["p_holm"] < 0.05 for pair in block["pairs"]))
        any_bh += int(any(pair["p_bh"] < 0.05 for pair in block["pairs"]))
    return {
        "per_pair": per_pair / pairs_seen,
        "any_holm": any_holm / replications,
        "any_bh": any_bh / replications,
        "pairs": pairs_seen,
    }


def power_pairs(rng: np.random.Generator, replications: int) -> dict[str, object]:
    names = [f"M{i}" for i in range(16)]
    human_means = np.linspace(2.5, 4.0, 16)  # spread over 1.5 points, 0.1 apart
    bands = [(0.0, 0.25), (0.25, 0.55), (0.55, 0.95), (0.95, 1.6)]
    called = {band: [0, 0] for band in bands}
    singletons = []
    for _ in range(replications):
        human = draw_scores(rng, human_means, noise=0.6)
        judge = human + rng.normal(0.0, 0.5, human.shape)  # tracks the human score, with noise
        block = compare_values(grouped(judge, names))
        for pair in block["pairs"]:
            gap = abs(human_means[names.index(pair["first"])] - human_means[names.index(pair["second"])])
            band = next(b for b in bands if b[0] <= gap + 1e-9 < b[1])
            called[band][0] += int(pair["p_holm"] < 0.05)
            called[band][1] += 1
        singletons.append(sum(1 for r in block["ranks"].values() if r["rank_set"][0] == r["rank_set"][1]))
    return {"bands": {b: c[0] / c[1] for b, c in called.items()}, "singletons": float(np.mean(singletons))}


def ppi_difference(rng: np.random.Generator, replications: int, n_rated: int, true_difference: float) -> dict:
    n_docs = 1000
    covered = judge_called = 0
    widths, human_widths, human_covered = [], [], 0
    for _ in range(replications):
        difficulty = rng.normal(0.0, 0.6, n_docs)
        human_a = 3.0 + true_difference + difficulty + rng.normal(0.0, 0.6, n_docs)
        human_b = 3.0 + difficulty + rng.normal(0.0, 0.6, n_docs)
        judge_a = human_a + rng.normal(0.0, 0.4, n_docs)
        judge_b = human_b + 0.5 + rng.normal(0.0, 0.4, n_docs)  # the planted bias for B
        first = {f"d{d}": [(judge_a[d], human_a[d] if d < n_rated else None)] for d in range(n_docs)}
        second = {f"d{d}": [(judge_b[d], human_b[d] if d < n_rated else None)] for d in range(n_docs)}
        found = difference_estimate(first, second)
        low, high = found["ci95"]
        covered += int(low <= true_difference <= high)
        widths.append(high - low)
        h_low, h_high = found["human_only"]["ci95"]
        human_covered += int(h_low <= true_difference <= h_high)
        human_widths.append(h_high - h_low)
        judge_called += int(stats.ttest_rel(judge_a, judge_b).pvalue < 0.05)
    return {
        "coverage": covered / replications,
        "width": float(np.mean(widths)),
        "human_coverage": human_covered / replications,
        "human_width": float(np.mean(human_widths)),
        "wider": int(np.sum(np.array(widths) > np.array(human_widths))),
        "judge_called": judge_called / replications,
    }


def system_level_coverage(rng: np.random.Generator, replications: int, n_systems: int, documents: int) -> dict:
    rho = 0.8
    truth = {
        "pearson": rho,
        "spearman": 6 / np.pi * np.arcsin(rho / 2),
        "kendall": 2 / np.pi * np.arcsin(rho),
    }
    covariance = 0.25 * np.array([[1.0, rho], [rho, 1.0]])  # systems' means: sd 0.5 on both scales
    hits = {name: 0 for name in truth}
    doc_hits = {name: 0 for name in truth}
    doc_runs = 0
    functions = {
        "pearson": lambda x, y: stats.pearsonr(x, y).statistic,
        "spearman": lambda x, y: stats.spearmanr(x, y).statistic,
        "kendall": lambda x, y: stats.kendalltau(x, y).statistic,
    }
    for replication in range(replications):
        means = rng.multivariate_normal([3.0, 3.0], covariance, n_systems)
        human = draw_scores(rng, means[:, 0])
        judge = draw_scores(rng, means[:, 1])
        x, y = judge.mean(axis=0), human.mean(axis=0)
        for name, function in functions.items():
            interval = fisher_z_interval(float(function(x, y)), n_systems, name)
            hits[name] += int(interval[0] <= truth[name] <= interval[1])
        if replication < documents:  # the documents' bootstrap (the systems fixed), on fewer replications
            doc_runs += 1
            rows = rng.integers(0, N_DOCS, (200, N_DOCS))
            for name, function in functions.items():
                draws = [function(judge[r].mean(axis=0), human[r].mean(axis=0)) for r in rows]
                low, high = np.percentile(draws, [2.5, 97.5])
                doc_hits[name] += int(low <= truth[name] <= high)
    return {
        "fisher": {name: hits[name] / replications for name in truth},
        "documents": {name: doc_hits[name] / max(doc_runs, 1) for name in truth},
        "doc_runs": doc_runs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer replications (a check, not the figures)")
    parser.add_argument("--out", default="benchmarks/systems_pairs.md", help="the report ('-': print only)")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    rng = np.random.default_rng(SEED)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    null = null_pairs(rng, int(1000 * scale))
    power = power_pairs(rng, int(100 * scale))
    ppi_rows = []
    for n_rated in (50, 100, 200):
        for true_difference in (0.0, 0.3):
            found = ppi_difference(rng, int(1000 * scale), n_rated, true_difference)
            ppi_rows.append((n_rated, true_difference, found))
    levels = [(n, system_level_coverage(rng, int(2000 * scale), n, int(60 * scale))) for n in (8, 16, 32)]
    elapsed = time.perf_counter() - started
    when = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    replications = "" if not args.quick else " --quick"
    lines = [
        "# Which system is better: pair tests, PPI differences and system-level intervals, simulated",
        "",
        f"Command: `python scripts/bench_systems_pairs.py{replications}` (seed {SEED}; {elapsed:.0f} s on "
        f"{platform.node() or 'this machine'}, {os.cpu_count()} cores, load average {load:.1f} at the start; {when}).",
        "",
        "## 1. Pairs of systems: paired t-test, Holm and Benjamini-Hochberg",
        "",
        "16 systems on 100 shared documents; an output's score is its system's mean + the document's difficulty "
        "(sd 0.5) + noise (sd 0.7). Each pair: the paired t-test on the documents' differences "
        "(`system_pairs.compare_values`, as `meta-eval` and the run summary report it).",
        "",
        "| 16 equal systems | rate | over |",
        "|---|---|---|",
        f"| per pair: p < 0.05 | {null['per_pair']:.4f} | {null['pairs']} pairs |",
        f"| family-wise: any `p_holm` < 0.05 | {null['any_holm']:.3f} | {int(1000 * scale)} replications |",
        f"| any `p_bh` < 0.05 (= the false discovery rate when all are equal) | {null['any_bh']:.3f} | "
        f"{int(1000 * scale)} replications |",
        "",
        "16 constructed systems, human means 2.5, 2.6, ..., 4.0 (spread over 1.5 points; outputs' human scores with "
        "noise sd 0.6), the judge = the human score + noise (sd 0.5); share of pairs called different after Holm "
        f"(`p_holm` < 0.05) by how far apart their human means are ({int(100 * scale)} replications):",
        "",
        "| human means apart | share called different after Holm |",
        "|---|---|",
    ]
    for (low, high), share in power["bands"].items():
        lines.append(f"| {low:.2f}-{min(high, 1.5):.2f} | {share:.3f} |")
    lines += [
        "",
        f"Rank sets that are a single rank: {power['singletons']:.1f} of 16 systems on average.",
        "",
        "## 2. PPI++ difference of two systems with a judge biased for one of them",
        "",
        "Two systems on 1,000 shared documents, `n` rated by humans; human scores = 3 (+ the true difference for A) "
        "+ difficulty (sd 0.6) + noise (sd 0.6); the judge = the human score + noise (sd 0.4), **+ 0.5 for B**. "
        "PPI: `ppi.difference_estimate` (paired: PPI++ on the documents' differences, ppi-python's standard "
        "error with a t quantile on n − 1 degrees); human-only: the paired t "
        f"interval on the `n` rated documents; {int(1000 * scale)} replications per row.",
        "",
        "| rated documents | true difference | PPI coverage | PPI width | human-only coverage | human-only width | "
        "PPI wider than human-only | judge alone calls a difference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for n_rated, true_difference, found in ppi_rows:
        lines.append(
            f"| {n_rated} | {true_difference:.1f} | {found['coverage']:.3f} | {found['width']:.3f} | "
            f"{found['human_coverage']:.3f} | {found['human_width']:.3f} | {found['wider']} | "
            f"{found['judge_called']:.3f} |"
        )
    lines += [
        "",
        "## 3. System-level correlation: coverage of the 95 % intervals",
        "",
        "Systems' true (human, judge) means bivariate normal across systems with correlation 0.8 (sd 0.5 each), "
        "scored on 100 documents (difficulty sd 0.5, noise sd 0.7). Coverage of the population correlation "
        "(Spearman 6/pi asin(0.4) = 0.786, Kendall 2/pi asin(0.8) = 0.590). Fisher z: `systems.fisher_z_interval`, "
        f"the `ci95` of `system_level` ({int(2000 * scale)} replications); documents' bootstrap: 200 resamples "
        f"of the documents with the systems fixed, the `ci95_documents` ({int(60 * scale)} replications).",
        "",
        "| systems | Pearson (Fisher z) | Spearman (Fisher z) | Kendall (Fisher z) | Pearson (documents) | "
        "Spearman (documents) | Kendall (documents) |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, found in levels:
        fisher, documents = found["fisher"], found["documents"]
        lines.append(
            f"| {n} | {fisher['pearson']:.3f} | {fisher['spearman']:.3f} | {fisher['kendall']:.3f} | "
            f"{documents['pearson']:.3f} | {documents['spearman']:.3f} | {documents['kendall']:.3f} |"
        )
    lines.append("")
    text = "\n".join(lines)
    if args.out == "-":
        print(text)
    else:
        Path(args.out).write_text(text, encoding="utf-8")
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
