"""Pairs of systems (tasks/analysis/system_pairs.py): the paired and Welch t-tests against scipy, the Holm and
Benjamini–Hochberg adjustments against statsmodels, and the rank sets against a hand count of the Holm
decisions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from debate_eval.tasks.analysis.system_pairs import (
    PAIRED,
    WELCH,
    benjamini_hochberg,
    compare_values,
    holm,
    pair_test,
    rank_sets,
)


def grouped(values: np.ndarray, prefix: str = "d") -> dict[str, list[float]]:
    return {f"{prefix}{i}": [float(v)] for i, v in enumerate(values)}


def test_shared_documents_get_scipys_paired_t_test() -> None:
    rng = np.random.default_rng(3)
    difficulty = rng.normal(0, 1, 30)
    a, b = difficulty + rng.normal(0.4, 0.5, 30), difficulty + rng.normal(0, 0.5, 30)
    result = pair_test(grouped(a), grouped(b))
    reference = stats.ttest_rel(a, b)
    assert result["test"] == PAIRED and result["n_inputs"] == 30
    assert result["difference"] == pytest.approx(float(np.mean(a - b)))
    assert result["p_value"] == pytest.approx(reference.pvalue, rel=1e-9)
    assert result["ci95"] == pytest.approx(list(reference.confidence_interval(0.95)), rel=1e-9)
    assert result["wins"] + result["ties"] + result["losses"] == 30 and result["wins"] == int(np.sum(a > b))


def test_several_outputs_in_a_document_count_as_their_mean() -> None:
    rng = np.random.default_rng(4)
    first = {f"d{i}": list(rng.normal(1, 1, 3)) for i in range(12)}
    second = {f"d{i}": list(rng.normal(0, 1, 2)) for i in range(12)}
    means_a = [np.mean(first[f"d{i}"]) for i in range(12)]
    means_b = [np.mean(second[f"d{i}"]) for i in range(12)]
    assert pair_test(first, second)["p_value"] == pytest.approx(stats.ttest_rel(means_a, means_b).pvalue, rel=1e-9)


def test_systems_without_shared_documents_get_scipys_welch_test() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.normal(3.2, 0.6, 25), rng.normal(3.0, 1.4, 40)
    result = pair_test(grouped(a, "x"), grouped(b, "y"))
    reference = stats.ttest_ind(a, b, equal_var=False)
    assert result["test"] == WELCH and result["n_inputs"] == 65 and result["wins"] is None
    assert result["p_value"] == pytest.approx(reference.pvalue, rel=1e-9)
    assert result["ci95"] == pytest.approx(list(reference.confidence_interval(0.95)), rel=1e-9)


def test_too_few_units_withhold_the_p_and_nothing_to_test_gives_none() -> None:
    few = pair_test(grouped(np.arange(4.0)), grouped(np.arange(4.0) + 1))
    assert few["p_value"] == few["ci95"] == "too few groups (n=4)" and few["difference"] == -1.0
    assert pair_test(grouped(np.arange(5.0), "x"), grouped(np.arange(12.0), "y"))["p_value"] == "too few items (n=5)"
    assert pair_test({"x": [1.0]}, {"y": [2.0]}) is None


def test_p_can_go_far_below_a_bootstraps_floor() -> None:
    """A full point apart on 100 documents: p far below 2/1001, so Holm over 120 pairs can still call it."""
    rng = np.random.default_rng(6)
    difficulty = rng.normal(0, 0.5, 100)
    a, b = 3.5 + difficulty + rng.normal(0, 0.6, 100), 2.5 + difficulty + rng.normal(0, 0.6, 100)
    result = pair_test(grouped(a), grouped(b))
    assert result["p_value"] < 1e-10 and result["p_value"] * 120 < 0.05


def test_holm_and_benjamini_hochberg_equal_statsmodels() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(7)
    p = list(np.concatenate([rng.uniform(0, 1, 20), rng.uniform(0, 0.01, 8)]))
    assert holm(p) == pytest.approx(list(multitest.multipletests(p, method="holm")[1]))
    assert benjamini_hochberg(p) == pytest.approx(list(multitest.multipletests(p, method="fdr_bh")[1]))
    mixed = [0.01, "too few groups (n=3)", None, 0.04, 0.03]
    numeric = [0.01, 0.04, 0.03]
    expected = multitest.multipletests(numeric, method="fdr_bh")[1]
    adjusted = benjamini_hochberg(mixed)
    assert adjusted[1:3] == ["too few groups (n=3)", None]
    assert [adjusted[0], adjusted[3], adjusted[4]] == pytest.approx(list(expected))


def test_compare_values_names_the_family_and_adjusts_over_it() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(8)
    difficulty = rng.normal(0, 0.5, 40)
    quality = {"A": 3.0, "B": 3.05, "C": 3.9, "D": 2.0}
    values = {name: grouped(q + difficulty + rng.normal(0, 0.7, 40)) for name, q in quality.items()}
    block = compare_values(values, family="mine/quality")
    assert [(p["first"], p["second"]) for p in block["pairs"]] == [
        ("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")
    ]  # fmt: skip
    assert block["family"] == "the 6 tested pairs of 4 systems (mine/quality)" and block["family_size"] == 6
    raw = [p["p_value"] for p in block["pairs"]]
    assert [p["p_holm"] for p in block["pairs"]] == pytest.approx(list(multitest.multipletests(raw, method="holm")[1]))
    assert [p["p_bh"] for p in block["pairs"]] == pytest.approx(list(multitest.multipletests(raw, method="fdr_bh")[1]))
    # hand count of the Holm decisions at 0.05 for the rank sets
    significant = {(p["first"], p["second"]): p["difference"] for p in block["pairs"] if p["p_holm"] < 0.05}
    for name in quality:
        better = sum(1 for (f, s), d in significant.items() if (s == name and d > 0) or (f == name and d < 0))
        worse = sum(1 for (f, s), d in significant.items() if (f == name and d > 0) or (s == name and d < 0))
        assert block["ranks"][name]["rank_set"] == [1 + better, 4 - worse], name
    assert block["ranks"]["C"]["rank"] == 1 and block["ranks"]["D"]["rank"] == 4
    assert block["ranks"]["C"]["rank_set"] == [1, 1] and block["ranks"]["D"]["rank_set"] == [4, 4]
    assert block["ranks"]["A"]["rank_set"] == [2, 3] == block["ranks"]["B"]["rank_set"]  # 0.05 apart: either order


def test_rank_sets_where_lower_is_better() -> None:
    pairs = [{"first": "x", "second": "y", "difference": -1.0, "p_holm": 0.001}]
    ranks = rank_sets({"x": 1.0, "y": 2.0}, pairs, higher_is_better=False)
    assert ranks["x"]["rank"] == 1 and ranks["x"]["rank_set"] == [1, 1] and ranks["y"]["rank_set"] == [2, 2]
    assert rank_sets({"x": 1.0, "y": 2.0}, [{**pairs[0], "p_holm": 0.2}])["x"]["rank_set"] == [1, 2]
