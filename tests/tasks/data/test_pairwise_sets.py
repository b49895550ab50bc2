"""The pairwise sets on the real files: FairEval (ChatEval's copy), PandaLM, Auto-J; label rules and counts."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.datasets import Item, get_dataset, load_items
from debate_eval.tasks.data.pandalm import load_pandalm

DataPath = Callable[[str], Path]


def _load(name: str, dataset_path: DataPath, shared_data_dir: Path) -> list[Item]:
    dataset_path(name)  # skips (or fails in CI) when the file is not there
    return load_items(name, shared_data_dir)


def _check_pairwise(items: list[Item]) -> None:
    for item in items:
        assert item.task_type == "pairwise" and item.human_scores == {}
        assert list(item.inputs) == ["question", "input", "output_a", "output_b"]
        assert item.human_label in ("first", "second", "tie")
        assert item.group_id == item.item_id
    assert len({item.item_id for item in items}) == len(items)


def test_faireval(dataset_path: DataPath, shared_data_dir: Path) -> None:
    items = _load("faireval", dataset_path, shared_data_dir)
    assert len(items) == 80
    _check_pairwise(items)
    assert Counter(item.human_label for item in items) == {"first": 41, "second": 25, "tie": 14}
    assert items[0].item_id == "1" and items[0].inputs["question"] == "How can I improve my time management skills?"
    assert get_dataset("faireval").aspects == {"preference": None}


def test_faireval_agrees_with_faireval_own_files(dataset_path: DataPath, shared_data_dir: Path) -> None:
    """ChatEval's preprocessed copy (what we read) against FairEval's question/answer/review files."""
    items = _load("faireval", dataset_path, shared_data_dir)
    root = shared_data_dir / "faireval"
    if not (root / "review" / "review_gpt35_vicuna-13b_human.txt").is_file():
        pytest.skip(f"FairEval's own files are not in {root}")
    questions = [json.loads(line) for line in (root / "question.jsonl").read_text(encoding="utf-8").splitlines()]
    gpt35 = [json.loads(line) for line in (root / "answer" / "answer_gpt35.jsonl").read_text().splitlines()]
    vicuna = [json.loads(line) for line in (root / "answer" / "answer_vicuna-13b.jsonl").read_text().splitlines()]
    review = (root / "review" / "review_gpt35_vicuna-13b_human.txt").read_text().split()
    words = {"CHATGPT": "first", "VICUNA13B": "second", "TIE": "tie"}
    for item, question, first, second, label in zip(items, questions, gpt35, vicuna, review, strict=True):
        assert item.item_id == str(question["question_id"]) and item.inputs["question"] == question["text"]
        assert item.inputs["output_a"] == first["text"] and item.inputs["output_b"] == second["text"]
        assert item.human_label == words[label]


def test_pandalm_majority_labels(dataset_path: DataPath, shared_data_dir: Path) -> None:
    items = _load("pandalm", dataset_path, shared_data_dir)
    assert len(items) == 999
    _check_pairwise(items)
    assert Counter(item.human_label for item in items) == {"tie": 105, "first": 422, "second": 472}
    rows = json.loads(dataset_path("pandalm").read_text(encoding="utf-8"))
    unanimous = sum(len({r["annotator1"], r["annotator2"], r["annotator3"]}) == 1 for r in rows)
    assert unanimous == 879
    assert items[0].system_id == "bloom-7b_llama-7b" and items[0].human_label == "second"
    assert items[157].inputs["output_a"] == "True"  # a JSON true in the file (the model answered "True")
    assert items[466].inputs["question"] == " " and items[466].inputs["input"] == "Truthfulness"


def test_pandalm_three_way_split_is_refused(tmp_path: Path) -> None:
    row = {"idx": "0", "cmp_key": "a_b", "instruction": "Do it.", "input": "", "response1": "x", "response2": "y"}
    path = tmp_path / "testset-v1.json"
    path.write_text(json.dumps([{**row, "annotator1": "0", "annotator2": "1", "annotator3": "2"}]), encoding="utf-8")
    with pytest.raises(UserError, match=r"row 1 \(counted from 1\).*no majority label"):
        load_pandalm(path, spec=get_dataset("pandalm"))
    path.write_text(json.dumps([{**row, "annotator1": "3", "annotator2": "1", "annotator3": "1"}]), encoding="utf-8")
    with pytest.raises(UserError, match=r'field "annotator1": expected 0 \(tie\), 1'):
        load_pandalm(path, spec=get_dataset("pandalm"))


def test_autoj(dataset_path: DataPath, shared_data_dir: Path) -> None:
    items = _load("autoj_pairwise", dataset_path, shared_data_dir)
    assert len(items) == 1392
    _check_pairwise(items)
    assert Counter(item.human_label for item in items) == {"first": 520, "second": 499, "tie": 373}
    scenarios = Counter(item.system_id for item in items)
    assert len(scenarios) == 58 and set(scenarios.values()) == {24}
    assert items[0].system_id == "post_summarization" and items[0].human_label == "second"
    assert all(item.inputs["input"] == "" for item in items)


def test_autoj_bad_label(tmp_path: Path) -> None:
    from debate_eval.tasks.data.autoj import load_autoj

    good = {"scenario": "s", "label": 0, "prompt": "p", "response 1": "a", "response 2": "b"}
    path = tmp_path / "testdata_pairwise.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "label": 5}) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r'row 2 \(counted from 1\): field "label": expected 0 \(first\)'):
        load_autoj(path, spec=get_dataset("autoj_pairwise"))
