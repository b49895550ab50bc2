"""One record validator: resume refuses exactly the lines meta-eval refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.meta_eval import load_results
from debate_eval.tasks.engine.record import validate_record
from debate_eval.tasks.engine.results import ResultsStore, read_jsonl

GOOD = {"item_id": "d1-s1", "dataset": "summeval", "aspect": "coherence", "group_id": "d1", "score": 3}


def write_lines(path: Path, records: list[object]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({k: v for k, v in GOOD.items() if k != "item_id"}, "item_id"),
        ({**GOOD, "dataset": None}, "dataset"),
        ({**GOOD, "item_id": ["x"]}, "item_id"),
        ({**GOOD, "score": "5"}, "score"),
        ({**GOOD, "task_type": "pairwise", "verdict": "A"}, "verdict"),
    ],
)
def test_resume_and_meta_eval_refuse_the_same_line(tmp_path: Path, bad: dict[str, object], field: str) -> None:
    results = tmp_path / "run" / "results.jsonl"
    write_lines(results, [GOOD, bad])
    with pytest.raises(UserError) as resumed:
        ResultsStore(tmp_path / "run", {"config_hash": "h"}, "h")
    with pytest.raises(UserError) as meta:
        load_results([results])
    for error in (resumed.value, meta.value):
        assert f"{results}: line 2 (counted from 1)" in str(error) and field in str(error)
        assert "\n" not in str(error)


def test_good_records_pass_everywhere(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    write_lines(results, [GOOD, {**GOOD, "item_id": 7, "score": None}])
    assert len(read_jsonl(results)) == 2 and len(load_results([results])) == 2


def test_validator_returns_the_record() -> None:
    assert validate_record(GOOD, "x.jsonl", 1) is GOOD
