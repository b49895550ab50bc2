"""The labels reader: one-line errors naming file, line and field; several annotators combined; the labels
replacing the run's human ratings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.labels import Label, apply_labels, combined, read_labels, run_scale, write_labels

RECORDS = [
    {"item_id": "a", "dataset": "own", "aspect": "quality", "score": 3.0, "human_score": 4.0},
    {"item_id": "b", "dataset": "own", "aspect": "quality", "score": 2.0, "human_score": 1.0},
    {"item_id": 7, "dataset": "own", "aspect": "quality", "score": 5.0, "human_score": None},
]
PAIRS = [{"item_id": "p1", "dataset": "own", "aspect": "pref", "task_type": "pairwise", "verdict": "first"}]


def _file(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "labels.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            [{"item_id": "a", "rating": 2}, {"item_id": "zz", "rating": 3}],
            "line 2 (counted from 1): item_id 'zz' is not an item of the run",
        ),
        ([{"item_id": "a", "rating": 6}], "line 1 (counted from 1): rating 6 is off the run's scale 1-5"),
        (
            [{"item_id": "a", "rating": 2}, {"item_id": "b", "rating": 2}, {"item_id": "a", "rating": 3}],
            "line 3 (counted from 1): item_id 'a' is labelled again (first on line 1)",
        ),
        (
            [{"item_id": "a", "rating": 2, "annotator": "x"}, {"item_id": "a", "rating": 3, "annotator": "x"}],
            "item_id 'a' is labelled again by annotator 'x' (first on line 1)",
        ),
        (["{not json"], "line 1 (counted from 1): not JSON"),
        ([{"item_id": "a", "score": 2}], "field score is not a labels field"),
        ([{"item_id": "a"}], "give either a rating (a number) or a verdict"),
        ([{"item_id": "a", "rating": "high"}], "rating must be a number, not 'high'"),
        ([{"item_id": "a", "rating": 10**400}], "line 1 (counted from 1): rating must be a number, not 1000"),
        ([{"item_id": "a", "verdict": "first"}], "verdict given for a single-score item"),
        ([{"item_id": "a", "rating": 2, "aspect": "fluency"}], "aspect 'fluency' is not one the run judged"),
    ],
)
def test_bad_lines_are_one_line_errors(tmp_path: Path, lines: list[object], message: str) -> None:
    path = _file(tmp_path, *lines)
    with pytest.raises(UserError) as error:
        read_labels(path, RECORDS, scale=(1.0, 5.0))
    assert message in str(error.value) and str(path) in str(error.value) and "\n" not in str(error.value)


def test_a_byte_order_mark_and_blank_lines_are_read(tmp_path: Path) -> None:
    """An editor's byte-order mark is not part of the first line; a blank line is skipped but counted."""
    path = tmp_path / "labels.jsonl"
    text = '{"item_id": "a", "rating": 2}\r\n\n{"item_id": "b", "rating": 9}\n'
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    with pytest.raises(UserError, match=r"line 3 \(counted from 1\): rating 9 is off"):
        read_labels(path, RECORDS, scale=(1.0, 5.0))
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("9", "4").encode("utf-8"))
    assert [(label.item_id, label.rating, label.line) for label in read_labels(path, RECORDS)] == [
        ("a", 2, 1),
        ("b", 4, 3),
    ]


def test_a_binary_file_or_a_folder_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_bytes(b'{"item_id": "a", "rating": 2}\n\xff\xfe\x00\x80\n')
    with pytest.raises(UserError, match=r"labels.jsonl: not UTF-8 text \(byte 30\)"):
        read_labels(path, RECORDS)
    with pytest.raises(UserError, match="a folder, not a labels file"):
        read_labels(tmp_path, RECORDS)


def test_pairwise_labels_need_a_known_verdict(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="verdict must be one of first, second, tie, not 'A'"):
        read_labels(_file(tmp_path, {"item_id": "p1", "verdict": "A"}), PAIRS)
    with pytest.raises(UserError, match="rating given for a pairwise item"):
        read_labels(_file(tmp_path, {"item_id": "p1", "rating": 1}), PAIRS)
    (label,) = read_labels(_file(tmp_path, {"item_id": "p1", "verdict": "second"}), PAIRS)
    (row,) = apply_labels(PAIRS, [label])
    assert row.human_label == "second"


def test_annotators_are_combined_and_the_file_replaces_the_ratings(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        {"item_id": "a", "rating": 2, "annotator": "x"},
        {"item_id": "a", "rating": 5, "annotator": "y"},
        {"item_id": 7, "rating": 1, "annotator": "x"},
    )
    labels = read_labels(path, RECORDS, scale=(1.0, 5.0))
    assert [label.line for label in labels] == [1, 2, 3]
    rows = {row.key: row.human_score for row in apply_labels(RECORDS, labels)}
    assert rows == {"a": 3.5, "b": None, "7": 1.0}  # (2 + 5) / 2; b's dataset rating is not a label


def test_verdicts_without_a_majority_leave_the_item_out() -> None:
    labels = [Label("p", verdict="first", annotator="x"), Label("p", verdict="second", annotator="y")]
    assert combined(labels) == {}
    assert combined([*labels, Label("p", verdict="first", annotator="z")]) == {("p", None): "first"}


def test_written_labels_read_back(tmp_path: Path) -> None:
    labels = [Label("a", rating=4.0, annotator="x", time="2026-01-01T00:00:00Z"), Label("7", rating=1.5)]
    read = read_labels(write_labels(labels, tmp_path / "l.jsonl"), RECORDS, scale=(1.0, 5.0))
    assert [(x.item_id, x.rating, x.annotator, x.time) for x in read] == [
        ("a", 4.0, "x", "2026-01-01T00:00:00Z"),
        ("7", 1.5, None, None),
    ]


def test_the_scale_comes_from_the_run_config() -> None:
    assert run_scale({"result_config": {"template": {"scale": "1-5"}}}, "coherence") == (1.0, 5.0)
    config = {"result_config": {"aspects": {"nat": {"template": {"scale": "1-3"}}}, "template": {"scale": "0-1"}}}
    assert run_scale(config, "nat") == (1.0, 3.0)
    assert run_scale({}, "x") is None
