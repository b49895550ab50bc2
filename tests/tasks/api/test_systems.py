"""A DataFrame of several systems' outputs through ``debate_eval.evaluate`` with ``fields={"system": COLUMN}``:
the records name each output's system and the run summary compares them (see tests/tasks/cli/test_systems_run.py
for the command line)."""

from __future__ import annotations

from pathlib import Path

import pytest

import debate_eval

LENGTHS = {"terse": 6, "middling": 16, "verbose": 45}  # words: scored 1, 2 and 4 by planted-length


def outputs_rows() -> list[dict[str, object]]:
    """Three sources, each summarised by the three systems."""
    return [
        {"id": f"{i}-{system}", "article": f"Article {i}: the council met.", "summary": "w " * words, "sys": system,
         "rating": 3}
        for i in range(3)
        for system, words in LENGTHS.items()
    ]  # fmt: skip


def test_a_data_frame_maps_its_system_column(api_env: Path) -> None:
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame(outputs_rows())
    run = debate_eval.evaluate(
        frame,
        aspect="quality",
        criteria="Is the summary complete?",
        scale="1-5",
        fields={"source": "article", "output": "summary", "human": "rating", "system": "sys", "id": "id"},
        method="geval",
        provider="scripted",
        model="planted-length",
        no_progress=True,
        out="framed",
    )
    assert {r.item_id: r.raw["system_id"] for r in run.records} == {
        row["id"]: row["sys"] for row in frame.to_dict("records")
    }
    block = run.summary["systems"]["quality"]
    assert {name: entry["mean"] for name, entry in block["systems"].items()} == pytest.approx(
        {"terse": 1.0, "middling": 2.0, "verbose": 4.0}
    )
