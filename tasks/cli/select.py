"""``debate-eval select RUN...``: choose a judge from labels, confirmed on a held-out split.

The runs are candidate configurations judged on the same items, the simplest first; the labelled items are
split into a development part, where the best candidate is found, and a held-out part, where it must beat the
simplest with a paired test to be chosen (``tasks/analysis/select.py``). With ``--candidate SPEC ... --out DIR``
the candidates are run first, on the labelled items only, one run directory each under DIR (resumable;
``tasks/api/_select_run.py``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from debate_eval.tasks.analysis.select import DEFAULT_DEV_SHARE, DEFAULT_LEVEL, Selection
from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """Candidate runs of the same items, the simplest first: the one with the best agreement with the human
labels on a development split is compared with the simplest on a held-out split (McNemar, or the paired test of
meta-eval --compare); it is chosen only when significantly better, otherwise the simplest is kept. Tokens (and dollars)
per item beside each."""


def add_subparser(subparsers: Any) -> None:
    """Register ``select`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "select", handle_select, DESCRIPTION)
    parser.add_argument(
        "runs", nargs="*", metavar="RUN", help="candidate run directories of the same items (or --candidate)"
    )
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
    add_candidate_arguments(parser)


SELECT_OWN = ("labels", "seed")  # select's own --labels FILE and --seed (the split's), not run's


def add_candidate_arguments(parser: argparse.ArgumentParser) -> None:
    """``--candidate SPEC`` (repeated, the simplest first) and the ``run`` options the candidates share."""
    from debate_eval.tasks.cli.run import add_request_flag
    from debate_eval.tasks.engine import flags
    from debate_eval.tasks.engine.request import flags_of

    group = parser.add_argument_group("candidates to run (instead of RUN...)")
    group.add_argument(
        "--candidate",
        action="append",
        default=[],
        metavar="KEY=VALUE,...|FILE.toml",
        help="a configuration to run, the simplest first: options named as in a --config file "
        "(method=debate,max_rounds=2; critic=plain; model=gpt-4o; name=NAME names its run directory), or a TOML "
        "file of them; each is run on the labelled items only into OUT/NAME (a rerun continues)",
    )
    group.add_argument(
        "--config",
        metavar="FILE",
        help="a TOML file of the options the candidates share (flags given here win over it)",
    )
    sections = (flags.SELECTION_FLAGS, flags.METHOD_FLAGS, flags.MODEL_FLAGS, flags.REQUEST_FLAGS)
    for section in (*sections, flags.EXECUTION_FLAGS):
        shared = parser.add_argument_group(f"shared by the candidates: {section}")
        for name, flag in flags_of(section):
            if name not in SELECT_OWN:
                add_request_flag(shared, name, flag)


def select_candidates(args: argparse.Namespace) -> Selection:
    """Run ``args.candidate`` on the labelled items, then choose among their runs."""
    from debate_eval._select_run import select_by_running
    from debate_eval.agents.errors import UserError
    from debate_eval.tasks.cli.run import request_from_args

    if args.runs:
        raise UserError("select takes finished RUN directories or --candidate configurations to run, not both")
    if not args.out:
        raise UserError("select --candidate needs --out DIR, the folder of the candidates' run directories")
    shared = argparse.Namespace(**{**vars(args), **dict.fromkeys(SELECT_OWN)})  # select's own, not run options
    base = request_from_args(shared)
    selection, _ = select_by_running(
        args.candidate,
        out=args.out,
        base=base,
        labels=args.labels,
        dev=args.dev,
        seed=args.seed,
        level=args.level,
        announce=lambda line: print(line, file=sys.stderr, flush=True),
    )
    return selection


def handle_select(args: argparse.Namespace) -> int:
    """Choose among ``args.runs``."""
    from debate_eval.tasks.analysis.labelled import labels_of_file
    from debate_eval.tasks.analysis.select import select_judge

    if getattr(args, "candidate", None):
        selection = select_candidates(args)
    else:
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
