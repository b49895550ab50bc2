"""``debate-eval calibrate``: a monotone map from a judge's scores to the human scale, fitted on the labelled
items of a run, with its error before and after (cross-fitted), a transfer check by system, and the calibrated
means of the unlabelled items (see tasks/analysis/calibration.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import DEFAULT_RESAMPLES, MAX_RESAMPLES, check_resamples
from debate_eval.tasks.analysis.calibration import DEFAULT_FOLDS, Calibration, calibrate_records, check_apply_run
from debate_eval.tasks.analysis.labels import labelled_run_rows, scale_of_run
from debate_eval.tasks.analysis.records import load_results, number, results_path
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.engine.rundir import refuse_foreign_file, refuse_run_file

DESCRIPTION = """Fit an isotonic (monotone) map from the judge's score to the human rating on the run's labelled items;
report the calibration error (MAE, ECE) before and after with bootstrap intervals, cross-fitted so the 'after' is
honest; test whether each system's residual differs from the others' (Welch, Holm-adjusted); and give the calibrated
mean of the unlabelled items, overall and per system, with a cross-prediction-powered interval."""
CALIBRATED_FIELDS = ("item_id", "system_id", "score", "calibrated")  # a line of --out


def add_subparser(subparsers: Any) -> None:
    """Register ``calibrate`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "calibrate", handle_calibrate, DESCRIPTION)
    parser.add_argument("run", metavar="RUN", help="a run directory (or its results.jsonl)")
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="human labels (labels.jsonl from the label command): they are the ratings, in place of the dataset's",
    )
    parser.add_argument(
        "--apply",
        metavar="RUN",
        help="apply the map to this run's scores (default: the run's unlabelled items); a run of the same judge "
        "model, method, aspect and scale",
    )
    parser.add_argument(
        "--folds", type=int, default=DEFAULT_FOLDS, help=f"cross-fitting folds (default {DEFAULT_FOLDS})"
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_RESAMPLES,
        help=f"resamples for the intervals (default {DEFAULT_RESAMPLES}; at most {MAX_RESAMPLES:,})",
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the folds and resamples")
    parser.add_argument("--json", action="store_true", help="print the calibration as JSON")
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="also write each scored item of the run (of --apply's run when given) with its calibrated score, "
        "one JSON line each: item_id, system_id, score, calibrated",
    )


def handle_calibrate(args: argparse.Namespace) -> int:
    """Print the calibration."""
    if args.folds < 2:
        raise UserError(f"--folds {args.folds}: give 2 or more")
    check_resamples(args.bootstrap)
    if args.out:
        refuse_run_file(args.out)
        what = "a file of calibrated scores written by debate-eval calibrate"
        refuse_foreign_file(Path(args.out), what, _holds_calibrated_scores)
    records = load_results([results_path(args.run)])
    if args.labels:
        records = labelled_run_rows(records, args.labels, args.run)
    other = load_results([results_path(args.apply)]) if args.apply else None
    aspects = {str(row.aspect) for row in records}
    scale = scale_of_run(args.run, next(iter(aspects))) if len(aspects) == 1 else None
    if args.apply:
        check_apply_run(args.run, args.apply, next(iter(aspects)) if len(aspects) == 1 else None)
    options: dict[str, Any] = {"folds": args.folds, "bootstrap": args.bootstrap, "scale": scale}
    if args.seed is not None:
        options["seed"] = args.seed
    calibration = calibrate_records(records, apply_to=other, **options)
    if args.json:
        print(json.dumps(calibration.to_dict(), indent=2))
    else:
        print(format_calibration(calibration))
    if args.out:
        rows = [row for row in (other if other is not None else records) if number(row.score) is not None]
        calibrated = calibration.map([float(row.score) for row in rows])  # type: ignore[arg-type]
        lines = [
            json.dumps(dict(zip(CALIBRATED_FIELDS, (row.key, row.system_id, row.score, float(value)), strict=True)))
            for row, value in zip(rows, calibrated, strict=True)
        ]
        Path(args.out).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        print(f"calibrated scores of {len(lines)} items: {args.out}", file=sys.stderr if args.json else sys.stdout)
    return 0


def _holds_calibrated_scores(target: Path) -> bool:
    """Whether ``target``'s first line is one ``--out`` writes: an earlier file of calibrated scores (or an
    empty file) is replaced, a data or labels file kept; a folder is not refused here."""
    try:
        with target.open("rb") as handle:
            first = handle.readline()
    except (FileNotFoundError, IsADirectoryError):
        return True
    try:
        return not first.strip() or tuple(json.loads(first)) == CALIBRATED_FIELDS
    except (ValueError, TypeError):
        return False


def _with_ci(entry: dict[str, Any], name: str) -> str:
    interval = (entry.get("ci95") or {}).get(name)
    text = f"{entry[name]:.3f}"
    return text + (f" [{interval[0]:.3f}, {interval[1]:.3f}]" if interval else "")


def _mean(entry: dict[str, Any]) -> str:
    calibrated = entry["calibrated"]
    judge = entry["judge_only"]
    judge_text = f"judge only {judge:.3f}" if judge is not None else "no judge scores"
    if isinstance(calibrated, str):
        return f"calibrated: {calibrated}; {judge_text}"
    low, high = calibrated["ci95"]
    return f"calibrated {calibrated['mean']:.3f} [{low:.3f}, {high:.3f}]; {judge_text}"


def format_calibration(calibration: Calibration) -> str:
    """The calibration as text."""
    knots = ", ".join(f"{x:g}->{y:.2f}" for x, y in zip(calibration.map.knots, calibration.map.values, strict=True))
    lines = [
        f"Calibration from {calibration.n_labelled} labelled items ({calibration.folds}-fold cross-fitted), "
        "95% bootstrap intervals",
        f"  map (judge score -> human scale): {knots}",
        "                 before                  after (cross-fitted)    before - after",
    ]
    for name in ("mae", "ece"):
        lines.append(
            f"  {name:<5}  {_with_ci(calibration.error_before, name):<24}{_with_ci(calibration.error_after, name):<24}"
            f"{_with_ci(calibration.improvement, name)}"
        )
    if calibration.by_system:
        lines.append("Transfer by system: residual (human - calibrated), Welch vs the other systems, Holm-adjusted")
        for entry in calibration.by_system:
            interval = entry["ci95"]
            where = f"[{interval[0]:.3f}, {interval[1]:.3f}]" if isinstance(interval, list) else f"({interval})"
            test = f"p {entry['p']:.3g}, Holm {entry['p_holm']:.3g}" if "p_holm" in entry else "not tested"
            flag = "  FLAGGED: the map does not transfer" if entry.get("flagged") else ""
            lines.append(f"  {entry['system']}: n={entry['n']} residual {entry['residual']:+.3f} {where}; {test}{flag}")
    applied = calibration.applied
    lines.append(
        f"Applied to {applied['n_unlabelled']} unlabelled items (cross-prediction-powered 95% interval): "
        + _mean(applied)
    )
    for name, entry in (applied.get("systems") or {}).items():
        lines.append(f"  {name}: {entry['n_labelled']} labelled, {entry['n_unlabelled']} unlabelled: {_mean(entry)}")
    return "\n".join(lines)
