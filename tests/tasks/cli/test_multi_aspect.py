"""``run --aspect a,b`` / ``all``: every item once per aspect in one run directory, resumed per item and aspect;
the done-when case of issue 13 (a scripted endpoint answering "3", dialevalml on 4 fed_turn items)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def run(server: ScriptedOpenAIServer, out: Path, dataset: str, aspect: str, *extra: str, limit: int = 4) -> int:
    args = ["run", "--dataset", dataset, "--aspect", aspect, "--limit", str(limit), "--out", str(out)]
    return main([*args, "--base-url", server.base_url, "--model", "scripted", "--no-progress", *extra])


def test_dialevalml_two_aspects_on_fed_turn(
    isolated_env: Path, dataset_path: Callable[[str], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    dataset_path("fed_turn")
    out = isolated_env / "multi"
    with ScriptedOpenAIServer() as server:  # the evaluator (no system message) answers "3"
        assert run(server, out, "fed_turn", "relevant,interesting", "--protocol", "dialevalml") == 0
        first = server.count
        assert run(server, out, "fed_turn", "relevant,interesting", "--protocol", "dialevalml") == 0
        assert server.count == first  # resumed per item and aspect: no model call
    found = records(out)
    assert len(found) == 8 and first == 8 + 1  # one call per item and aspect, plus the endpoint check
    assert {(r["item_id"], r["aspect"]) for r in found} == {
        (f"turn-00{i}", a) for i in range(1, 5) for a in ("relevant", "interesting")
    }
    assert all(r["score"] == 3.0 and r["score_normalized"] == 0.5 for r in found)
    assert len({r["config_hash"] for r in found}) == 1
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["aspect"] == "relevant,interesting"
    assert set(config["result_config"]["aspects"]) == {"relevant", "interesting"}
    capsys.readouterr()
    assert main(["meta-eval", str(out / "results.jsonl"), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {"relevant", "interesting"} <= set(json.dumps(report).replace('"', " ").split())


def test_a_failed_aspect_is_retried_alone(isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("fed_turn")
    out = isolated_env / "retry"
    with ScriptedOpenAIServer(fail_if_contains={"in terms of interestingness": 400}) as server:
        assert run(server, out, "fed_turn", "relevant,interesting", "--protocol", "dialevalml", limit=2) == 1
        assert sorted((r["aspect"], bool(r["error"])) for r in records(out)) == [
            ("interesting", True),
            ("interesting", True),
            ("relevant", False),
            ("relevant", False),
        ]
        server.fail_if_contains.clear()
        before = server.count
        assert run(server, out, "fed_turn", "relevant,interesting", "--protocol", "dialevalml", limit=2) == 0
        assert server.count - before == 2 + 1  # only the two failed (item, aspect) pairs, plus the endpoint check
    assert len(records(out)) == 4 and not any(r["error"] for r in records(out))


def test_aspect_all_and_other_methods(isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("fed_dialogue")
    out = isolated_env / "all"
    with ScriptedOpenAIServer() as server:
        assert run(server, out, "fed_dialogue", "all", "--protocol", "dialevalml", limit=1) == 0
    found = records(out)
    assert len(found) == 11 and {r["details"]["level"] for r in found} == {"dialogue"}
    out = isolated_env / "geval"
    with ScriptedOpenAIServer() as server:  # G-Eval: one evaluation per aspect, each with its aspect's template
        assert run(server, out, "summeval", "coherence,fluency", "--protocol", "geval", limit=2) == 0
    found = records(out)
    assert sorted(r["aspect"] for r in found) == ["coherence", "coherence", "fluency", "fluency"]
    fluency = next(r for r in found if r["aspect"] == "fluency")
    assert "Fluency" in fluency["transcript"][0]["content"]


def test_bad_aspect_lists_are_one_line(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedOpenAIServer() as server:
        assert run(server, isolated_env / "x", "summeval", "coherence,,fluency") == 2
        assert "empty aspect name" in capsys.readouterr().err
        assert run(server, isolated_env / "x", "summeval", "coherence,coherence") == 2
        assert "named twice" in capsys.readouterr().err
        assert run(server, isolated_env / "x", "summeval", "coherence,nonsense") == 2
        assert "unknown aspect 'nonsense'" in capsys.readouterr().err
