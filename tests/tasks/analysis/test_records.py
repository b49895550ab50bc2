"""Loading and validating results files for the meta-evaluation."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from analysis_factories import group, only, rec, write_jsonl

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import SEED
from debate_eval.tasks.analysis.meta_eval import meta_evaluate
from debate_eval.tasks.analysis.records import load_results, number
from debate_eval.tasks.analysis.systems import run_systems


def test_last_record_wins_for_duplicated_item_ids(tmp_path: Path) -> None:
    first = group("d1", [1, 2, 3], [1, None, 3])
    retry = [rec("d1-1", "d1", 2, 2)]
    path = write_jsonl(tmp_path / "results.jsonl", first + retry)
    records = load_results([path])
    assert len(records) == 3
    assert {r.item_id: r.score for r in records} == {"d1-0": 1, "d1-1": 2, "d1-2": 3}
    entry = only(meta_evaluate(records))
    assert (entry.n_items, entry.n_missing) == (3, 0)


def test_last_record_wins_across_files_and_missing_protocol_is_debate(tmp_path: Path) -> None:
    old = write_jsonl(tmp_path / "a.jsonl", group("d1", [1, 2, 3], [1, 2, 3], protocol=None))
    new = write_jsonl(tmp_path / "b.jsonl", [rec("d1-0", "d1", 1, 5)])
    records = load_results([old, new])
    assert len(records) == 3
    assert {r.item_id: r.score for r in records}["d1-0"] == 5
    report = meta_evaluate(records)
    assert set(report["summeval"]) == {"coherence"}
    assert report["summeval"]["coherence"].protocol == "debate"


def test_same_item_id_under_other_protocol_is_kept(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [rec("x", "d1", 1, 1), rec("x", "d1", 1, 2, protocol="geval")])
    assert len(load_results([path])) == 2


def test_truncated_final_line_is_skipped_with_warning(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2], [1, 2]), tail='{"item_id": "d1-2", "da')
    records = load_results([path])
    assert [r.item_id for r in records] == ["d1-0", "d1-1"]
    err = capsys.readouterr().err
    assert "warning" in err
    assert "line 3" in err


def test_bad_middle_line_raises_with_line_number(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    lines = [json.dumps(rec("a", "d1", 1, 1)), "{not json", json.dumps(rec("b", "d1", 2, 2))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"results\.jsonl: line 2 "):
        load_results([path])


def test_bad_final_line_with_newline_is_an_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", [rec("a", "d1", 1, 1)], tail="{broken\n")
    with pytest.raises(UserError, match="line 2"):
        load_results([path])


def test_missing_file_and_bad_records_raise_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"nope\.jsonl"):
        load_results([tmp_path / "nope.jsonl"])
    path = tmp_path / "list.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(UserError, match="line 1"):
        load_results([path])
    path.write_text(json.dumps({"item_id": "a", "dataset": "summeval"}) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match="aspect"):
        load_results([path])


def test_a_number_too_large_for_a_float_is_no_number() -> None:
    """A hand-edited results line with a 400-digit score is read as no score, like infinity (was a traceback)."""
    assert number(10**400) is None and number(float("inf")) is None and number(3) == 3.0 and number(None) is None


def _one_item_for_three_systems(pairwise: bool) -> list[dict]:
    """12 item ids, each judged for three systems (the same id and group in each): deterministic ratings."""
    verdicts = ("first", "second", "tie")
    lines = []
    for i in range(12):
        for k, system in enumerate(("sysA", "sysB", "sysC")):
            line = {"item_id": f"q{i}", "dataset": "mine", "aspect": "quality", "system_id": system}
            if pairwise:
                line |= {"task_type": "pairwise", "system_a": system, "system_b": "base"}
                line |= {"verdict": verdicts[(i * 7 + k * 5) % 3], "human_label": verdicts[(i * 5 + k) % 3]}
            else:
                line |= {"score": 1 + (i * 7 + k * 3) % 5, "human_score": 1 + (i * 3 + k * 2) % 5}
            lines.append(line)
    return lines


@pytest.mark.parametrize("pairwise", [True, False])
def test_records_sharing_an_item_id_give_the_same_report_in_any_order(pairwise: bool) -> None:
    lines = _one_item_for_three_systems(pairwise)
    reports = [
        json.dumps(dataclasses.asdict(only(meta_evaluate(order, bootstrap=200), "mine")))
        for order in (lines, lines[::-1], lines[1::2] + lines[::2])
    ]
    assert reports[0] == reports[1] == reports[2]
    # and the run summary's systems block (means, intervals, pairs or win rates) of the same records
    blocks = [json.dumps(run_systems(order, bootstrap=200)) for order in (lines, lines[::-1], lines[1::2] + lines[::2])]
    assert blocks[0] == blocks[1] == blocks[2]


def test_pairwise_interval_is_drawn_from_items_ordered_by_id_then_system() -> None:
    lines = _one_item_for_three_systems(pairwise=True)
    # by hand: the group of an item without one is the item itself, so the order is item id (as text), system
    ordered = sorted(lines, key=lambda line: (line["item_id"], line["system_id"]))
    correct = np.array([line["verdict"] == line["human_label"] for line in ordered], dtype=float)
    draws = np.random.default_rng(SEED).integers(0, len(correct), size=(200, len(correct)))
    expected = np.percentile(correct[draws].mean(axis=1), [2.5, 97.5])
    for order in (lines, lines[::-1]):
        interval = only(meta_evaluate(order, bootstrap=200), "mine").ci95["accuracy"]
        assert interval == pytest.approx(expected, abs=1e-12)
