"""``import debate_eval``: a small typed module of lazy re-exports, with its version."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata, resources

import pytest

import debate_eval


def test_every_public_name_resolves_and_nothing_else_is_promised() -> None:
    for name in debate_eval.__all__:
        assert getattr(debate_eval, name) is not None, name
    assert set(debate_eval.__all__) <= set(dir(debate_eval))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        debate_eval.nope  # noqa: B018


def test_version_is_the_installed_distribution_and_the_command_prints_it() -> None:
    assert debate_eval.__version__ == metadata.version("debate-eval")
    shown = subprocess.run(
        [sys.executable, "-m", "debate_eval.tasks.cli.main", "--version"], capture_output=True, text=True, check=True
    )
    assert shown.stdout.strip() == f"debate-eval {debate_eval.__version__}"


def test_the_package_is_typed() -> None:
    assert resources.files("debate_eval").joinpath("py.typed").is_file()


def test_importing_it_loads_no_engine() -> None:
    code = (
        "import sys, debate_eval; print(sorted(m for m in sys.modules if m.startswith(('autogen', 'scipy', 'pandas'))))"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "[]"


def test_the_registry_and_parser_functions() -> None:
    assert "debate" in debate_eval.methods() and "geval" in debate_eval.methods()
    assert debate_eval.datasets()["summeval"].aspects["coherence"] == (1.0, 5.0)
    parsed = debate_eval.parse_score("Score: 4", scale="1-5")
    assert parsed.value == 4.0 and parsed.ok
    assert debate_eval.parse_score("Rating: 2 of 3", scale=(1, 3)).value == 2.0
    assert debate_eval.parse_score("no idea", scale=(1, 5)).value is None
    assert debate_eval.parse_verdict("[[A]]").value == "first"
