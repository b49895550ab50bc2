"""``show`` on pairwise records: the table's label/verdict/orders columns and the transcript's header."""

from __future__ import annotations

from typing import Any

from debate_eval.tasks.cli.show import format_table, format_transcript
from debate_eval.tasks.engine.record import Record


def record(item_id: str, verdict: str | None, **extra: Any) -> Record:
    return Record.from_json({
        "item_id": item_id,
        "dataset": "pandalm",
        "aspect": "preference",
        "protocol": "geval",
        "task_type": "pairwise",
        "human_label": "first",
        "verdict": verdict,
        "parse_status": "parsed" if verdict else "no_verdict",
        "parse_method": "swap_disagreement" if verdict == "tie" else "bracket",
        "parse_reason": "The orders disagree (original first, swapped second), so a tie.",
        "inputs": {"question": "Which is larger?", "input": "", "output_a": "Two.", "output_b": "Three."},
        "transcript": [
            {"index": 0, "agent": "user", "content": "P original", "order": "original"},
            {"index": 1, "agent": "Evaluator", "content": "[[A]]", "order": "original",
             "verdict": {"value": "first", "status": "parsed", "method": "bare"}},
            {"index": 2, "agent": "user", "content": "P swapped", "order": "swapped"},
            {"index": 3, "agent": "Evaluator", "content": "[[A]]", "order": "swapped",
             "verdict": {"value": "first", "status": "parsed", "method": "bare"}},
        ],
        **extra,
    })  # fmt: skip


def test_table_shows_label_verdict_and_both_orders() -> None:
    swapped = record("7", "tie", verdicts={"original": "first", "swapped": "second"}, consistent=False)
    table = format_table([swapped, record("8", None)])
    lines = table.splitlines()
    assert "human" in lines[0] and "verdict" in lines[0] and "orders" in lines[0]
    assert "first/second" in lines[1] and "inconsistent" in lines[1] and " tie " in lines[1]
    assert "no_verdict" in lines[2]


def test_transcript_prints_both_responses_and_orders() -> None:
    swapped = record("7", "tie", verdicts={"original": "first", "swapped": "second"}, consistent=False)
    text = format_transcript(swapped)
    assert "human first   verdict tie" in text
    assert "original first, swapped second   consistent False" in text
    assert "=== Question ===\nWhich is larger?" in text and "=== Input ===" not in text  # an empty input is left out
    assert "=== Response A ===\nTwo." in text and "=== Response B ===\nThree." in text
    assert text.index("=== original order") < text.index("=== swapped order")
    assert "verdict first [parsed/bare]" in text


def test_single_text_records_keep_their_table() -> None:
    single = Record.from_json({"item_id": "d1/s1", "dataset": "summeval", "aspect": "coherence", "human_score": 3.0,
                               "score": 4.0, "parse_status": "parsed", "agreed": True})  # fmt: skip
    assert "score" in format_table([single]).splitlines()[0]
