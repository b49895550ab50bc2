"""``debate_eval.Jury``: live scripted judges (planted models, as different models or providers would be)
judging every item, their verdicts combined, a split jury unscored, and a jury as a cascade's first judge."""

from __future__ import annotations

from pathlib import Path

import pytest

import debate_eval


def test_a_live_jury_of_scripted_judges(api_env: Path) -> None:
    # planted scripted models as jurors: planted-length prefers the longer response, planted-first the first
    judges = [
        debate_eval.Judge(method="geval", provider="scripted", model=model)
        for model in ("planted-length", "planted-first", "planted-length")
    ]
    try:
        three = debate_eval.Jury(judges).compare("Short.", "A much longer answer with many more words.")
        assert [j.verdict for j in three.judgments] == ["second", "first", "second"]
        assert three.verdict == "second" and three.confidence == pytest.approx(2 / 3) and not three.split
        two = debate_eval.Jury(judges[:2]).compare("Short.", "A much longer answer with many more words.")
        assert two.split and two.verdict is None and two.confidence is None and not two.ok
        tied = debate_eval.Jury(judges[:2], split="combine").compare("Short.", "A much longer answer, more words.")
        assert tied.verdict == "tie" and tied.confidence == 0.5
        samples = debate_eval.Judge(method="self-consistency", provider="scripted", model="planted-length")
        judges.append(samples)  # five samples that agree: confidence 1
        cascade = debate_eval.Cascade([debate_eval.Jury(judges[:2]), samples], [0.6, 0.5])
        escalated = cascade.compare("Short.", "A much longer answer with many more words.")
        assert escalated.decided_by == 1 and escalated.judgment.verdict == "second"  # the split jury passed it on
    finally:
        for judge in judges:
            judge.close()
    with pytest.raises(ValueError, match="two judges or more"):
        debate_eval.Jury(judges[:1])
