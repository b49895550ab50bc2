"""``debate-eval ensemble RUN... --out DIR``: DialEvalML's per-aspect weighted ensemble of submetric runs.

See ``tasks/analysis/ensemble.py`` for the normalisation, the dev/test split and the two weightings. Writes
``DIR/results.jsonl`` (the test items, which ``meta-eval`` reads), ``DIR/dev.jsonl``, ``DIR/weights.json``
and ``DIR/config.json``; prints the test-split correlation of each submetric alone and of the ensemble.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import stable_hash
from debate_eval.tasks.analysis.ensemble import WEIGHTINGS, AspectFit, fit_ensemble
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.engine.results import ResultsWriteError, write_json_atomic
from debate_eval.tasks.engine.rundir import RunDir

WEIGHTS_FILE = "weights.json"
DEV_FILE = "dev.jsonl"
DESCRIPTION = """Per dataset/aspect, fit weights on a dev split of the human ratings (by group when the data has groups)
and score the test split; writes a run directory meta-eval reads (its results.jsonl holds the test items only) and
weights.json."""


def add_subparser(subparsers: Any) -> None:
    """Register ``ensemble`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "ensemble", handle_ensemble, DESCRIPTION)
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories (or results.jsonl) on the same items")
    parser.add_argument("--out", required=True, help="the ensemble's run directory")
    parser.add_argument(
        "--dev-fraction", type=float, default=0.3, help="share of groups/items that fit the weights (default 0.3)"
    )
    parser.add_argument(
        "--weights",
        choices=WEIGHTINGS,
        default="correlation",
        help="correlation: the paper's correlation re-scaling (default); regression: non-negative least squares",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the dev/test split (default 0)")


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    try:
        with path.open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise ResultsWriteError(f"{path}: cannot write ({exc.strerror})") from None


def write_ensemble(fits: list[AspectFit], out: Path, settings: dict[str, Any]) -> None:
    """The ensemble's run directory."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{out}: cannot create the output directory ({exc.strerror})") from None
    config_hash = stable_hash(settings)[:16]
    records = [{**r, "config_hash": config_hash} for fit in fits for r in fit.records]
    run_dir = RunDir(out)
    _write_jsonl(run_dir.results_path, [r for r in records if r["split"] == "test"])
    _write_jsonl(out / DEV_FILE, [r for r in records if r["split"] == "dev"])
    write_json_atomic(out / WEIGHTS_FILE, {**settings, "aspects": [fit.to_dict() for fit in fits]})
    result_config = {"protocol": "ensemble", **settings}
    if fits:
        result_config.update(dataset=fits[0].dataset, aspect=",".join(f.aspect for f in fits))
    run_dir.write_config({"config_hash": config_hash, "result_config": result_config}, seal=False)


def _cell(stats: dict[str, float] | None, name: str) -> str:
    return f"{stats[name]:+.3f}" if stats else "   -  "


def format_fits(fits: list[AspectFit]) -> str:
    """The table printed on screen: per aspect, each submetric's weight, dev ρ and test ρ / r, then the ensemble."""
    lines = []
    for fit in fits:
        lines.append(
            f"{fit.dataset}/{fit.aspect}: {len(fit.dev_items)} dev, {len(fit.test_items)} test items (split by "
            f"{fit.split_by})"
        )
        lines.append(f"  {'submetric':<28} {'weight':>8} {'dev rho':>8} {'test rho':>9} {'test r':>8}")
        for label, weight in zip(fit.submetrics, fit.weights, strict=True):
            dev = fit.dev_spearman.get(label)
            test = fit.test_correlations.get(label)
            dev_text = f"{dev:+.3f}" if dev is not None else "   -  "
            lines.append(
                f"  {label:<28} {weight:>8.3f} {dev_text:>8} {_cell(test, 'spearman'):>9} {_cell(test, 'pearson'):>8}"
            )
        ensemble = fit.test_correlations.get("ensemble")
        lines.append(
            f"  {'ENSEMBLE':<28} {'':>8} {'':>8} {_cell(ensemble, 'spearman'):>9} {_cell(ensemble, 'pearson'):>8}"
        )
    return "\n".join(lines)


def handle_ensemble(args: argparse.Namespace) -> int:
    """Fit, write and print."""
    fits, skipped = fit_ensemble(args.runs, args.weights, args.dev_fraction, args.seed)
    for line in skipped:
        print(f"debate-eval: skipped {line}", file=sys.stderr)
    out = Path(args.out)
    settings = {
        "runs": [str(Path(run)) for run in args.runs],
        "weighting": args.weights,
        "dev_fraction": args.dev_fraction,
        "seed": args.seed,
    }
    write_ensemble(fits, out, settings)
    print(format_fits(fits))
    print(f"written: {RunDir(out).results_path} (test items), {out / WEIGHTS_FILE}   next: debate-eval meta-eval {out}")
    return 0
