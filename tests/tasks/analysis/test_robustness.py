"""The robustness table: per-language correlation and drift from English, paraphrase spread; CSV and plot."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.analysis.robustness import (
    COLUMNS,
    format_rows,
    language_rows,
    paraphrase_rows,
    plot,
    write_csv,
)


def rec(item: str, score: float | None, human: float, aspect: str = "overall") -> dict[str, Any]:
    return {"item_id": item, "dataset": "xdial_fed_turn", "aspect": aspect, "score": score, "human_score": human}


HUMAN = [0.5, 1.0, 2.0, 3.5]


def test_language_rows_correlation_and_difference_from_english() -> None:
    english = [rec(f"t{i}", s, h) for i, (s, h) in enumerate(zip([1, 2, 3, 4], HUMAN, strict=True))]
    chinese = [rec(f"t{i}", s, h) for i, (s, h) in enumerate(zip([2, 2, 4, None], HUMAN, strict=True))]
    rows = language_rows({"english": english, "chinese": chinese})
    # every language on the items all of them scored: t3 has no Chinese score, so English is correlated on t0-t2 too
    assert [(r["variant"], r["items"], r["scored"], r["compared"]) for r in rows] == [
        ("english", 3, 4, 3),
        ("chinese", 3, 3, 3),
    ]
    assert rows[0]["spearman"] == pytest.approx(1.0) and rows[0]["mean_abs_diff"] == 0.0
    assert rows[1]["mean_abs_diff"] == pytest.approx((1 + 0 + 1) / 3)
    assert rows[1]["spearman"] == pytest.approx(0.8660254)  # ranks (1.5, 1.5, 3) against (1, 2, 3)


def test_languages_are_correlated_on_a_common_item_set() -> None:
    # English is perfect on t0-t2 and wrong on t3; German failed on t3. On its own items English would be
    # correlated over t0-t3 (rho 0.4), German over t0-t2 (rho 1.0): an easier set, not a better judge.
    english = [rec(f"t{i}", s, h) for i, (s, h) in enumerate(zip([1, 2, 3, 0], HUMAN, strict=True))]
    german = [rec(f"t{i}", s, h) for i, (s, h) in enumerate(zip([1, 2, 3, None], HUMAN, strict=True))]
    english_row, german_row = language_rows({"english": english, "german": german})
    assert english_row["spearman"] == pytest.approx(german_row["spearman"]) == pytest.approx(1.0)
    assert (english_row["items"], german_row["items"]) == (3, 3) and english_row["scored"] == 4


def test_paraphrase_rows_spread_and_per_rewrite_drift() -> None:
    original = [rec("t1", 3, 1.0), rec("t2", 5, 2.0), rec("t3", 1, 0.0)]
    paraphrased = [rec("t1~p1", 3, 1.0), rec("t1~p2", 1, 1.0), rec("t2~p1", 4, 2.0), rec("t2~p2", 5, 2.0)]
    paraphrased += [rec("t3~p1", 1, 0.0), rec("t3~p2", None, 0.0)]
    rows, per_item = paraphrase_rows(original, paraphrased)
    by_variant = {r["variant"]: r for r in rows}
    assert list(by_variant) == ["original", "paraphrased", "paraphrase 1", "paraphrase 2"]
    both = by_variant["paraphrased"]
    assert both["items"] == 5 and both["compared"] == 5
    assert both["mean_abs_diff"] == pytest.approx((0 + 2 + 1 + 0 + 0) / 5)
    assert both["mean_spread"] == pytest.approx((2 + 1 + 0) / 3)
    assert by_variant["paraphrase 1"]["mean_abs_diff"] == pytest.approx(1 / 3)
    assert (
        by_variant["paraphrase 2"]["mean_abs_diff"] == pytest.approx(1.0)
        and by_variant["paraphrase 2"]["compared"] == 2
    )
    assert by_variant["original"]["spearman"] == pytest.approx(1.0)
    assert per_item["overall"]["t1"] == {"original": 3.0, "paraphrases": [3.0, 1.0], "spread": 2.0}


def test_constant_scores_have_no_correlation_and_files_are_written(tmp_path: Path) -> None:
    rows = language_rows({"english": [rec("a", 3, 1), rec("b", 3, 2)], "german": [rec("a", 3, 1), rec("b", 3, 2)]})
    assert all(r["spearman"] is None for r in rows)
    table = format_rows(rows)
    assert "english" in table and "german" in table and " - " in table
    write_csv(rows, tmp_path / "robustness.csv")
    with (tmp_path / "robustness.csv").open(encoding="utf-8") as handle:
        lines = list(csv.DictReader(handle))
    assert [line["variant"] for line in lines] == ["english", "german"] and list(lines[0]) == list(COLUMNS)
    assert lines[0]["spearman"] == "" and lines[1]["mean_abs_diff"] == "0.0"
    plot(rows, tmp_path / "robustness.png", "test")
    assert (tmp_path / "robustness.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
