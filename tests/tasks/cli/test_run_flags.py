"""The run options' flags do not change by accident: every parser action of ``run`` (and of ``ablate``,
``robustness``, ``audit`` and ``repeat``, which share its flags), with its section, flags, dest, default, type,
choices, help, metavar, nargs and const, and the error line of some bad values, against a committed snapshot
(``run_flags.json``). The flags are generated from ``RunRequest``; the snapshot was written from the
hand-written flags they replaced, so the two are byte-identical.

What a registry adds (datasets, providers, roles, methods and their options) is not pinned here: a method's
options are generated from its ``Options`` (``test_methods.py``), and the lists a help text names are replaced
by placeholders. After a deliberate change of a run option, write the snapshot again and review its diff::

    python tests/tasks/cli/test_run_flags.py
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).with_name("run_flags.json")
COMMANDS = ("run", "ablate", "robustness", "audit", "repeat")
BAD_VALUES = (
    ["--limit", "0"],
    ["--concurrency", "1.5"],
    ["--max-retries", "-1"],
    ["--temperature", "x"],
    ["--role-model", "critic"],
    ["--role-model", "nobody=m"],
    ["--batch-wait", "0"],
    ["--batch-wait", "x"],
    ["--batch-max-requests", "0"],
    ["--provider", "nope"],
    ["--progress", "x"],
    ["--answer-format", "x"],
)


def subparser(name: str) -> argparse.ArgumentParser:
    from debate_eval.tasks.cli.main import build_parser

    parser = build_parser(name)
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return subparsers.choices[name]


def placeholders() -> dict[str, str]:
    """The registries' lists as a help text or an error writes them -> a placeholder."""
    from debate_eval.agents.models.providers import all_providers
    from debate_eval.agents.models.settings import ROLES
    from debate_eval.tasks.data.datasets import DATASETS

    providers = list(all_providers())
    return {
        ", ".join(DATASETS): "<datasets>",
        ", ".join(ROLES): "<roles>",
        ", ".join(repr(p) for p in providers): "<providers>",
    }


def normalised(value: Any, lists: dict[str, str]) -> Any:
    if isinstance(value, str):
        for text, token in lists.items():
            value = value.replace(text, token)
    return value


def flags() -> dict[str, Any]:
    """Every command's actions (a method's own options left out), and the errors of the bad values."""
    from debate_eval.agents.models.providers import all_providers
    from debate_eval.debates.base import method_option_names

    parsers = {command: subparser(command) for command in COMMANDS}  # every method loaded (and its roles)
    lists = placeholders()
    methods = set(method_option_names())
    found: dict[str, Any] = {}
    for command, parser in parsers.items():
        actions = []
        for group in parser._action_groups:
            for action in group._group_actions:
                if action.dest in methods:
                    continue
                choices = list(action.choices) if action.choices else None
                help_text = "<methods>" if action.dest == "method" and action.help != argparse.SUPPRESS else action.help
                actions.append(
                    {
                        "section": group.title,
                        "flags": action.option_strings,
                        "dest": action.dest,
                        "action": type(action).__name__,
                        "default": repr(action.default),
                        "type": getattr(action.type, "__name__", None),
                        "choices": "<providers>" if choices == list(all_providers()) else choices,
                        "help": normalised(help_text, lists),
                        "metavar": action.metavar,
                        "nargs": action.nargs,
                        "const": action.const,
                    }
                )
        found[command] = actions
    errors = {}
    for argv in BAD_VALUES:
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), contextlib.suppress(SystemExit):
            parsers["run"].parse_args(argv)
        errors[" ".join(argv)] = normalised(stderr.getvalue().splitlines()[-1], lists)
    found["errors"] = errors
    return found


def test_the_run_flags_match_the_snapshot() -> None:
    assert flags() == json.loads(SNAPSHOT.read_text(encoding="utf-8"))


if __name__ == "__main__":  # write the snapshot again
    SNAPSHOT.write_text(json.dumps(flags(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}", file=sys.stderr)
