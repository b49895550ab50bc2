"""``debate-eval jury RUN... --out DIR``: several judges' runs of the same items combined into one jury.

Each run is one juror (a model, maybe from another provider: ``debate-eval run --provider anthropic ...``);
``tasks/analysis/jury.py`` combines their answers per item (mean or majority, as self-consistency combines its
samples), leaves a split jury unscored (or gives the combination's own answer), and records the jurors'
agreement as the jury's ``confidence``. Writes a run directory that ``show``, ``meta-eval`` and ``cascade`` read.
"""

from __future__ import annotations

import argparse
from typing import Any

from debate_eval.debates.kit.combine import COMBINES, MAJORITY
from debate_eval.tasks.analysis.jury import SPLITS, UNSCORED
from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """Per item, the jurors' scores or verdicts combined by mean or majority; a split jury left unscored (or
given the combination's own answer); the jurors' agreement recorded as the confidence, so 'debate-eval cascade JURY
STRONGER' escalates the split ones. Writes a run directory."""


def add_subparser(subparsers: Any) -> None:
    """Register ``jury`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "jury", handle_jury, DESCRIPTION)
    parser.add_argument("runs", nargs="+", metavar="RUN", help="the jurors' run directories, of the same items")
    parser.add_argument(
        "--out", required=True, help="the jury's run directory: a new one (one holding results is refused)"
    )
    parser.add_argument(
        "--combine", choices=COMBINES, default=MAJORITY, help=f"how the answers combine (default {MAJORITY})"
    )
    parser.add_argument(
        "--split",
        choices=SPLITS,
        default=UNSCORED,
        help="a majority with no single most common answer: unscored (default; listed), or combine (a tie for "
        "verdicts, the mean of the tied scores)",
    )


def handle_jury(args: argparse.Namespace) -> int:
    """Write the jury of ``args.runs``."""
    from debate_eval.tasks.analysis.jury import write_jury

    result = write_jury(args.runs, args.out, combine=args.combine, split=args.split)
    left = f"; {result.left_out} items not judged by every juror left out" if result.left_out else ""
    print(f"jury of {', '.join(result.jurors)} ({args.combine}): {result.items} items, {result.split} split{left}")
    if result.unscored:
        shown = ", ".join(result.unscored[:20]) + (" ..." if len(result.unscored) > 20 else "")
        print(f"left unscored (split): {shown}")
    print(f"results: {result.out}   next: debate-eval meta-eval {result.out} | debate-eval cascade {result.out} RUN")
    return 0
