"""``debate-eval select RUN...``: choose a judge from labels, confirmed on a held-out split.

The runs are candidate configurations judged on the same items, the simplest first; the labelled items are
split into a development part, where the best candidate is found, and a held-out part, where it must beat the
simplest with a paired test to be chosen (``tasks/analysis/select.py``).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from debate_eval.tasks.analysis.select import DEFAULT_DEV_SHARE, DEFAULT_LEVEL, Selection


def add_subparser(subparsers: Any) -> None:
    """Register ``select``."""
    parser = subparsers.add_parser(
        "select",
        help="choose a judge from labels: the best candidate run on a dev split, confirmed on a held-out split",
        description="Candidate runs of the same items, the simplest first: the one with the best agreement with "
        "the human labels on a development split is compared with the simplest on a held-out split (McNemar, or "
        "the paired test of meta-eval --compare); it is chosen only when significantly better, otherwise the "
        "simplest is kept. Tokens (and dollars) per item beside each.",
    )
    parser.add_argument("runs", nargs="+", metavar="RUN", help="candidate run directories of the same items")
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="labels.jsonl (the label page's download): these labels only; default: the runs' own human labels",
    )
    parser.add_argument(
        "--dev",
        type=float,
        default=DEFAULT_DEV_SHARE,
        metavar="SHARE",
        help=f"share of the labelled items (or groups) in the development split (default {DEFAULT_DEV_SHARE})",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the development/held-out split (default 0)")
    parser.add_argument(
        "--level",
        type=float,
        default=DEFAULT_LEVEL,
        help=f"the held-out test's significance level (default {DEFAULT_LEVEL})",
    )
    parser.add_argument("--json", action="store_true", help="print the selection as JSON")
    parser.set_defaults(handler=handle_select)


def handle_select(args: argparse.Namespace) -> int:
    """Choose among ``args.runs``."""
    from debate_eval.tasks.analysis.labelled import labels_of_file
    from debate_eval.tasks.analysis.select import select_judge

    labels = labels_of_file(args.labels, args.runs[0]) if args.labels else None
    selection = select_judge(args.runs, labels=labels, dev_share=args.dev, seed=args.seed, level=args.level)
    print(json.dumps(selection.to_dict(), indent=2) if args.json else format_selection(selection))
    return 0


def format_selection(selection: Selection) -> str:
    """The selection as text: one line per candidate, then the choice and why."""

    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    lines = [
        f"{selection.statistic} against the human labels: development split {selection.dev_items} items, held-out "
        f"{selection.test_items} (seed {selection.seed})"
        + (
            f"; {selection.not_shared_items} labelled items not judged by every candidate left out"
            if selection.not_shared_items
            else ""
        ),
        "",
        f"{'candidate':<32} {'dev':>7} {'held-out':>9} {'tokens/item':>12} {'$/item':>9}",
    ]
    for candidate in selection.candidates:
        marks = " (simplest)" if candidate.name == selection.simplest else ""
        marks += " <- chosen" if candidate.name == selection.chosen else ""
        usd = "-" if candidate.usd_per_item is None else f"{candidate.usd_per_item:.5f}"
        lines.append(
            f"{candidate.name[:32]:<32} {cell(candidate.dev):>7} {cell(candidate.test):>9} "
            f"{candidate.tokens_per_item:>12,.0f} {usd:>9}{marks}"
        )
    lines += ["", f"chosen: {selection.chosen}: {selection.reason()}"]
    return "\n".join(lines)
