"""``debate-eval plan-labels RUN --width W``: how many human labels a target interval width needs (what it
prints: :data:`DESCRIPTION`; PPI++'s variance with the pilot's spreads and judge-human covariance:
:func:`debate_eval.tasks.analysis.ppi.plan_labels`)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """From a pilot run's outputs that carry a human rating beside the judge's score: per system, how many
human labels a 95% interval of its mean human score at most --width wide needs from the ratings alone (t interval) and
with the judge's scores of every output (prediction-powered inference, PPI++)."""


def add_subparser(subparsers: Any) -> None:
    """Register ``plan-labels`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "plan-labels", handle_plan_labels, DESCRIPTION)
    parser.add_argument("run", metavar="RUN", help="the pilot run directory (or its results.jsonl)")
    parser.add_argument("--width", type=float, required=True, help="the target width of the 95%% interval")
    parser.add_argument(
        "--outputs",
        type=int,
        default=None,
        metavar="N",
        help="outputs per system the judge will score (default: each system's scored outputs in the run)",
    )
    parser.add_argument("--json", action="store_true", help="print the plan as JSON")


def handle_plan_labels(args: argparse.Namespace) -> int:
    """Print the label plan."""
    from debate_eval.tasks.analysis.ppi import plan_labels, plan_lines
    from debate_eval.tasks.analysis.records import load_results, results_path

    if not math.isfinite(args.width) or args.width <= 0:
        raise UserError(f"--width {args.width:g}: give a positive interval width on the score scale")
    if args.outputs is not None and args.outputs < 3:
        raise UserError(f"--outputs {args.outputs}: give the number of outputs per system the judge scores (>= 3)")
    records = load_results([results_path(args.run)])
    if records and all(record.pairwise for record in records):
        raise UserError(f"{args.run}: a pairwise run (verdicts); plan-labels plans the labels of scored outputs")
    plan = plan_labels(records, args.width, args.outputs)
    if not plan["parts"]:
        raise UserError(
            f"{args.run}: no system has 3 outputs with both a judge score and a human rating: nothing to plan from"
        )
    print(json.dumps(plan, indent=2) if args.json else "\n".join(plan_lines(plan)))
    return 0
