"""``--help``: every command described, plain text (no RST backticks), and fast: ``--help`` and
``run --help`` import no scipy, AutoGen, openai or matplotlib (the time itself: benchmarks/startup.md)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from debate_eval.tasks.cli.main import COMMANDS, build_parser, main

HEAVY = ("scipy", "autogen_core", "autogen_agentchat", "autogen_ext", "openai", "matplotlib", "pandas", "numpy")


def parsers() -> dict[str, argparse.ArgumentParser]:
    found = {}
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, parser in action.choices.items():
                found[name] = parser
                for sub in parser._actions:
                    if isinstance(sub, argparse._SubParsersAction):
                        found.update({f"{name} {n}": p for n, p in sub.choices.items()})
    return found


def test_every_command_has_a_description_and_no_rst_backticks() -> None:
    for name, parser in parsers().items():
        assert parser.description, f"{name} has no description"
        text = parser.format_help()
        assert "`" not in text, f"{name} --help has a backtick: " + next(
            line for line in text.splitlines() if "`" in line
        )
    assert "`" not in build_parser().format_help()


def test_no_help_shows_a_doubled_percent_sign() -> None:
    """argparse formats an argument's help with %, not a description: '95%%' there prints as is."""
    for name, parser in parsers().items():
        text = parser.format_help()
        assert "%%" not in text, f"{name} --help: " + next(line for line in text.splitlines() if "%%" in line)


def test_the_listed_help_lines_are_the_commands_own() -> None:
    listed = build_parser(None)  # what `debate-eval --help` builds: one line per command, no module imported
    full = build_parser()
    short = {a.dest: a.help for a in next(x for x in listed._actions if x.dest == "command")._choices_actions}
    own = {a.dest: a.help for a in next(x for x in full._actions if x.dest == "command")._choices_actions}
    assert short == own == {name: help_line for name, (_, help_line) in COMMANDS.items()}


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"]])
def test_help_imports_no_heavy_library(argv: list[str]) -> None:
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['debate-eval', *{argv!r}]\n"
        "try:\n    runpy.run_module('debate_eval.tasks.cli.main', run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "usage: debate-eval" in done.stdout
    assert json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"')) == []


def test_aspects_is_a_hidden_name_of_datasets_brief(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["datasets", "--brief"]) == 0
    brief = capsys.readouterr().out
    assert brief.startswith("summeval: coherence (1-5)")
    assert main(["aspects"]) == 0
    assert capsys.readouterr().out == brief
    listed = next(x for x in build_parser(None)._actions if x.dest == "command")._choices_actions
    assert "aspects" not in {action.dest for action in listed}


def test_descriptions_survive_python_OO() -> None:
    """``python -OO`` drops docstrings: a command's description is a string of its own, so it stays."""
    done = subprocess.run(
        [sys.executable, "-OO", "-m", "debate_eval.tasks.cli.main", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "every role uses the embedded local model" in " ".join(done.stdout.split())
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\nfrom test_help import parsers\n"
        "print([name for name, parser in parsers().items() if not parser.description])\n"
    )
    here = str(Path(__file__).parent)
    done = subprocess.run([sys.executable, "-OO", "-c", code, here], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
