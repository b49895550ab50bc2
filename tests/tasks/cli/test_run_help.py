"""``run --help`` says what no key means, what each method does and which roles exist."""

from __future__ import annotations

import argparse
import re

import pytest

from debate_eval.agents.models.settings import ROLES
from debate_eval.debates.base import all_methods
from debate_eval.tasks.cli.main import main


def flat(text: str) -> str:
    """``text`` without argparse's line wrapping."""
    return re.sub(r"\s+", " ", re.sub(r"-\n\s*", "-", text))


def test_run_help_explains_models_methods_and_roles(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--help"])
    assert exit_.value.code == 0
    text = flat(capsys.readouterr().out)
    assert "no API key ($OPENAI_API_KEY) and no base URL" in text and "embedded local model" in text
    for name, method in all_methods().items():
        assert flat(f"{name} = {method.description}") in text, name
    assert f"ROLE one of {', '.join(ROLES)}" in text
    assert text.count(f"ROLE one of {', '.join(ROLES)}") == 3  # --role-provider, --role-model, --role-base-url


def test_one_default_method_for_run_show_rescore_and_the_analysis() -> None:
    """``--method``'s default is the registry's ``DEFAULT_METHOD``, a registered method; the analysis keeps its
    own copy (it loads without AutoGen), which must agree."""
    from debate_eval.debates.base import DEFAULT_METHOD
    from debate_eval.tasks.analysis.records import DEFAULT_PROTOCOL
    from debate_eval.tasks.cli.run import add_method_arguments, request_from_args
    from debate_eval.tasks.engine.build import method_name

    parser = argparse.ArgumentParser()
    add_method_arguments(parser)
    assert method_name(request_from_args(parser.parse_args([]))) == DEFAULT_METHOD == DEFAULT_PROTOCOL
    assert DEFAULT_METHOD in all_methods()


def test_run_help_groups_fit_on_one_screen(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Run options, models, model requests, data and each method's options are groups of their own, each at most
    45 lines on an 80-column terminal; the usage line is one line, not every flag."""
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("usage: debate-eval run --dataset") and lines[1] == ""
    starts = [i for i, line in enumerate(lines) if line and not line.startswith(" ") and line.endswith(":")]
    sizes = {lines[a]: b - a for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)}
    assert {"what to evaluate:", "method:", "execution:", "options of geval:"} <= set(sizes)
    assert any(title.startswith("models") for title in sizes) and any("model requests" in t for t in sizes)
    assert max(sizes.values()) <= 45, sizes
