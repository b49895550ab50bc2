"""Prediction-powered inference of a system's mean human score (tasks/analysis/ppi.py): the estimates beside
each other, a small coverage simulation with a biased judge (the full one: scripts/bench_ppi_coverage.py), and
the per-system block of ``compare_systems`` where part of the outputs are rated."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

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
