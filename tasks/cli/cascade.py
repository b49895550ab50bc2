"""``debate-eval cascade RUN1 RUN2 --alpha A --delta D``: escalate with a guarantee over finished runs.

The runs judged the same items, the cheapest first; each record carries a ``confidence``. The labelled items
(the runs' own human labels, or ``--labels FILE``) are split at random into a calibration part, where the
thresholds are chosen (``tasks/analysis/cascade.py``), and a held-out part, where the cascade is reported: the
share each judge decides, the share left for a person, the cost, and the agreement realised. Items the cascade
leaves (held-out and unlabelled) are listed.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.cascade import (
    DEFAULT_MIN_DECIDED,
    NO_ITEM_ACCEPTED,
    CascadeReport,
    agreement_lower_bound,
)
from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """Over finished runs of the same items (cheapest judge first), choose each judge's confidence threshold
on a labelled calibration split so that the agreement with the human labels on the items the cascade decides is at least
--alpha with probability at least 1 - --delta (Trust or Escalate: fixed-sequence testing with exact binomial bounds);
report on the held-out split."""


def add_subparser(subparsers: Any) -> None:
    """Register ``cascade`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "cascade", handle_cascade, DESCRIPTION)
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories of the same items, cheapest first")
    parser.add_argument("--alpha", type=float, required=True, help="target agreement on the decided items, e.g. 0.8")
    parser.add_argument(
        "--delta", type=float, default=0.1, help="allowed probability that the target is missed (default 0.1)"
    )
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="labels.jsonl (the label page's download): these labels only; default: the runs' own human labels",
    )
    parser.add_argument(
        "--calibration",
        type=float,
        default=0.5,
        metavar="SHARE",
        help="share of the labelled items that choose the thresholds; the rest test them (default 0.5)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the calibration/test split (default 0)")
    parser.add_argument(
        "--tolerance",
        type=float,
        default=None,
        help="single scores: a score agrees with the human score within this distance (default 0.5)",
    )
    parser.add_argument(
        "--min-decided",
        type=int,
        default=DEFAULT_MIN_DECIDED,
        help=f"test a threshold only with this many calibration items above it (default {DEFAULT_MIN_DECIDED})",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")


def handle_cascade(args: argparse.Namespace) -> int:
    """Calibrate and report the cascade of ``args.runs``."""
    from debate_eval.tasks.analysis.cascade import cascade_runs
    from debate_eval.tasks.analysis.labelled import labels_of_file, load_judge

    if len(args.runs) < 2:
        raise UserError("cascade needs two runs or more (the cheapest first); one run alone is `meta-eval`")
    judges = [load_judge(path) for path in args.runs]
    labels = labels_of_file(args.labels, args.runs[0]) if args.labels else None
    try:
        report = cascade_runs(
            judges,
            alpha=args.alpha,
            delta=args.delta,
            labels=labels,
            calibration_share=args.calibration,
            seed=args.seed,
            tolerance=args.tolerance,
            min_decided=args.min_decided,
        )
    except ValueError as error:
        raise UserError(f"cascade: {error}") from None
    print(json.dumps(report.to_dict(), indent=2) if args.json else format_report(report))
    return 0


def format_report(report: CascadeReport) -> str:
    """The report as text: thresholds, the held-out split's shares, agreement and cost, the abstained items."""
    lines = [
        f"cascade of {' -> '.join(report.names)} -> a person; target agreement {report.alpha:g} on the decided "
        f"items with probability {1 - report.delta:g}",
        f"calibration: {report.calibration_items} labelled items (seed {report.seed}); held out: {report.test_items}"
        + (f"; {report.not_shared_items} items not judged by every run left out" if report.not_shared_items else ""),
        "",
        f"{'judge':<28} {'threshold':>10} {'calib. decided':>15} {'agree':>7} {'bound':>7} {'test share':>11}",
    ]
    shares = report.test.shares()
    for name, threshold in zip(report.names, report.thresholds, strict=True):
        value = f"{threshold.value:.4g}" if threshold.decides else "never"
        decided = f"{threshold.decided}/{threshold.reached}"
        agree = f"{threshold.agreed / threshold.decided:.3f}" if threshold.decided else "-"
        bound = f"{threshold.lower_bound:.3f}" if threshold.decided else "n/a"
        lines.append(f"{name[:28]:<28} {value:>10} {decided:>15} {agree:>7} {bound:>7} {shares[name]:>11.1%}")
    lines.append(f"{'(a person)':<28} {'':>10} {'':>15} {'':>7} {'':>7} {shares['abstained']:>11.1%}")
    if not all(threshold.decided for threshold in report.thresholds):
        lines.append(f"bound {NO_ITEM_ACCEPTED}: a judge never trusted decides no calibration item")
    lines.append("")
    if report.test.agreement is None:
        lines.append("held out: the cascade decided no item")
    else:
        bound = agreement_lower_bound(report.test.agreed or 0, report.test.decided, report.delta)
        met = "meets" if report.test.agreement >= report.alpha else "misses"
        lines.append(
            f"held out: agreement {report.test.agreement:.3f} on {report.test.decided} decided items "
            f"({met} the target {report.alpha:g}; exact {1 - report.delta:g} lower bound {bound:.3f})"
        )
    costs = ", ".join(
        f"{name} {tokens:,.0f}" for name, tokens in zip(report.names, report.tokens_per_item, strict=True)
    )
    usd = "" if report.cascade_usd_per_item is None else f", ${report.cascade_usd_per_item:.5f} per item"
    if any(report.tokens_per_item):
        lines.append(f"tokens per item: cascade {report.cascade_tokens_per_item:,.0f}{usd} (each judge alone: {costs})")
    else:  # imported judgments carry no usage
        lines.append(f"no token counts in these runs; judge 2 is called on {1 - shares[report.names[0]]:.1%} of items")
    shown = ", ".join(report.abstained[:20]) + (" ..." if len(report.abstained) > 20 else "")
    unlabelled = f", {report.unlabelled_items} unlabelled judged items included" if report.unlabelled_items else ""
    lines.append(f"left for a person: {len(report.abstained)} items{unlabelled}" + (f": {shown}" if shown else ""))
    lines.append("(the guarantee: over random calibration draws of exchangeable items, on the decided items only)")
    return "\n".join(lines)
