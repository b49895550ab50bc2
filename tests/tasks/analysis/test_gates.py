"""Quality bars: parse_bars, check_bars and the pytest helper assert_judge_meets (the documented CI pattern)."""

from __future__ import annotations

from pathlib import Path

import pytest
from constructed_cases import copy_and_abstain, small_gain, two_documents, write_run

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.gates import assert_judge_meets, check_bars, parse_bars
from debate_eval.tasks.analysis.meta_eval import meta_evaluate


def test_parse_bars() -> None:
    assert parse_bars("spearman=0.40, kappa=0.3") == {"spearman": 0.4, "kappa": 0.3}
    assert parse_bars("pooled_pearson=0.5") == {"pooled_pearson": 0.5}
    for bad in ("spearman", "rho=0.4", "spearman=high", ""):
        with pytest.raises(UserError, match="--fail-under"):
            parse_bars(bad)


def test_check_bars_on_figures_and_lower_bounds() -> None:
    report = meta_evaluate(small_gain()[0], bootstrap=300)  # rho 0.497, its lower bound below 0.45
    assert check_bars(report, {"spearman": 0.40}) == []
    assert check_bars(report, {"spearman": 0.50}) == ["summeval/coherence spearman 0.497 < 0.5"]
    assert check_bars(report, {"spearman": 0.45}) == []
    (failure,) = check_bars(report, {"spearman": 0.45}, lower_ci=True)
    assert failure.startswith("summeval/coherence spearman lower 95% CI bound 0.4")
    with pytest.raises(UserError, match="reports kappa"):
        check_bars(report, {"kappa": 0.3})


def test_pairwise_bars_and_undefined_figures() -> None:
    run_a, _ = copy_and_abstain()
    assert check_bars(meta_evaluate(run_a), {"accuracy": 0.7, "kappa": 0.6}) == []
    assert check_bars(meta_evaluate(run_a), {"kappa": 0.7}) == ["faireval/preference kappa 0.628 < 0.7"]
    assert check_bars(meta_evaluate(run_a), {"consistency": 0.5}) == [
        "faireval/preference consistency undefined (bar 0.5)"  # no --swap: a gate never passes on no figure
    ]


def test_assert_judge_meets_in_a_users_test_suite(tmp_path: Path) -> None:
    """The README's pattern: a test in the user's own CI that fails when the judge falls below a bar."""
    run = write_run(tmp_path / "nightly", small_gain()[0])
    report = assert_judge_meets(run, spearman=0.40)
    assert report["summeval"]["coherence"].spearman == pytest.approx(0.497, abs=5e-4)
    assert_judge_meets(run / "results.jsonl", spearman=0.40, lower_ci=True, bootstrap=200)
    with pytest.raises(AssertionError, match=r"^meta-eval: below the bar: summeval/coherence spearman 0\.497 < 0\.6$"):
        assert_judge_meets(run, spearman=0.6)
    two = write_run(tmp_path / "two", two_documents())
    with pytest.raises(AssertionError, match=r"withheld: too few groups \(n=2\)"):
        assert_judge_meets(two, spearman=0.1, lower_ci=True)
    with pytest.raises(UserError, match="unknown statistic rho"):
        assert_judge_meets(run, rho=0.4)
    with pytest.raises(UserError, match="at least one bar"):
        assert_judge_meets(run)
