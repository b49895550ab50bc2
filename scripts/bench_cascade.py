"""The cascade's guarantee on real released judgments: JudgeBench's 350 GPT-4o pairs.

Judge 1 (cheap) is a reward model whose confidence is the Bradley-Terry probability of its preferred response,
``sigmoid(|score gap|)`` (Skywork-Reward-Gemma-2-27B, and internlm2-7b-reward as a second case); judge 2 is the
o1-mini Arena-Hard judge, whose confidence is its verdict strength when its two orders agree (1 for ``[[A>>B]]``,
0.5 for ``[[A>B]]``) and 0 when they disagree (``tasks/analysis/imports/confidence.py``). Each is imported
with ``debate-eval import judgebench`` into a temporary folder (the data is read from ``--data``, never copied
into the repository); an item's verdict agrees with the human label when it names the objectively correct
response (a tie never does).

For each alpha, ``--splits`` random calibration/test splits (half of the 350 pairs each, seeded): the thresholds
are chosen on the calibration half (``tasks.analysis.cascade``: fixed-sequence testing with exact
Clopper-Pearson bounds at delta/2 per judge) and the realised agreement on the decided test items is counted.
The guarantee asks that it reach alpha in at least 1 - delta of the splits (a split that decides nothing makes
no claim and counts as reaching it; how many there were is printed). Also printed: the mean share decided by
each judge and abstained, the mean agreement on decided items, its 5th percentile over splits, and judge 2's
calls per item (the share judge 1 passed on: the cascade's cost beyond the reward model).

Usage (from the repository root)::

    python scripts/bench_cascade.py --data ../shared/data/judgebench --splits 200 --out benchmarks/cascade.md
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the planted judges (tests/support)

from debate_eval.tasks.analysis.cascade import simulate
from debate_eval.tasks.analysis.labelled import align, load_judge
from debate_eval.tasks.cli.main import main as cli

PAIRS = "judgebench_gpt-4o-2024-05-13.jsonl"
JUDGES = {  # run name -> released outputs file
    "skywork-reward-gemma-2-27b": "outputs/reward_model_Skywork-Reward-Gemma-2-27B.jsonl",
    "internlm2-7b-reward": "outputs/reward_model_internlm2-7b-reward.jsonl",
    "o1-mini-arena-hard": "outputs/arena_hard_o1-mini-2024-09-12.jsonl",
}
STRONG = "o1-mini-arena-hard"


def import_runs(data: Path, folder: Path) -> dict[str, Path]:
    """Each released judge imported as a run directory."""
    runs = {}
    for name, outputs in JUDGES.items():
        out = folder / name
        status = cli(["import", "judgebench", str(data / PAIRS), str(data / outputs), "--out", str(out)])
        if status != 0:
            raise SystemExit(f"importing {outputs} failed")
        runs[name] = out
    return runs


def measure(runs: dict[str, Path], alphas: list[float], delta: float, splits: int, seed: int) -> list[str]:
    """The Markdown rows: one per (judge 1, alpha)."""
    judges = {name: load_judge(path, name) for name, path in runs.items()}
    rows = []
    for cheap in ("skywork-reward-gemma-2-27b", "internlm2-7b-reward"):
        aligned = align([judges[cheap], judges[STRONG]])
        alone = [float(c.mean()) for c in aligned.correct]
        for alpha in alphas:
            result = simulate(
                aligned.names, list(aligned.confidence), list(aligned.correct), alpha, delta, splits=splits, seed=seed
            )
            realised = [s.test.agreement for s in result.splits if s.test.agreement is not None]
            empty = sum(s.test.agreement is None for s in result.splits)
            reached = sum(a >= alpha for a in realised)
            among = f"{reached / len(realised):.1%}" if realised else "-"
            low = float(np.percentile(realised, 5)) if realised else float("nan")
            rows.append(
                f"| {cheap} ({alone[0]:.1%}) | {alpha:g} | {result.held:.1%} | {empty} | {among} | "
                f"{result.mean('agreement'):.3f} | {low:.3f} | {result.mean(cheap):.1%} | "
                f"{result.mean(STRONG):.1%} | {result.mean('abstained'):.1%} | {1 - result.mean(cheap):.2f} |"
            )
        rows.append(f"| (o1-mini alone: {alone[1]:.1%} of pairs right) | | | | | | | | | | |")
    return rows


def planted_rows(alphas: list[float], delta: float, splits: int, seed: int) -> list[str]:
    """The same simulation on the planted judges of the tests (``support.planted_judges``: judge 1 right with
    probability equal to its confidence, uniform on [0.5, 1]; judge 2 right with probability 0.4 + 0.6 x its
    confidence), 350 items."""
    from support.planted_judges import planted, population_agreement

    confidences, corrects = planted(350, seed=seed)
    rows = []
    for alpha in alphas:
        result = simulate(["planted 1", "planted 2"], confidences, corrects, alpha, delta, splits=splits, seed=seed)
        empty = sum(s.test.agreement is None for s in result.splits)
        population = [population_agreement([t.value for t in s.thresholds]) for s in result.splits]
        held = sum(value is None or value >= alpha for value in population) / len(population)
        rows.append(
            f"| planted (75% / 85%) | {alpha:g} | {held:.1%} | {result.held:.1%} | {empty} | "
            f"{result.mean('agreement'):.3f} | {result.mean('planted 1'):.1%} | {result.mean('planted 2'):.1%} | "
            f"{result.mean('abstained'):.1%} |"
        )
    return rows


def main() -> int:
    """Run the simulation and write the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/judgebench"))
    parser.add_argument("--splits", type=int, default=200)
    parser.add_argument("--alphas", default="0.7,0.8")
    parser.add_argument("--delta", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the Markdown report here")
    args = parser.parse_args()
    if not (args.data / PAIRS).is_file():
        print(f"bench_cascade: {args.data / PAIRS} not found (give --data the judgebench folder)", file=sys.stderr)
        return 2
    load = os.getloadavg()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        runs = import_runs(args.data, Path(folder))
        alphas = [float(a) for a in args.alphas.split(",")]
        rows = measure(runs, alphas, args.delta, args.splits, args.seed)
    planted = planted_rows(alphas, args.delta, args.splits, args.seed)
    elapsed = time.perf_counter() - started
    command = (
        f"python scripts/bench_cascade.py --data {args.data} --splits {args.splits} --alphas {args.alphas} "
        f"--delta {args.delta:g} --seed {args.seed}" + (f" --out {args.out}" if args.out else "")
    )
    text = "\n".join(
        [
            "# The cascade's guarantee on JudgeBench's released judgments",
            "",
            "Produced by `scripts/bench_cascade.py` (its docstring says what is computed):",
            "",
            f"```bash\n{command}\n```",
            "",
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} "
            f"{load[2]:.2f} at the start; {elapsed:.0f} s in all. Python {platform.python_version()}.",
            "",
            f"{args.splits} random calibration/test splits of the 350 pairs (175 each), delta = {args.delta:g}: "
            "judge 1 a reward model (its accuracy alone in brackets), judge 2 the o1-mini Arena-Hard judge, "
            "then a person.",
            "",
            "| judge 1 | alpha | splits with agreement ≥ alpha | splits deciding nothing | ≥ alpha among splits "
            "that decided | mean agreement on decided | 5th percentile | judge 1 decides | judge 2 decides | "
            "abstained | judge 2 calls per item |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            *rows,
            "",
            "Agreement here is the verdict of a `--swap` pair (a tie when the two orders disagree) equal to the "
            "label, so o1-mini alone is right on fewer pairs than JudgeBench's own metric gives it (65.71%: a "
            "pair counts as right there when one order is right and the other a tie).",
            "",
            "The same on planted judges of known accuracy (the tests' `support.planted_judges`: judge 1 right with "
            "probability equal to its confidence, uniform on [0.5, 1]; judge 2 right with probability 0.4 + 0.6 x "
            "its confidence), 350 items:",
            "",
            "| judges | alpha | splits whose decided items' population agreement ≥ alpha | splits with realised "
            "test agreement ≥ alpha | splits deciding nothing | mean agreement on decided | judge 1 decides | "
            "judge 2 decides | abstained |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            *planted,
            "",
            "For the planted judges the population agreement of the decided items is known by construction "
            "(`population_agreement`): that is what the guarantee is about, and it holds. The realised agreement "
            "on 175 test items adds the test sample's own noise: where the thresholds put the population agreement "
            "just above alpha, a finite test set falls below it about as often as not, so the realised criterion "
            "can miss 1 - delta while the guarantee holds. On JudgeBench the confidences are coarse (o1-mini's "
            "take four values), so the decided items' agreement lands well above alpha and the realised criterion "
            "holds too.",
            "",
            "The check is the third column of each table: at least 1 - delta = "
            f"{1 - args.delta:.0%} of the splits. The guarantee is over calibration draws (each split is one "
            "draw), for items exchangeable with the calibration items, and about the decided items only: the "
            "abstained share is not bounded.",
            "",
        ]
    )
    print(text)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
