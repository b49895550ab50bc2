"""``debate-eval merge OUT SHARD_DIR...``: one run directory from the shard directories of one command.

The shards (``run --shard K/N``) must share one configuration (the config hash; a mismatch names the fields
that differ). An item finished in two directories counts once; a failed line is superseded by a finished one.
``meta-eval``, ``report``, ``show`` and ``load_run`` read the merged directory as any run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """Write one run directory from shard directories of one configuration (run --shard K/N): the
configurations must match, an item finished in two shards counts once, a failed line is superseded by a finished one.
meta-eval, report and show read the result as any run."""


def add_subparser(subparsers: Any) -> None:
    """Register ``merge`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "merge", handle_merge, DESCRIPTION)
    parser.add_argument("out", metavar="OUT", help="a new run directory to write")
    parser.add_argument("shards", nargs="+", metavar="SHARD_DIR", help="the shard run directories")


def handle_merge(args: argparse.Namespace) -> int:
    """Merge and print what was written."""
    from debate_eval.tasks.analysis.end_of_run import compare_systems
    from debate_eval.tasks.engine.backends.shards import merge_shards

    report = merge_shards(Path(args.out), [Path(s) for s in args.shards], systems=compare_systems)
    for line in report.lines():
        print(line)
    print(f"next: debate-eval meta-eval {args.out}")
    return 0
