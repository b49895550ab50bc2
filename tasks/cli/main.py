"""The ``debate-eval`` command: one entry point, one subcommand per job.

Errors caused by input or environment (``UserError``) are printed on one line, with secrets masked, and
give exit status 2; an interrupted run says how to resume.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.personas import ROLES, format_personas, list_personas
from debate_eval.agents.redaction import redact
from debate_eval.tasks.engine.environment import prepare_environment

# Modules that each register one subcommand with ``add_subparser(subparsers)``.
COMMAND_MODULES = (
    "debate_eval.tasks.cli.run",
    "debate_eval.tasks.cli.datasets",
    "debate_eval.tasks.cli.show",
    "debate_eval.tasks.cli.meta_eval",
    "debate_eval.tasks.cli.parse",
    "debate_eval.tasks.cli.import_",
    "debate_eval.tasks.cli.methods",
    "debate_eval.tasks.cli.rescore",
    "debate_eval.tasks.data.download",
    "debate_eval.tasks.cli.ablate",
    "debate_eval.tasks.cli.repeat",
    "debate_eval.tasks.cli.report",
    "debate_eval.tasks.cli.ensemble",
    "debate_eval.tasks.cli.robustness",
    "debate_eval.tasks.cli.audit",
)


def _personas(args: argparse.Namespace) -> int:
    print(format_personas(list_personas(args.role)))
    return 0


def _aspects(args: argparse.Namespace) -> int:
    from debate_eval.tasks.cli.datasets import print_aspects

    return print_aspects(args)


def _version() -> str:
    from debate_eval import __version__

    return str(__version__)


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser."""
    parser = argparse.ArgumentParser(
        prog="debate-eval",
        description="DEBATE: multi-agent NLG evaluation (Scorer vs Devil's-Advocate Critic) on AutoGen.",
    )
    parser.add_argument("--version", action="version", version=f"debate-eval {_version()}")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module: Any = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.add_subparser(subparsers)
    personas = subparsers.add_parser("personas", help="list the built-in personas with their text")
    personas.add_argument("--role", choices=ROLES, help="only this role")
    personas.set_defaults(handler=_personas)
    aspects = subparsers.add_parser("aspects", help="list the datasets and their aspects")
    aspects.set_defaults(handler=_aspects)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        prepare_environment(getattr(args, "env_file", None))  # before anything reads a setting (DEBATE_EVAL_DEBUG)
        return int(args.handler(args))
    except UserError as error:
        print(f"debate-eval: error: {redact(str(error))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the output was piped into a command that stopped reading (| head)
        sys.stderr.close()
        return 141
    except OSError as error:  # a file or folder the command could not read or write (disk full, read-only)
        where = f"{error.filename}: " if error.filename else ""
        print(f"debate-eval: error: {redact(where + (error.strerror or str(error)))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        out = getattr(args, "out", None) or "the run directory"
        start = "\n" if sys.stderr.isatty() else ""  # after the terminal's ^C (and a progress bar)
        print(
            f"{start}debate-eval: interrupted; finished items are saved in {out}; rerun the same command to resume",
            file=sys.stderr,
        )
        return 130


if __name__ == "__main__":
    sys.exit(main())
