"""The README's Python API example runs as written (against the scripted provider) and gives the same
meta-evaluation numbers as ``debate-eval meta-eval RUN --json`` on the same run."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_eval.tasks.cli.main import main

ROOT = Path(__file__).resolve().parents[1]


def api_example() -> str:
    """The first Python block of the README's "Python API" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the Python API section has no python block"
    return match.group(1)


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
