"""The README's Python API examples run as written (against the scripted provider): ``evaluate`` gives the same
meta-evaluation numbers as ``debate-eval meta-eval RUN --json`` on the same run, and the ``Judge`` example
prints what its comments say."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_eval.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def api_examples() -> list[str]:
    """The Python blocks of the README's "Python API" section (.ci/run runs the first from the built wheel)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "the Python API section has no python block"
    return blocks


def api_example() -> str:
    """The first Python block of the README's "Python API" section."""
    return api_examples()[0]


def test_the_readme_example_runs_and_matches_the_command(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = api_example()
    assert 'provider="scripted"' in code and "debate_eval.evaluate(" in code
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md (Python API)", "exec"), namespace)
    printed = capsys.readouterr().out
    assert "spearman" in printed and "item_id" in printed
    run, meta = namespace["run"], namespace["meta"]
    assert len(run.records) == 32  # type: ignore[attr-defined]  # docs=2: two SummEval documents, 16 summaries each
    assert main(["meta-eval", str(run.path), "--json"]) == 0  # type: ignore[attr-defined]
    assert meta.to_dict() == json.loads(capsys.readouterr().out)  # type: ignore[attr-defined]


def test_the_readme_judge_example_prints_what_it_says(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = next(block for block in api_examples() if "debate_eval.Judge(" in block)
    assert 'provider="scripted"' in code
    namespace: dict[str, object] = {}
    exec(compile(code, "README.md (Judge)", "exec"), namespace)
    score_line, verdict_line = capsys.readouterr().out.splitlines()
    assert score_line == "3.0 0.5 parsed 2"  # the comment's values: the scripted Scorer's "Score: 3", two rounds
    verdict, ok = verdict_line.split()
    assert verdict in ("first", "second", "tie") and ok == "True"
    judgment = namespace["j"]
    assert judgment.ok and judgment.messages and judgment.rationale  # type: ignore[attr-defined]
    assert not list(isolated_env.rglob("results.jsonl"))  # no record_to: no run directory written
