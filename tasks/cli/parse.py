"""``debate-eval parse TEXT``: run the project's parser on one raw answer and say which rule decided (the
arguments' help says what a run passes to it)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from debate_eval.debates.scoring.scores import parse_score
from debate_eval.debates.scoring.verdicts import parse_verdict
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.data.templates import parse_scale

DESCRIPTION = """Parse one judge answer exactly as a run does, and print the value and the rule."""


def add_subparser(subparsers: Any) -> None:
    """Register ``parse`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "parse", handle_parse, DESCRIPTION)
    parser.add_argument("text", metavar="TEXT", help="the raw answer ('-' reads it from standard input)")
    parser.add_argument("--scale", default="1-5", metavar="LO-HI", help="the score scale (default 1-5)")
    parser.add_argument("--aspect", help="the aspect, accepted as a score label (e.g. coherence)")
    parser.add_argument("--verdict", action="store_true", help="parse a pairwise verdict (first/second/tie)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def handle_parse(args: argparse.Namespace) -> int:
    """Print the parsed score or verdict and the rule that produced it."""
    text = sys.stdin.read() if args.text == "-" else args.text
    if args.verdict:
        verdict = parse_verdict(text)
        payload = verdict.to_dict()
        shown = verdict.value if verdict.ok else "no verdict"
        line = f"verdict: {shown}  (rule: {verdict.method}; {verdict.status})\n{verdict.reason}"
    else:
        parsed = parse_score(text, parse_scale(args.scale), args.aspect)
        payload = {**parsed.to_dict(), "span": list(parsed.span) if parsed.span else None}
        shown = f"{parsed.value:g}" if parsed.value is not None else "no score"
        line = f"score: {shown}  (rule: {parsed.method}; {parsed.status})\n{parsed.reason}"
    print(json.dumps(payload, ensure_ascii=False) if args.json else line)
    return 0
