"""A new method with a single and a pairwise form, written as a method author would: one folder (a package in
a temporary directory) that imports only the method kit, and one registration line (its entry point). It runs
offline on the scripted provider, which answers its own agent with the replies its folder registers."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents import roles
from debate_eval.debates import base
from debate_eval.tasks.cli.main import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "extending" / "method.md"


def docs_files() -> dict[str, str]:
    """The method's files as the docs page shows them: each Python block whose first line names its file
    (``# mine/method.py``), by that name."""
    blocks = re.findall(r"```python\n# (\S+\.py)\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    return {name: text for name, text in blocks}


PAIRS = """id,prompt,answer_1,answer_2,winner
a,What is the capital of France?,Paris.,Lyon.,A
b,How many legs has a spider?,Six.,Eight.,B
"""


@pytest.fixture
def tiny_method(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The docs' method folder on the path and its one registration line (an entry point); the registry and
    the role vocabulary are private copies, so the method is gone after the test."""
    files = docs_files()
    folder = tmp_path / "src" / "mine"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    for name in ("mine/scripted.py", "mine/method.py", "mine/judging.py"):
        (tmp_path / "src" / name).write_text(files[name], encoding="utf-8")
    monkeypatch.syspath_prepend(str(folder.parent))
    base.all_methods()
    monkeypatch.setattr(base, "_REGISTRY", dict(base._REGISTRY))
    monkeypatch.setattr(base, "_PLUGINS_TRIED", set())
    monkeypatch.setattr(base, "_SOURCES", {})
    monkeypatch.setattr(roles, "ROLE_OF", dict(roles.ROLE_OF))
    entry = metadata.EntryPoint(name="tiny", value="mine.method", group=base.ENTRY_POINT_GROUP)
    monkeypatch.setattr(base, "_entry_points", lambda: [entry])
    yield files
    for name in [m for m in sys.modules if m == "mine" or m.startswith("mine.")]:
        del sys.modules[name]


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_new_method_runs_offline_in_both_forms(isolated_env: Path, tiny_method: dict[str, str]) -> None:
    common = ["--method", "tiny", "--provider", "scripted", "--no-progress"]
    single = ["run", *common, "--dataset", "summeval", "--aspect", "coherence", "--limit", "2"]
    assert main([*single, "--out", str(isolated_env / "single")]) == 0
    scored = records(isolated_env / "single")
    # the method's own reply (2), not the scripted server's Scorer reply (3)
    assert [r["score"] for r in scored] == [2.0, 2.0]
    assert {e["agent"] for r in scored for e in r["transcript"]} == {"user", "Tiny"}

    (isolated_env / "pairs.csv").write_text(PAIRS, encoding="utf-8")
    fields = "id=id,question=prompt,output_a=answer_1,output_b=answer_2,label=winner"
    pairwise = ["run", *common, "--dataset", str(isolated_env / "pairs.csv"), "--aspect", "preference"]
    pairwise += ["--fields", fields, "--labels", "first=A,second=B,tie=T", "--out", str(isolated_env / "pairs")]
    assert main(pairwise) == 0
    # its pairwise reply ([[B]]), not the Scorer's ([[A]])
    assert [r["verdict"] for r in records(isolated_env / "pairs")] == ["second", "second"]


def test_its_agent_answers_are_matched_to_their_calls(isolated_env: Path, tiny_method: dict[str, str]) -> None:
    """``Tiny`` is registered as a scorer (``register_roles``), so each of its answers carries its call's cache
    flag and finish reason, and a run answered from the cache counts no model call and bills no token."""
    single = ["run", "--method", "tiny", "--provider", "scripted", "--no-progress", "--dataset", "summeval"]
    single += ["--aspect", "coherence", "--limit", "2"]
    assert main([*single, "--out", str(isolated_env / "first")]) == 0
    assert main([*single, "--out", str(isolated_env / "again")]) == 0
    for out, cached in (("first", False), ("again", True)):
        for record in records(isolated_env / out):
            (answer,) = [e for e in record["transcript"] if e["agent"] == "Tiny"]
            assert (answer["role"], answer["cached"], answer["finish_reason"]) == ("scorer", cached, "stop")
            assert (record["llm_calls"], record["cached_calls"]) == ((0, 1) if cached else (1, 0))
            assert record["usage"]["scorer"]["billed_prompt_tokens"] == (
                0 if cached else answer["usage"]["prompt_tokens"]
            )


def test_the_docs_offline_test_passes(isolated_env: Path, tiny_method: dict[str, str]) -> None:
    """The plugin's own test, as the docs page writes it, passes against the method."""
    path = isolated_env / "test_method.py"
    path.write_text(tiny_method["tests/test_method.py"], encoding="utf-8")
    spec = importlib.util.spec_from_file_location("test_method", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.test_tiny_offline_in_both_forms()
