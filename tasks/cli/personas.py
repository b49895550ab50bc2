"""``debate-eval personas``: the built-in personas (Critic, Scorer, referees, ...) with their text."""

from __future__ import annotations

import argparse
from typing import Any

from debate_eval.agents.personas import ROLES, format_personas, list_personas
from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """Print every built-in persona (the system messages of the Scorer, the Critics, the Tie-breaker,
ChatEval's referees, ...) with its role; a persona name is what --critic and --chateval-roles take."""


def add_subparser(subparsers: Any) -> None:
    """Register ``personas`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "personas", handle_personas, DESCRIPTION)
    parser.add_argument("--role", choices=ROLES, help="only this role")


def handle_personas(args: argparse.Namespace) -> int:
    """Print the personas."""
    print(format_personas(list_personas(args.role)))
    return 0
