"""``debate-eval export RUN --format inspect --out FILE``: a run directory in another tool's format."""

from __future__ import annotations

import argparse
from typing import Any

from debate_eval.tasks.cli.main import command_parser

FORMATS = ("inspect",)
DESCRIPTION = """Write a run directory in another tool's format. inspect: an inspect_ai eval log (.eval or .json), one
sample per item with the transcript as its messages and the score, for inspect view (needs the [inspect] extra)."""


def add_subparser(subparsers: Any) -> None:
    """Register ``export`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "export", handle_export, DESCRIPTION)
    parser.add_argument("run", metavar="RUN", help="the run directory")
    parser.add_argument("--format", choices=FORMATS, required=True, help="the format to write")
    parser.add_argument("--out", required=True, metavar="FILE", help="the file to write (.eval or .json)")


def handle_export(args: argparse.Namespace) -> int:
    """Write the export and say where."""
    from debate_eval.integrations.inspect_log import export_inspect_log

    path = export_inspect_log(args.run, args.out)
    print(f"wrote {path}")
    return 0
