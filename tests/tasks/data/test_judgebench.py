"""The judgebench dataset: JudgeBench's GPT-4o pairs (counts against a hand count of the raw file), another
JudgeBench pairs file as ``judgebench:PATH``, and a pairwise method run on it end to end (scripted judge) whose
JudgeBench figures meta-eval reports, checked against a count over the run's own result lines."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.datasets import get_dataset, load_items
from debate_eval.tasks.data.registry import looks_like_own_file


def test_the_gpt4o_pairs_load_with_their_sources(dataset_path) -> None:
    path = dataset_path("judgebench")
    raw = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    items = load_items("judgebench", str(path.parents[1]))
    assert len(items) == len(raw) == 350
    assert Counter(item.human_label for item in items) == Counter(
        {"A>B": "first", "B>A": "second"}[row["label"]] for row in raw
    )
    assert [item.system_id for item in items] == [row["source"] for row in raw]
    assert [item.item_id for item in items] == [row["pair_id"] for row in raw]


def pair(number: int, label: str) -> dict[str, object]:
    return {
        "pair_id": f"p{number}",
        "original_id": number,
        "source": "livebench-math",
        "question": f"What is {number}+1?",
        "response_model": "m",
        "response_A": f"It is {number + 1}.",
        "response_B": f"It is {number + 2}.",
        "label": label,
    }


def write_pairs(path: Path, count: int = 12) -> Path:
    rows = [pair(n, "A>B" if n % 3 else "B>A") for n in range(count)]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_another_pairs_file_is_named_judgebench_colon_path(tmp_path: Path) -> None:
    path = write_pairs(tmp_path / "claude-pairs.jsonl")
    name = f"judgebench:{path}"
    assert not looks_like_own_file(name) and looks_like_own_file(str(path))
    spec = get_dataset(name)
    assert spec.name == name and spec.task_type == "pairwise" and not spec.shipped
    items = load_items(name)
    assert len(items) == 12 and items[0].dataset == name
    assert [item.human_label for item in items[:3]] == ["second", "first", "first"]
    with pytest.raises(UserError, match="is not a file"):
        get_dataset(f"judgebench:{tmp_path / 'missing.jsonl'}")


def test_a_method_runs_on_judgebench_pairs_with_swap(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_pairs(isolated_env / "pairs.jsonl")
    out = isolated_env / "runs" / "jb"
    args = ["run", "--dataset", f"judgebench:{path}", "--aspect", "preference", "--method", "geval"]
    assert main([*args, "--provider", "scripted", "--swap", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["meta-eval", str(out), "--json", "--bootstrap", "0"]) == 0
    figures = json.loads(capsys.readouterr().out)[f"judgebench:{path}"]["preference"]["judgebench"]
    flipped = {"first": "second", "second": "first"}
    right = both = agree = 0
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        orders = (row["verdicts"]["original"], row["verdicts"]["swapped"])
        total = sum((v == row["human_label"]) - (v == flipped[row["human_label"]]) for v in orders)
        right += total > 0
        if None not in orders:
            both += 1
            agree += orders[0] == orders[1]
    assert figures["n_pairs"] == 12 and figures["n_right"] == right
    assert figures["n_both_orders"] == both and figures["n_consistent"] == agree
