"""``debate-eval methods``: every registered evaluation method, built-in or plugin, with its options."""

from __future__ import annotations

import argparse
import json
from typing import Any

from debate_eval.debates.base import all_methods, method_options, method_source
from debate_eval.tasks.cli.main import command_parser

DESCRIPTION = """List every method 'run --method NAME' accepts: built-ins and the plugins installed through the entry
point group debate_eval.methods."""


def add_subparser(subparsers: Any) -> None:
    """Register ``methods`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "methods", handle_methods, DESCRIPTION)
    parser.add_argument("--json", action="store_true", help="a JSON list of objects instead of text")


def format_methods(described: list[dict[str, Any]], shares: dict[str, str] | None = None) -> str:
    """The text listing: a line per method, then its options indented (``shares``: method -> the earlier
    method whose options it shares, listed there once)."""
    lines: list[str] = []
    width = max([14, *(len(entry["name"]) for entry in described)])  # the names' column
    for entry in described:
        lines.append(f"{entry['name']:<{width}} {entry['description']}")
        lines.append(f"{'':<{width}} task types: {', '.join(entry['task_types'])}; from {entry['source']}")
        if shares and entry["name"] in shares:
            lines.append(f"{'':<{width + 2}}options: those of {shares[entry['name']]}")
            continue
        for option in entry["options"]:
            flags = ", ".join(option["flags"])
            if option["takes_value"]:
                value = option.get("metavar") or "VALUE"
                flags += f" {value}" if not option["choices"] else " {" + ",".join(map(str, option["choices"])) + "}"
            lines.append(f"{'':<{width + 2}}{flags}: {option['help']}")
    return "\n".join(lines)


def handle_methods(args: argparse.Namespace) -> int:
    """Print the methods."""
    methods = list(all_methods().values())
    described = [  # each method, JSON-ready: name, description, task types, options, where it is from
        {
            "name": method.name,
            "description": method.description,
            "task_types": list(method.task_types),
            "options": method_options(method),
            "source": method_source(method),
        }
        for method in methods
    ]
    if args.json:
        print(json.dumps(described, indent=2, ensure_ascii=False, default=str))
        return 0
    first: dict[Any, str] = {}
    shares = {}
    for method in methods:
        owner = first.setdefault(method.options_key(), method.name)
        if owner != method.name:
            shares[method.name] = owner
    print(format_methods(described, shares))
    return 0
