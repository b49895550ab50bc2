"""``debate_eval.cascade`` and ``debate_eval.Cascade``: thresholds from labelled runs, and live scripted judges
where the second judge is called only when the first is unsure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.planted_judges import planted_runs

import debate_eval

CRITERIA = "Is the summary faithful to the article?"


class Counting:
    """A judge that counts its calls."""

    def __init__(self, judge: Any) -> None:
        self.judge, self.calls = judge, 0

    def score(self, output: str, **inputs: Any) -> Any:
        self.calls += 1
        return self.judge.score(output, **inputs)

    def compare(self, output_a: str, output_b: str, **inputs: Any) -> Any:
        self.calls += 1
        return self.judge.compare(output_a, output_b, **inputs)


def test_judge_2_is_called_only_when_judge_1_is_unsure(api_env: Path) -> None:
    # on the scripted provider the debate's Critic objects in every round (confidence 0) and self-consistency's
    # five samples agree (confidence 1)
    with (
        debate_eval.Judge(method="debate", criteria=CRITERIA, provider="scripted") as debate,
        debate_eval.Judge(method="self-consistency", criteria=CRITERIA, provider="scripted") as samples,
    ):
        first, second = Counting(debate), Counting(samples)
        escalated = debate_eval.Cascade([first, second], [0.5, 0.5]).score("A cat sat.", source="The cat sat.")
        assert escalated.decided_by == 1 and escalated.judgment.confidence == 1.0 and len(escalated.judgments) == 2
        assert (first.calls, second.calls) == (1, 1)
        trusted = debate_eval.Cascade([first, second], [0.0, 0.5]).score("A cat sat.", source="The cat sat.")
        assert trusted.decided_by == 0 and (first.calls, second.calls) == (2, 1)  # judge 2 not called
        left = debate_eval.Cascade([first, second], [0.5, float("inf")]).score("A cat sat.", source="The cat sat.")
        assert left.abstained and left.judgment is None and (first.calls, second.calls) == (3, 2)
        pair = debate_eval.Cascade([first, second], [0.5, 0.5]).compare("Paris.", "Rome.", question="Capital?")
        assert pair.decided_by == 1 and pair.judgment.verdict in ("first", "second", "tie")
    with pytest.raises(ValueError, match="one threshold per judge"):
        debate_eval.Cascade([first], [0.5, 0.5])


def test_cascade_from_runs_and_a_report_to_live_judges(tmp_path: Path) -> None:
    one, two, human = planted_runs(tmp_path)
    report = debate_eval.cascade([one, two], alpha=0.8, delta=0.1, seed=3)
    assert isinstance(report, debate_eval.CascadeReport) and report.names == ("cheap", "strong")
    assert report.to_dict()["test_items"] == 200 and report.calibration_items == 200
    by_mapping = debate_eval.cascade([one, two], alpha=0.8, labels={f"q{i}": v for i, v in enumerate(human)}, seed=3)
    assert by_mapping.to_dict() == report.to_dict()
    live = debate_eval.Cascade.from_report(["judge 1", "judge 2"], report)
    assert live.thresholds == tuple(t.value for t in report.thresholds)
