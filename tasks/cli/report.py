"""``debate-eval report``: one self-contained HTML page for one or several runs (see tasks/analysis/report)."""

from __future__ import annotations

import argparse
from typing import Any

from debate_eval.tasks.analysis.bootstrap import CI_METHODS, DEFAULT_CI_METHOD
from debate_eval.tasks.analysis.report import write_report
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.engine.rundir import refuse_run_file

DESCRIPTION = """Write one HTML file that opens offline: each run's settings, models, tokens and cost, the
meta-evaluation with bootstrap intervals beside the papers' numbers, plots, and every item with its transcript. Several
runs of the same items are compared side by side."""


def add_subparser(subparsers: Any) -> None:
    """Register ``report`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "report", handle_report, DESCRIPTION)
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run directories (or their results.jsonl)")
    parser.add_argument("--out", default="report.html", help="the HTML file to write (default: report.html)")
    parser.add_argument("--title", help="the page title (default: the runs' labels)")
    parser.add_argument("--data-dir", help="dataset folder for the judged texts (default: as for 'run')")
    parser.add_argument(
        "--no-texts", action="store_true", help="do not add the judged texts from the dataset (prompts only)"
    )
    parser.add_argument(
        "--ci-method",
        choices=CI_METHODS,
        default=DEFAULT_CI_METHOD,
        help="bootstrap interval of the meta-evaluation tables, as meta-eval --ci-method: percentile (default) "
        "or bca (scipy's bias-corrected and accelerated)",
    )
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="human labels of the run's items (labels.jsonl from the label page): the page's agreement figures, "
        "scatter and reliability diagram read them in place of the dataset's ratings",
    )


def handle_report(args: argparse.Namespace) -> int:
    """Write the report and print its path."""
    refuse_run_file(args.out)
    target = write_report(
        args.runs,
        args.out,
        title=args.title,
        data_dir=args.data_dir,
        with_texts=not args.no_texts,
        ci_method=args.ci_method,
        labels=args.labels,
    )
    print(f"report: {target} ({target.stat().st_size / 1e6:.1f} MB; open it in a browser, no server needed)")
    return 0
