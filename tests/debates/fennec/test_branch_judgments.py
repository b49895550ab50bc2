"""A Fennec branch's judgment: the per-response grade lines of a pairwise answer."""

from __future__ import annotations

from debate_eval.debates.fennec.branch_judgments import side_scores


def test_side_scores_take_the_last_lines_on_the_scale() -> None:
    text = "Score A: 2\nScore B: 4\nOn reflection:\n**Score A:** 3/5\nScore for Response B = 9"
    assert side_scores(text) == {"A": 3.0, "B": None}
