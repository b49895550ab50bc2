"""Score distributions per integer bin (Appendix B)."""

from __future__ import annotations

import pytest
from analysis_factories import rec

from debate_eval.tasks.analysis import distribution
from debate_eval.tasks.analysis.distribution import format_distribution, score_distribution


def test_score_distribution_percentages() -> None:
    records = [
        rec("a", "d1", 1.0, 1.0),
        rec("b", "d1", 1.333, 2.5),  # human -> 1, predicted 2.5 rounds half up -> 3
        rec("c", "d1", 1.667, 5.0),  # human -> 2
        rec("d", "d1", 4.667, None),  # human -> 5, no prediction
    ]
    entry = score_distribution(records)["summeval"]["coherence"]
    assert entry["bins"] == [1, 2, 3, 4, 5]
    assert entry["human"] == {1: 50.0, 2: 25.0, 3: 0.0, 4: 0.0, 5: 25.0}
    assert entry["predicted"] == pytest.approx({1: 100 / 3, 2: 0.0, 3: 100 / 3, 4: 0.0, 5: 100 / 3})
    assert (entry["n_human"], entry["n_predicted"]) == (4, 3)
    text = format_distribution(score_distribution(records))
    assert "summeval/coherence" in text
    assert "50.00" in text
    assert "33.33" in text


def test_score_bin_rounds_half_up() -> None:
    assert [distribution.score_bin(v) for v in (0.5, 1.5, 2.5, 2.49, 0.333, 0.667)] == [1, 2, 3, 2, 0, 1]


def test_debate_table_2_stands_beside_the_run() -> None:
    records = [rec("a", "d1", 1.0, 1.0), rec("b", "d1", 5.0, 4.0)]
    lines = format_distribution(score_distribution(records)).splitlines()
    assert any("DEBATE (Kim et al. 2024) Table 2, human and DEBATE (GPT-4); NOT this run" in line for line in lines)
    five = next(line for line in lines if line.split()[:1] == ["5"])
    assert five.split() == ["5", "50.00", "0.00", "14.74", "19.24"]  # coherence, score 5: paper human, DEBATE
    tc = [rec("a", "c1", 1.0, 1.0, dataset="topical_chat", aspect="groundedness")]
    assert "paper columns" not in format_distribution(score_distribution(tc))  # the paper omits groundedness
