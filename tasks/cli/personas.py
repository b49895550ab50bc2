"""``debate-eval personas``: the built-in personas (Critic, Scorer, referees, ...) with their text."""

from __future__ import annotations

import argparse
from typing import Any

from debate_eval.agents.personas import ROLES, format_personas, list_personas


def add_subparser(subparsers: Any) -> None:
    """Register ``personas``."""
    parser = subparsers.add_parser(
        "personas",
        help="list the built-in personas with their text",
        description="Print every built-in persona (the system messages of the Scorer, the Critics, the "
        "Tie-breaker, ChatEval's referees, ...) with its role; a persona name is what --critic and "
        "--chateval-roles take.",
    )
    parser.add_argument("--role", choices=ROLES, help="only this role")
    parser.set_defaults(handler=handle_personas)


def handle_personas(args: argparse.Namespace) -> int:
    """Print the personas."""
    print(format_personas(list_personas(args.role)))
    return 0
