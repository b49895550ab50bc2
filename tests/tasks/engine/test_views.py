"""The views of THE record (``engine/views.py``): each field they share means what the record's field means, and
the views of one record agree on it."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.views import ROW_FIELDS, Item, Judgment, PairJudgment, RecordRow, ScoreRow, finite


def _line(**changes: object) -> dict[str, object]:
    line: dict[str, object] = {
        "item_id": 7,
        "dataset": "summeval",
        "aspect": "coherence",
        "method": "debate",
        "group_id": "doc-1",
        "human_score": 4,
        "score": 3.5,
        "parse_status": "ok",
        "parse_method": "leading",
        "agreed": True,
        "rounds": 2,
        "stop_reason": "no_issues",
        "decided_by": "Scorer",
        "usage": {"scorer": {"prompt_tokens": 10, "completion_tokens": 4, "calls": 2}},
        "transcript": [
            {"index": 0, "agent": "Scorer", "role": "scorer", "content": "3", "score": {"value": 3}},
            {"index": 1, "agent": "Critic", "role": "critic", "content": "too high"},
            {"index": 2, "agent": "Scorer", "role": "scorer", "content": "3.5", "score": {"value": 3.5}},
        ],
        "imported": True,
    }
    return {**line, **changes}


def test_a_row_field_is_the_record_field_of_that_name_with_its_type() -> None:
    record_fields = {f.name: f.type for f in dataclasses.fields(Record)}
    row_fields = {f.name: f.type for f in dataclasses.fields(RecordRow)}
    assert tuple(row_fields) == ROW_FIELDS
    assert {name: record_fields[name] for name in row_fields if name != "imported"} == {
        name: kind for name, kind in row_fields.items() if name != "imported"
    }


def test_the_row_and_the_report_item_of_a_record_agree_on_every_row_field() -> None:
    record = Record.from_json(_line())
    row, item = ScoreRow.of(record), Item.of(record)
    assert {name: getattr(item, name) for name in ROW_FIELDS} == {name: getattr(row, name) for name in ROW_FIELDS}
    assert row.item_id == 7 and row.key == "7" and row.human_score == 4 and row.score == 3.5 and row.imported
    assert item.score_row() == row  # no --swap orders, so no verdicts either way
    assert item.tokens == 14 and item.rounds == 2.0 and item.scorer == (3.0, 3.5) and item.agreed is True


def test_the_item_takes_only_finite_numbers_and_booleans_the_row_keeps_the_line() -> None:
    record = Record.from_json(_line(score=math.inf, agreed="yes", consistent=1))
    row, item = ScoreRow.of(record), Item.of(record)
    assert row.score == math.inf and row.consistent == 1
    assert item.score is None and item.agreed is None and item.consistent is None
    assert finite(True) is None and finite("3") is None and finite(2) == 2.0
    assert finite(10**400) is None and Item.of(Record.from_json(_line(score=-(10**400)))).score is None


def test_a_swapped_pair_gives_its_orders_to_every_view() -> None:
    verdicts = {"original": "first", "swapped": "second"}
    line = _line(task_type="pairwise", verdict="first", human_label="first", verdicts=verdicts, consistent=False)
    record = Record.from_json(line)
    assert ScoreRow.of(record).verdicts == ("first", "second")
    assert Item.of(record).orders == ("first", "second") and Item.of(record).scorer is None
    config = SimpleNamespace(protocol="debate", aspect="coherence")
    pair = PairJudgment.of(record, config, (10, 4, None))
    assert pair.verdicts == ("first", "second") and pair.consistent is False and pair.ok


def test_a_judgment_reads_the_shared_fields_as_the_record_holds_them() -> None:
    record = Record.from_json(_line(agreed="yes", confidence=0.75))
    scale = SimpleNamespace(low=1, high=5)
    config = SimpleNamespace(protocol="debate", aspect="coherence", template=SimpleNamespace(scale=scale))
    judgment = Judgment.of(record, config, (10, 4, 0.5))
    assert judgment.id == "7" and judgment.parse_method == "leading" and judgment.stop_reason == "no_issues"
    assert judgment.agreed is None and judgment.confidence == 0.75 and judgment.rounds == 2
    assert judgment.rationale == "3.5" and len(judgment.messages) == 3  # the Scorer's last answer decided
    assert judgment.normalized_score == (3.5 - 1) / (5 - 1) and judgment.cost_usd == 0.5 and judgment.ok
