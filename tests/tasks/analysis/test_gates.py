"""Quality bars: parse_bars, check_bars and the pytest helper assert_judge_meets (the documented CI pattern)."""

from __future__ import annotations

from pathlib import Path

import pytest
from constructed_cases import copy_and_abstain, small_gain, two_documents, write_run

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.gates import assert_judge_meets, check_bars, failure_line, parse_bars
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


def _few_answered(n_items: int = 100, answered: int = 3) -> list[dict]:
    """A pairwise judge that gave a verdict on ``answered`` of ``n_items`` labelled pairs, each one right."""
    records = []
    for item in range(n_items):
        label = ("first", "second", "tie")[item % 3]
        records.append({"item_id": f"q{item:03d}", "dataset": "faireval", "aspect": "preference",
                        "protocol": "debate", "task_type": "pairwise", "human_label": label,
                        "verdict": label if item < answered else None})  # fmt: skip
    return records


def _one_defined_document(n_docs: int = 20) -> list[dict]:
    """20 documents of 4 summaries; the judge's scores vary (a defined rho, 1.0) only on the first document."""
    records = []
    for doc in range(n_docs):
        for summary in range(4):
            records.append({"item_id": f"d{doc:02d}-s{summary}", "dataset": "summeval", "aspect": "coherence",
                            "protocol": "debate", "group_id": f"d{doc:02d}", "human_score": float(summary + 1),
                            "score": float(summary + 1) if doc == 0 else 3.0})  # fmt: skip
    return records


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("spearman=nan", r"the bar for spearman must be a finite number in \[-1, 1\], not nan"),
        ("spearman=inf", r"the bar for spearman must be a finite number in \[-1, 1\], not inf"),
        ("spearman=1.5", r"the bar for spearman must be a finite number in \[-1, 1\], not 1\.5"),
        ("kappa=-1.2", r"the bar for kappa must be a finite number in \[-1, 1\]"),
        ("accuracy=-0.1", r"the bar for accuracy must be a finite number in \[0, 1\]"),
        ("spearman=0.95,spearman=0.1", "spearman is given more than once"),
        ("pooled_spearman=0.3,global_spearman=0.2", "pooled_spearman is given more than once"),
        ("", "give at least one STATISTIC=NUMBER"),
        ("  ", "give at least one STATISTIC=NUMBER"),
    ],
)
def test_a_bar_is_one_finite_number_in_range_per_statistic(text: str, message: str) -> None:
    with pytest.raises(UserError, match=message):
        parse_bars(text)


def test_the_older_pooled_name_is_read_as_pooled() -> None:
    assert parse_bars("global_spearman=0.3") == {"pooled_spearman": 0.3}


def test_a_judge_that_answered_3_of_100_pairs_fails_on_coverage() -> None:
    report = meta_evaluate(_few_answered())
    assert report["faireval"]["preference"].accuracy == 1.0
    assert check_bars(report, {"accuracy": 0.9}) == [
        "faireval/preference accuracy stands on too little: 3 of 100 labelled items with a verdict (3%, needs 90%); "
        "3 items (the minimum is 10)"
    ]
    assert check_bars(report, {"accuracy": 0.9}, min_coverage=0) == []  # the requirement turned off
    almost = meta_evaluate(_few_answered(answered=95))
    assert check_bars(almost, {"accuracy": 0.9}) == []
    assert check_bars(almost, {"accuracy": 0.9}, min_coverage=0.96) == [
        "faireval/preference accuracy stands on too little: 95 of 100 labelled items with a verdict (95%, needs 96%)"
    ]


def test_a_rho_defined_on_1_of_20_documents_fails_on_coverage() -> None:
    report = meta_evaluate(_one_defined_document())
    assert report["summeval"]["coherence"].spearman == pytest.approx(1.0)
    assert check_bars(report, {"spearman": 0.9}) == [
        "summeval/coherence spearman stands on too little: 1 of 20 groups with a defined correlation (5%, needs 90%); "
        "1 groups (the minimum is 10)"
    ]
    # below the bar and short of coverage: both named, the bar first
    (below,) = check_bars(report, {"pooled_spearman": 0.9}, min_coverage=0)
    assert below.startswith("summeval/coherence pooled_spearman 0.")
    line = failure_line([*check_bars(report, {"spearman": 0.9}), below])
    assert line.startswith("meta-eval: below the bar: summeval/coherence pooled_spearman 0.")
    assert line.endswith(" | summeval/coherence spearman stands on too little: 1 of 20 groups with a defined "
                         "correlation (5%, needs 90%); 1 groups (the minimum is 10)")  # fmt: skip


def test_assert_judge_meets_refuses_bad_bars_and_checks_coverage(tmp_path: Path) -> None:
    run = write_run(tmp_path / "nightly", small_gain()[0])
    for bars, message in (
        ({"spearman": float("nan")}, "not nan"),
        ({"spearman": float("inf")}, "not inf"),
        ({"spearman": 2}, r"in \[-1, 1\], not 2"),
        ({"accuracy": -0.5}, r"in \[0, 1\], not -0.5"),
        ({"spearman": "0.4"}, "must be a number, not '0.4'"),
        ({"spearman": True}, "must be a number, not True"),
        ({"pooled_spearman": 0.1, "global_spearman": 0.2}, "given twice"),
    ):
        with pytest.raises(UserError, match=message):
            assert_judge_meets(run, **bars)
    with pytest.raises(UserError, match=r"min_coverage 1\.5: give a share between 0 and 1"):
        assert_judge_meets(run, spearman=0.4, min_coverage=1.5)
    few = write_run(tmp_path / "few", _few_answered())
    with pytest.raises(
        AssertionError, match=r"^meta-eval: faireval/preference accuracy stands on too little: 3 of 100"
    ):
        assert_judge_meets(few, accuracy=0.9)
    assert_judge_meets(few, accuracy=0.9, min_coverage=0)
    one = write_run(tmp_path / "one", _one_defined_document())
    with pytest.raises(AssertionError, match="1 of 20 groups with a defined correlation"):
        assert_judge_meets(one, spearman=0.9)
    with pytest.raises(AssertionError, match="1 of 20 groups with a defined correlation"):
        assert_judge_meets(one, spearman=0.9, lower_ci=True, bootstrap=50)


def _systems(n_systems: int, n_docs: int, swapped: tuple[int, int] | None = None) -> list[dict]:
    """``n_systems`` systems of rising quality on ``n_docs`` documents, every output rated and scored; the
    judge ranks the systems as the humans do, but for the two of ``swapped`` (their scores exchanged)."""
    records = []
    for doc in range(n_docs):
        for system in range(n_systems):
            human = 1.0 + system * 0.5 + (doc % 3) * 0.1
            judged = system if swapped is None or system not in swapped else sum(swapped) - system
            records.append({"item_id": f"d{doc:02d}/S{system}", "dataset": "mine.jsonl", "aspect": "quality",
                            "protocol": "geval", "group_id": f"d{doc:02d}", "system_id": f"S{system}",
                            "human_score": human, "score": float(1 + judged)})  # fmt: skip
    return records


def test_system_level_bars_pass_only_on_enough_systems_and_groups() -> None:
    report = meta_evaluate(_systems(6, 12))
    assert report["mine.jsonl"]["quality"].system_level["kendall"] == pytest.approx(1.0)
    assert parse_bars("system_kendall=0.5,system_spearman=0.6") == {"system_kendall": 0.5, "system_spearman": 0.6}
    assert check_bars(report, {"system_kendall": 0.5, "system_spearman": 0.6, "system_pearson": 0.9}) == []
    # the worst and the best exchanged: 6 of 15 pairs of systems concordant, tau -0.2
    swapped = meta_evaluate(_systems(6, 12, swapped=(0, 5)))
    assert check_bars(swapped, {"system_kendall": 0.5}) == ["mine.jsonl/quality system_kendall -0.200 < 0.5"]
    # four systems: a perfect ranking of four is p = 0.083, so the figure stands on too little
    assert check_bars(meta_evaluate(_systems(4, 12)), {"system_kendall": 0.5}) == [
        "mine.jsonl/quality system_kendall stands on too little: 4 systems (a system-level bar needs at least 5)"
    ]
    assert check_bars(meta_evaluate(_systems(4, 12)), {"system_kendall": 0.5}, min_coverage=0) == []  # turned off
    assert check_bars(meta_evaluate(_systems(6, 3)), {"system_kendall": 0.5}) == [
        "mine.jsonl/quality system_kendall stands on too little: the systems' means over 3 groups (the minimum is 10)"
    ]
    # two systems: no system-level figure at all, which no min_coverage lets pass
    for coverage in (0.9, 0.0):
        assert check_bars(meta_evaluate(_systems(2, 12)), {"system_kendall": 0.5}, min_coverage=coverage) == [
            "mine.jsonl/quality system_kendall stands on too little: fewer than 3 systems with rated, scored items, "
            "no system-level figure (a system-level bar needs at least 5)"
        ]
    with pytest.raises(UserError, match="reports system_kendall"):  # pairwise records: no system-level figure
        check_bars(meta_evaluate(copy_and_abstain()[0]), {"system_kendall": 0.5})


def test_system_level_bars_on_the_lower_bound_and_in_assert_judge_meets(tmp_path: Path) -> None:
    report = meta_evaluate(_systems(6, 12), bootstrap=200)
    assert check_bars(report, {"system_kendall": 0.5}, lower_ci=True) == []  # every resample ranks them alike
    assert check_bars(meta_evaluate(_systems(6, 3), bootstrap=200), {"system_kendall": 0.5}, lower_ci=True) == [
        "mine.jsonl/quality system_kendall stands on too little: the systems' means over 3 groups (the minimum is 10)",
        "mine.jsonl/quality system_kendall lower CI bound withheld: too few groups (n=3) (bar 0.5)",
    ]
    run = write_run(tmp_path / "systems", _systems(6, 12))
    assert assert_judge_meets(run, system_kendall=0.5)["mine.jsonl"]["quality"].system_level["n_systems"] == 6
    four = write_run(tmp_path / "four", _systems(4, 12))
    with pytest.raises(
        AssertionError,
        match=r"^meta-eval: mine\.jsonl/quality system_kendall stands on too little: 4 systems \(a system-level "
        r"bar needs at least 5\)$",
    ):
        assert_judge_meets(four, system_kendall=0.5)
    with pytest.raises(UserError, match=r"the bar for system_kendall must be a finite number in \[-1, 1\], not 2"):
        assert_judge_meets(run, system_kendall=2)
