"""Choosing the items to label: proportional strata (counted by hand), lowest confidence, seeded."""

from __future__ import annotations

from collections import Counter

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.label_choice import Candidate, _allocate, choose


def test_allocation_is_proportional_with_one_per_stratum() -> None:
    assert _allocate([60, 30, 10], 10) == [6, 3, 1]
    assert _allocate([90, 8, 2], 10) == [8, 1, 1]  # 9 + 0.8 + 0.2: the small strata get one each
    assert _allocate([5, 5, 5], 2) == [1, 1, 0]
    assert sum(_allocate([7, 3, 3, 1], 9)) == 9


def test_stratified_covers_every_system_and_score() -> None:
    candidates = [Candidate(f"{s}{i}", system=s, score=float(1 + i % 5)) for s in "ab" for i in range(50)]
    chosen = choose(candidates, 10, seed=3)
    assert len(chosen) == 10 and chosen == sorted(chosen)
    strata = Counter((candidates[i].system, candidates[i].score) for i in chosen)
    assert strata == Counter({(s, float(k)): 1 for s in "ab" for k in range(1, 6)})  # 10 strata of 10 items
    assert choose(candidates, 10, seed=3) == chosen
    assert choose(candidates, 10, seed=4) != chosen


def test_lowest_confidence_and_random() -> None:
    candidates = [Candidate(str(i), score=1.0, confidence=i / 10) for i in range(10)]
    assert choose(candidates, 3, how="lowest-confidence") == [0, 1, 2]
    assert len(set(choose(candidates, 4, how="random", seed=1))) == 4
    assert choose(candidates, 50) == list(range(10))
    with pytest.raises(UserError, match="carry no confidence"):
        choose([Candidate("x"), Candidate("y")], 1, how="lowest-confidence")
    with pytest.raises(UserError, match="--n 0"):
        choose(candidates, 0)


def test_stratified_takes_one_from_each_confidence_tercile() -> None:
    candidates = [Candidate(str(i), system="s", score=3.0, confidence=i / 29) for i in range(30)]
    chosen = choose(candidates, 3, seed=5)
    assert sorted(i // 10 for i in chosen) == [0, 1, 2]  # confidences 0-0.31, 0.34-0.66, 0.69-1: ten items each
