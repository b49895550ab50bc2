"""``run --aspect a,b`` / ``all``: every item once per aspect in one run directory, resumed per item and aspect;
the multi-aspect acceptance case (a scripted endpoint answering "3", dialevalml on 4 fed_turn items)."""

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


def test_own_dialogue_file_with_dialevalml_rescore_and_report_inputs(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from debate_eval.tasks.analysis.report.gather import attach_inputs, load_runs
    from debate_eval.tasks.data import registry

    data = isolated_env / "chats.jsonl"
    rows = [
        {"history": f"User: hello {i}\nSystem: hi", "reply": f"System: reply number {i}", "rating": i % 3 + 1}
        for i in range(4)
    ]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    template = isolated_env / "t.txt"
    template.write_text("Rate the reply (1-5).\n{{source}}\n{{output}}\n", encoding="utf-8")
    out = isolated_env / "own"
    with ScriptedOpenAIServer() as server:
        code = run(server, out, str(data), "engagingness", "--protocol", "dialevalml", "--template", str(template),
                   "--fields", "source=history,output=reply,human=rating", "--scale", "1-3")  # fmt: skip
        assert code == 0
    found = records(out)
    assert len(found) == 4 and {r["details"]["level"] for r in found} == {"turn"}
    assert all(r["score"] == 3.0 and r["score_normalized"] == 0.5 for r in found)  # the prompt's 1-5
    first = next(r for r in found if "reply number 0" in r["transcript"][0]["content"])  # items finish in any order
    assert "Context:\nUser: hello 0" in first["transcript"][0]["content"]
    monkeypatch.setattr(registry, "_OWN_FILES", {})  # a new process: the own file is known from config.json only
    assert main(["rescore", str(out)]) == 0
    assert [r["score"] for r in records(out)] == [3.0] * 4
    monkeypatch.setattr(registry, "_OWN_FILES", {})
    runs = load_runs([out])
    assert attach_inputs(runs) == []
    outputs = sorted(record.inputs["output"] for record in runs[0].records)
    assert outputs == [f"System: reply number {i}" for i in range(4)]


def test_rescore_uses_each_aspects_scale(isolated_env: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("fed_turn")
    out = isolated_env / "scales"
    with (
        ScriptedOpenAIServer() as server
    ):  # G-Eval's evaluator answers "3": out of relevant's 0-2, inside overall's 0-4
        assert (
            run(server, out, "fed_turn", "relevant,overall", "--protocol", "geval", "--geval-no-logprobs", limit=2) == 0
        )
    before = {(r["item_id"], r["aspect"]): (r["score"], r["parse_status"]) for r in records(out)}
    assert before[("turn-001", "overall")] == (3.0, "parsed")
    assert before[("turn-001", "relevant")] == (None, "out_of_range")
    assert main(["rescore", str(out)]) == 0
    assert {(r["item_id"], r["aspect"]): (r["score"], r["parse_status"]) for r in records(out)} == before


@pytest.mark.parametrize("command", ["repeat", "ablate"])
def test_repeat_and_ablate_take_one_aspect(
    command: str, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = ["--out", str(isolated_env / "x")] + (["--grid", "rounds=1,2"] if command == "ablate" else [])
    assert main([command, "--dataset", "summeval", "--aspect", "coherence,fluency", *extra]) == 2
    assert "one aspect" in capsys.readouterr().err


def test_show_keeps_the_aspect_of_a_long_item_id() -> None:
    """SummEval's ids are 52 characters: the table shortens the id, never the aspect tag."""
    from debate_eval.tasks.cli.show import format_table
    from debate_eval.tasks.engine.record import Record

    long_id = "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2/M11"
    records = [
        Record.from_json(
            {
                "item_id": long_id,
                "dataset": "summeval",
                "aspect": aspect,
                "score": 3,
                "human_score": 2,
                "parse_status": "parsed",
            }
        )
        for aspect in ("coherence", "semantically_appropriate")
    ]
    rows = format_table(records).splitlines()[1:3]
    assert "[coherence]" in rows[0] and "[semantically_appropriate]" in rows[1]
    assert rows[0].split()[1] == long_id[: 58 - len(" [coherence]")]  # the id gives way, from its end
