"""Prediction-powered inference of a system's mean human score (tasks/analysis/ppi.py): the estimates beside
each other, a small coverage simulation with a biased judge (the full one: scripts/bench_ppi_coverage.py), and
the per-system block of ``compare_systems`` where part of the outputs are rated."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy import stats

from debate_eval.tasks.analysis.ppi import mean_estimates, ppi_applies, system_estimates
from debate_eval.tasks.analysis.systems import compare_systems

pytest.importorskip("ppi_py", reason="the [ppi] extra")


def biased(rng: np.random.Generator, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Human ~ N(3, 1); the judge over-rates by about 0.9 and is noisy."""
    human = rng.normal(3.0, 1.0, size)
    return human, 0.6 * human + 2.1 + rng.normal(0.0, 0.4, size)


def test_estimates_side_by_side() -> None:
    rng = np.random.default_rng(0)
    y, y_hat = biased(rng, 40)
    _, unlabeled = biased(rng, 2000)
    found = mean_estimates(y, y_hat, unlabeled)
    assert found["n_rated"] == 40 and found["n_unrated"] == 2000
    assert found["human_only"]["mean"] == pytest.approx(y.mean())
    assert found["judge_only"]["mean"] == pytest.approx(np.concatenate([y_hat, unlabeled]).mean())
    # PPI++: mean(Y) + lambda (mean of the unrated scores - mean of the rated ones), lambda in [0, 1]
    theta = found["ppi"]["mean"]
    lam = (theta - y.mean()) / (unlabeled.mean() - y_hat.mean())
    assert -1e-9 <= lam <= 1 + 1e-9
    low, high = found["ppi"]["ci95"]
    assert low < theta < high and high - low < np.subtract(*found["human_only"]["ci95"][::-1])  # narrower


def test_ppi_covers_the_true_mean_and_the_judge_alone_does_not() -> None:
    rng = np.random.default_rng(11)
    hits = {"ppi": 0, "judge_only": 0}
    replications = 80
    for _ in range(replications):
        y, y_hat = biased(rng, 30)
        _, unlabeled = biased(rng, 1000)
        found = mean_estimates(y, y_hat, unlabeled)
        for name in hits:
            low, high = found[name]["ci95"]
            hits[name] += int(low <= 3.0 <= high)
    assert hits["ppi"] / replications >= 0.85  # nominal 0.95; 0.91 in this draw
    assert hits["judge_only"] / replications <= 0.05  # centred on the judge's biased mean


def record(i: int, system: str, score: float | None, human: float | None) -> dict[str, Any]:
    return {"item_id": f"{i}/{system}", "dataset": "mine.csv", "aspect": "quality", "group_id": f"d{i}",
            "system_id": system, "score": score, "human_score": human}  # fmt: skip


def test_compare_systems_adds_ppi_where_part_of_a_systems_outputs_are_rated() -> None:
    rng = np.random.default_rng(3)
    records = []
    for i in range(200):
        for system, shift in (("A", 0.0), ("B", 0.5)):
            human, judge = biased(rng, 1)
            rated = i < 25
            records.append(record(i, system, float(judge[0]), float(human[0] + shift) if rated else None))
    assert ppi_applies([r for r in records if r["system_id"] == "A"])
    block = compare_systems(records, bootstrap=100)
    a = block["systems"]["A"]["ppi"]
    assert a["n_rated"] == 25 and a["n_unrated"] == 175 and a["ppi"]["ci95"][0] < a["ppi"]["mean"]
    assert a == system_estimates([r for r in records if r["system_id"] == "A"])
    few = [r if r["human_score"] is None or r["item_id"].startswith(("0/", "1/", "2/")) else {**r, "human_score": None}
           for r in records]  # fmt: skip
    withheld = compare_systems(few, bootstrap=0)["systems"]["B"]["ppi"]
    assert withheld["n_rated"] == 3 and withheld["ppi"]["ci95"] == "too few rated items (n=3)"
    assert withheld["ppi"]["mean"] is not None and withheld["human_only"]["ci95"] == "too few rated items (n=3)"


def test_no_ppi_when_every_output_or_none_is_rated() -> None:
    rated = [record(i, "A", 3.0, 3.0) for i in range(20)] + [record(i, "B", 4.0, 3.0) for i in range(20)]
    block = compare_systems(rated, bootstrap=0)
    assert "ppi" not in block["systems"]["A"]
    unrated = [{**r, "human_score": None} for r in rated]
    assert "ppi" not in compare_systems(unrated, bootstrap=0)["systems"]["B"]


def test_without_ppi_python_the_entry_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_eval.tasks.analysis import ppi

    monkeypatch.setattr(ppi, "_ppi", lambda: None)
    found = mean_estimates(np.array([3.0, 4.0]), np.array([4.0, 4.0]), np.array([5.0, 4.0, 3.0]))
    assert found["ppi"] == {"mean": None, "ci95": "ppi-python is not installed: pip install 'debate-eval[ppi]'"}
    assert found["judge_only"]["mean"] == pytest.approx(4.0) and found["human_only"]["mean"] == pytest.approx(3.5)


def test_the_human_only_interval_is_scipys_t_interval() -> None:
    from scipy import stats

    y = np.array([2.0, 3.0, 4.0, 3.0, 2.5, 3.5, 4.5, 2.0, 3.0, 4.0, 3.5, 2.5])
    found = mean_estimates(y, y + 0.5, np.array([3.0, 4.0, 3.5]))
    expected = stats.t.interval(0.95, len(y) - 1, loc=y.mean(), scale=stats.sem(y))
    assert found["human_only"]["ci95"] == pytest.approx(list(expected), rel=1e-12)


def hand_ppi(y: np.ndarray, y_hat: np.ndarray, unlabeled: np.ndarray) -> tuple[float, float]:
    """PPI++ of a mean by hand (Angelopoulos, Duchi and Zrnic 2024, the mean case): lambda = Cov(Y, Yhat) /
    ((1 + n/N) Var(Yhat)) clipped to [0, 1], estimate mean(lambda Yhat_unlabelled) + mean(Y - lambda Yhat),
    standard error from the two parts' variances."""
    n, big_n = len(y), len(unlabeled)
    covariance = np.mean((y - y.mean()) * (y_hat - y_hat.mean()))
    lam = float(np.clip(covariance / ((1 + n / big_n) * np.var(np.concatenate([y_hat, unlabeled]), ddof=1)), 0, 1))
    estimate = lam * unlabeled.mean() + np.mean(y - lam * y_hat)
    se = np.sqrt(np.var(lam * unlabeled) / big_n + np.var(y - lam * y_hat) / n)
    return float(estimate), float(se)


def two_systems(rng: np.random.Generator, n_docs: int, n_rated: int, judge_bias_b: float) -> list[dict[str, Any]]:
    """Two systems with equal human means on shared documents; the judge tracks the humans, plus a planted bias
    for B."""
    out = []
    for i in range(n_docs):
        difficulty = rng.normal(0.0, 0.6)
        for system, bias in (("A", 0.0), ("B", judge_bias_b)):
            human = 3.0 + difficulty + rng.normal(0.0, 0.5)
            judge = human + bias + rng.normal(0.0, 0.4)
            out.append(record(i, system, float(judge), float(human) if i < n_rated else None))
    return out


def test_paired_ppi_difference_equals_a_hand_computation_and_ppi_python_on_the_differences() -> None:
    from ppi_py import ppi_mean_ci

    records = two_systems(np.random.default_rng(21), 150, 40, 0.5)
    [pair] = compare_systems(records, bootstrap=0)["pairs"]
    found = pair["ppi"]
    by = {(r["group_id"], r["system_id"]): r for r in records}
    judge = np.array([by[(f"d{i}", "A")]["score"] - by[(f"d{i}", "B")]["score"] for i in range(150)])
    human = np.array([by[(f"d{i}", "A")]["human_score"] - by[(f"d{i}", "B")]["human_score"] for i in range(40)])
    estimate, se = hand_ppi(human, judge[:40], judge[40:])
    assert found["paired"] and (found["n_rated"], found["n_unrated"]) == (40, 110)
    assert found["difference"] == pytest.approx(estimate, rel=1e-9)
    t = stats.t.ppf(0.975, 39)  # ppi-python's standard error with a t quantile on n - 1 degrees
    assert found["ci95"] == pytest.approx([estimate - t * se, estimate + t * se], rel=1e-9)
    low, high = np.ravel(ppi_mean_ci(human, judge[:40], judge[40:], alpha=0.05))
    assert (low + high) / 2 == pytest.approx(estimate) and (high - low) / 2 == pytest.approx(1.959963984540054 * se)
    assert found["p_value"] == pytest.approx(2 * stats.t.sf(abs(estimate) / se, 39), rel=1e-9)
    assert found["p_holm"] == found["p_value"]  # a family of one pair
    # the judge alone calls B better; the humans' scale says no difference
    assert pair["difference"] < -0.4 and pair["p_value"] < 1e-6
    assert found["ci95"][0] < 0 < found["ci95"][1]
    human_only = found["human_only"]
    assert human_only["test"] == "paired t" and human_only["n_inputs"] == 40
    assert found["ci95"][1] - found["ci95"][0] < human_only["ci95"][1] - human_only["ci95"][0]


def test_unpaired_ppi_difference_combines_the_two_means() -> None:
    records = two_systems(np.random.default_rng(22), 120, 30, 0.5)
    # B judged on other documents: no shared group
    records = [{**r, "group_id": f"b{r['group_id']}"} if r["system_id"] == "B" else r for r in records]
    block = compare_systems(records, bootstrap=0)
    found = block["pairs"][0]["ppi"]
    assert not found["paired"] and block["pairs"][0]["test"] == "Welch t"
    parts = []
    for system in ("A", "B"):
        rows = [r for r in records if r["system_id"] == system]
        y = np.array([r["human_score"] for r in rows if r["human_score"] is not None])
        y_hat = np.array([r["score"] for r in rows if r["human_score"] is not None])
        parts.append(hand_ppi(y, y_hat, np.array([r["score"] for r in rows if r["human_score"] is None])))
    estimate, se = parts[0][0] - parts[1][0], float(np.hypot(parts[0][1], parts[1][1]))
    assert found["difference"] == pytest.approx(estimate, rel=1e-9)
    t = stats.t.ppf(0.975, 30 - 1)  # the smaller system's rated outputs, less one
    assert found["ci95"][1] - found["ci95"][0] == pytest.approx(2 * t * se, rel=1e-9)
    assert found["p_value"] == pytest.approx(2 * stats.t.sf(abs(estimate) / se, 29), rel=1e-9)


def test_a_judge_biased_for_one_system_makes_no_ppi_difference() -> None:
    """A small run of benchmarks/systems_ppi.md's planted-bias case: equal human means, +0.5 for B."""
    rng = np.random.default_rng(23)
    covered = judge_called = 0
    replications = 40
    for _ in range(replications):
        [pair] = compare_systems(two_systems(rng, 100, 30, 0.5), bootstrap=0)["pairs"]
        covered += int(pair["ppi"]["ci95"][0] <= 0 <= pair["ppi"]["ci95"][1])
        judge_called += int(pair["p_holm"] < 0.05)
    assert judge_called == replications  # the judge's scores alone always call the planted difference
    assert covered / replications >= 0.85  # nominal 0.95


def test_ppi_rank_sets_follow_the_ppi_holm_decisions() -> None:
    rng = np.random.default_rng(24)
    records = []
    for i in range(150):
        difficulty = rng.normal(0, 0.5)
        for system, quality, bias in (("A", 3.0, 0.0), ("B", 3.0, 0.6), ("C", 4.2, 0.0)):
            human = quality + difficulty + rng.normal(0, 0.5)
            records.append(
                record(i, system, float(human + bias + rng.normal(0, 0.3)), float(human) if i < 40 else None)
            )
    block = compare_systems(records, bootstrap=0)
    assert block["ranks"]["B"]["rank_set"] == [2, 2]  # the judge alone: B above A
    assert block["ppi_ranks"]["A"]["rank_set"] == [2, 3] == block["ppi_ranks"]["B"]["rank_set"]
    assert block["ppi_ranks"]["C"]["rank_set"] == [1, 1]
    from debate_eval.tasks.analysis.systems import comparison_lines

    lines = comparison_lines("quality", block)
    assert any(line.startswith("  B: ") and ", rank 2 (can hold 2 by Holm at 0.05)" in line and "PPI rank " in line
               for line in lines)  # fmt: skip
    assert any(line.startswith("  C: ") and line.endswith(", PPI rank 1") for line in lines)
