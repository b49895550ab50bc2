"""``debate-eval label``: a self-contained page where a person labels chosen items of a run (see
tasks/analysis/report/label_page.py); the labels it downloads are read with ``--labels FILE``."""

from __future__ import annotations

import argparse
from typing import Any

from debate_eval.tasks.analysis.label_choice import CHOICES, DEFAULT_LABELS, STRATIFIED
from debate_eval.tasks.analysis.report.label_page import label_page
from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """Write one HTML file that opens offline: --n items of the run, each with its judged texts, a rating
control on the run's scale (a verdict for pairwise runs) and the judge's transcript collapsed. Progress stays in the
browser; the page downloads labels.jsonl, which meta-eval, calibrate and the systems' PPI read with --labels FILE."""


def add_subparser(subparsers: Any) -> None:
    """Register ``label`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "label", handle_label, DESCRIPTION)
    parser.add_argument("run", metavar="RUN", help="a run directory (or its results.jsonl)")
    parser.add_argument(
        "--n", type=int, default=DEFAULT_LABELS, help=f"items to label (default {DEFAULT_LABELS}; all if fewer)"
    )
    parser.add_argument(
        "--choose",
        choices=CHOICES,
        default=STRATIFIED,
        help="how the items are chosen: stratified (default: a random sample in proportion to system x judge "
        "score x confidence strata, valid for PPI and calibrate), lowest-confidence (the judge's hardest items: "
        "not a random sample), random",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random draw (default 0)")
    parser.add_argument(
        "--out",
        default="label.html",
        help="the HTML file to write (default: label.html); an existing file is replaced only if it is a label page",
    )
    parser.add_argument("--title", help="the page title (default: Label RUN)")
    parser.add_argument("--data-dir", help="dataset folder for the judged texts (default: as for 'run')")


def handle_label(args: argparse.Namespace) -> int:
    """Write the label page and print its path."""
    page = label_page(
        args.run, args.out, n=args.n, how=args.choose, seed=args.seed, data_dir=args.data_dir, title=args.title
    )
    print(
        f"label page: {page.path} ({len(page.item_ids)} items chosen by {page.choice}; open it in a browser, no "
        "server needed; it downloads labels.jsonl)"
    )
    return 0
