"""Fennec through the command line against the scripted server: a pairwise run on PandaLM (with --swap) and
meta-eval's accuracy/consistency, a single run on SummEval with --correct, show's tree, rescore, the summary."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.debates import fennec
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.datasets import load_items


def run_cli(server: ScriptedOpenAIServer, out: Path, *args: str) -> int:
    common = ["--base-url", server.base_url, "--model", "scripted", "--out", str(out), "--no-progress"]
    return main(["run", "--protocol", "fennec", *args, *common])


def read_records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]


def prefers_the_longer(fen: SimpleNamespace) -> Callable[[Any], str]:
    """Judges prefer the longer response under criteria 1 and 2 and call criterion 3 a tie."""

    def reply(request: Any) -> str:
        if fen.role(request) != "judge":
            return fen.reply(criteria=3)(request)
        text = fen.user(request)
        a = re.search(r"\[Response A: start\]\n(.*?)\n\[Response A: end\]", text, re.S)
        b = re.search(r"\[Response B: start\]\n(.*?)\n\[Response B: end\]", text, re.S)
        longer = "A" if len(a.group(1)) >= len(b.group(1)) else "B"
        if fen.number(request) == 3:
            return "Equal under this criterion.\nScore A: 3\nScore B: 3\nVerdict: [[C]]"
        scores = "Score A: 4\nScore B: 2" if longer == "A" else "Score A: 2\nScore B: 4"
        return f"Response {longer} covers more.\n{scores}\nVerdict: [[{longer}]]"

    return reply


def test_pairwise_run_on_pandalm_with_swap_gives_verdicts_and_meta_eval(
    isolated_env: Path, dataset_path: Callable[[str], Path], capsys: pytest.CaptureFixture[str], fen: SimpleNamespace
) -> None:
    path = dataset_path("pandalm")
    items = {i.item_id: i for i in load_items("pandalm", path.parents[1])[:4]}
    out = isolated_env / "fennec-pandalm"
    args = ["--dataset", "pandalm", "--aspect", "preference", "--limit", "4", "--swap"]
    with ScriptedOpenAIServer(reply=prefers_the_longer(fen)) as server:
        assert run_cli(server, out, *args) == 0
        roles = Counter(fen.role(r) for r in server.requests[1:])  # after the preflight request
    records = read_records(out)
    assert len(records) == 4
    # per order 1 + 2k = 7 calls; the swapped order's criteria and guidelines (no response in them) are the
    # same requests, answered from the cache when the first order's answers are in it
    assert all(r["llm_calls"] + r["cached_calls"] == 2 * 7 for r in records)
    assert all(r["cached_calls"] >= 4 for r in records)
    assert roles["criteria_writer"] <= 4 and roles["guideline_writer"] <= 12 and 0 < roles["judge"] <= 24
    for record in records:
        item = items[record["item_id"]]
        longer = "first" if len(item.inputs["output_a"]) >= len(item.inputs["output_b"]) else "second"
        assert record["verdict"] == longer and record["consistent"] is True
        assert record["decided_by"] == "branches"
        assert record["verdicts"] == {"original": longer, "swapped": longer}
    capsys.readouterr()
    assert main(["meta-eval", str(out), "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["pandalm"]["preference"]
    labels = {r["item_id"]: r["human_label"] for r in records}
    expected = sum(labels[r["item_id"]] == r["verdict"] for r in records) / 4
    assert metrics["accuracy"] == pytest.approx(expected)
    assert metrics["consistency"] == 1 and metrics["n_swapped"] == 4
    # rescore re-parses every branch's verdict and merges them as the run did
    assert main(["rescore", str(out / "results.jsonl")]) == 0
    rescored = read_records(out)
    assert [(r["verdict"], r["consistent"]) for r in rescored] == [(r["verdict"], r["consistent"]) for r in records]
    capsys.readouterr()
    assert main(["show", str(out), "--item", records[0]["item_id"]]) == 0
    shown = capsys.readouterr().out
    assert "[original order] Fennec tree: 3 of 3 branches" in shown and "[swapped order] Fennec tree" in shown
    assert "prefers tie" in shown and "└── judgment:" in shown


def test_single_run_with_correction_stores_texts_and_prints_the_gain(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], fen: SimpleNamespace
) -> None:
    out = isolated_env / "fennec-summeval"

    def reply(request: Any) -> str:
        if fen.role(request) == "judge" and "REVISED SUMMARY" in fen.user(request):
            return "Much clearer now.\nScore: 4"
        if fen.role(request) == "judge":  # criterion 1 grades 1, criterion 2 grades 2: mean 1.5 < 3
            return f"Hard to follow.\nScore: {fen.number(request)}"
        return fen.reply(criteria=2, corrected="REVISED SUMMARY")(request)

    args = ["--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--branches", "2"]
    with ScriptedOpenAIServer(reply=reply) as server:
        assert run_cli(server, out, *args, "--correct", "--rescore-corrected") == 0
    summary = capsys.readouterr().out
    assert "corrections: 2 of 2 checked; re-judged 2, mean gain +2.500" in summary
    records = read_records(out)
    assert all(r["score"] == 1.5 and r["details"]["correction"]["corrected"] == "REVISED SUMMARY" for r in records)
    assert all(r["details"]["correction"]["rescore"]["gain"] == pytest.approx(2.5) for r in records)
    assert all(r["llm_calls"] + r["cached_calls"] == 1 + 2 * 2 + 1 + 2 for r in records)  # same document: cached
    assert main(["show", str(out), "--item", "1"]) == 0
    shown = capsys.readouterr().out
    assert "Fennec tree: 2 of 2 branches" in shown and "re-judged: 4, gain +2.5" in shown
    # rescore reproduces the run, then follows an edited judgment (branch 1 now grades 3: mean 2.5, gain 1.5)
    assert main(["rescore", str(out / "results.jsonl")]) == 0
    again = read_records(out)
    assert [(r["score"], r["details"]["correction"]["rescore"]["gain"]) for r in again] == [(1.5, 2.5)] * 2
    for record in again:
        first = next(e for e in record["transcript"] if e["step"] == "judgment" and e["agent"] == "Judge")
        first["content"] = "On reflection it reads well enough.\nScore: 3"
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in again), encoding="utf-8")
    assert main(["rescore", str(out / "results.jsonl")]) == 0
    edited = read_records(out)
    assert [(r["score"], r["details"]["correction"]["rescore"]["gain"]) for r in edited] == [(2.5, 1.5)] * 2
    assert all(r["details"]["tree"][0]["score"]["value"] == 3 for r in edited)
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    recorded = config["result_config"]["fennec"]
    assert {key: value for key, value in recorded.items() if key != "prompts"} == {
        "branches": 2,
        "correct": True,
        "correct_below": None,
        "rescore_corrected": True,
    }
    # every prompt file is recorded by its text (so editing one changes the config hash)
    folder = Path(fennec.__file__).parent / "prompts"
    shipped = {path.name: path.read_text(encoding="utf-8").rstrip() for path in folder.iterdir() if path.is_file()}
    assert recorded["prompts"] == shipped and len(shipped) == 9
    assert set(config["result_config"]["models"]) == {"criteria_writer", "guideline_writer", "judge", "corrector"}


def test_methods_lists_fennec_with_both_task_types(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["methods", "--json"]) == 0
    methods = json.loads(capsys.readouterr().out)
    fennec = next(m for m in (methods if isinstance(methods, list) else methods.values()) if m["name"] == "fennec")
    assert fennec["task_types"] == ["single", "pairwise"]
    assert {"--branches", "--correct", "--correct-below", "--rescore-corrected"} <= {
        flag for option in fennec["options"] for flag in option["flags"]
    }


def test_ablate_grid_of_branches(isolated_env: Path, fen: SimpleNamespace) -> None:
    """``ablate --grid branches=1,3``: one cell per k, each item costing 1 + 2k calls, k in the table."""
    import csv

    out = isolated_env / "ablation"
    args = ["ablate", "--dataset", "summeval", "--aspect", "coherence", "--protocol", "fennec", "--docs", "1"]
    with ScriptedOpenAIServer(reply=fen.reply()) as server:
        common = ["--base-url", server.base_url, "--model", "scripted", "--no-progress", "--out", str(out)]
        assert main([*args, "--grid", "branches=1,3", *common]) == 0
    rows = {row["cell"]: row for row in csv.DictReader((out / "ablation.csv").open(encoding="utf-8"))}
    assert set(rows) == {"fennec_k1", "fennec_k3"}
    assert rows["fennec_k1"]["branches"] == "1" and rows["fennec_k3"]["branches"] == "3"
    for name, k in (("fennec_k1", 1), ("fennec_k3", 3)):
        records = read_records(out / "cells" / name)
        assert records and all(r["llm_calls"] + r["cached_calls"] == 1 + 2 * k for r in records)
        assert all(r["score"] == pytest.approx(sum(range(1, k + 1)) / k) for r in records)


def test_role_model_sets_a_stronger_criteria_writer(isolated_env: Path, fen: SimpleNamespace) -> None:
    out = isolated_env / "role-model"
    args = ["--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--branches", "1"]
    with ScriptedOpenAIServer(reply=fen.reply()) as server:
        assert run_cli(server, out, *args, "--role-model", "criteria_writer=bigger", "--no-preflight") == 0
        models = {(fen.role(r), r["model"]) for r in server.requests}
    assert models == {("criteria_writer", "bigger"), ("guideline_writer", "scripted"), ("judge", "scripted")}
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["models"]["criteria_writer"]["model"] == "bigger"
