"""Calibration on constructed data: a known monotone distortion is undone (the cross-fitted error drops), a
system with a planted offset is flagged and the others are not; the pieces checked against scikit-learn,
scipy, statsmodels and ppi-python."""

from __future__ import annotations

import numpy as np
import pytest
from analysis_factories import assert_same_figures, shuffled

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.calibration import (
    MonotoneMap,
    _folds,
    calibrate_records,
    cross_ppi_mean,
    expected_calibration_error,
)

SYSTEMS = ("A", "B", "C", "D", "E")


def _distorted(human: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The judge: a convex distortion of the human scale (it under-rates the middle), with a little noise."""
    return np.clip(1 + 4 * ((human - 1) / 4) ** 2.5 + rng.normal(0, 0.15, len(human)), 1, 5)


def _records(offset_system: str | None = None, n: int = 60, labelled: int = 40, seed: int = 0) -> list[dict]:
    rng = np.random.default_rng(seed)
    out = []
    for system in SYSTEMS:
        true = rng.uniform(1, 5, n)
        human = np.clip(true + rng.normal(0, 0.5, n), 1, 5)  # raters' noise
        shifted = true - 1.0 if system == offset_system else true  # the judge under-rates this system
        score = _distorted(np.clip(shifted, 1, 5), rng)
        for i in range(n):
            out.append({"item_id": f"{system}{i}", "dataset": "own", "aspect": "quality", "method": "geval",
                        "system_id": system, "score": float(score[i]),
                        "human_score": float(human[i]) if i < labelled else None})  # fmt: skip
    return out


def test_the_calibration_does_not_depend_on_the_order_of_the_records() -> None:
    """The folds and resamples are drawn over the items in the order of their ids: the same figures (to the
    rounding of a float sum taken in another order) whatever order the records come in."""
    records = _records(offset_system="B")
    before = calibrate_records(records, bootstrap=200, seed=3).to_dict()
    after = calibrate_records(shuffled(records), bootstrap=200, seed=3).to_dict()
    assert after["error_after"] == before["error_after"]  # resampled: the same draws on the same items
    assert_same_figures(after, before)


def test_the_monotone_map_is_sklearns_isotonic_regression() -> None:
    from sklearn.isotonic import IsotonicRegression

    rng = np.random.default_rng(1)
    x = rng.integers(1, 8, 80).astype(float)  # ties
    y = x + rng.normal(0, 2, 80)
    ours = MonotoneMap.fit(x, y)
    theirs = IsotonicRegression(out_of_bounds="clip").fit(x, y)
    probe = np.linspace(-1, 10, 57)
    np.testing.assert_allclose(ours(probe), theirs.predict(probe), atol=1e-9)


def test_expected_calibration_error_by_hand() -> None:
    predicted = np.array([1.0, 1.0, 2.0, 2.0, 2.0])
    ratings = np.array([1.0, 2.0, 2.0, 3.0, 4.0])
    # bin 1: |1.5 - 1| * 2; bin 2: |3 - 2| * 3; over 5 items
    assert expected_calibration_error(predicted, ratings) == pytest.approx((0.5 * 2 + 1.0 * 3) / 5)


def test_a_known_distortion_is_undone() -> None:
    calibration = calibrate_records(_records(), bootstrap=300, seed=5)
    assert calibration.n_labelled == 200
    before, after, gain = calibration.error_before, calibration.error_after, calibration.improvement
    assert after["mae"] < 0.7 * before["mae"]
    assert gain["ci95"]["mae"][0] > 0 and gain["ci95"]["ece"][0] > 0  # the drop is beyond the noise
    assert calibration.flagged == []
    applied = calibration.applied
    assert (applied["n_labelled"], applied["n_unlabelled"]) == (200, 100)
    low, high = applied["calibrated"]["ci95"]
    assert low < 3.0 < high  # the unlabelled items' human mean is 3 in expectation (uniform 1-5)
    assert applied["judge_only"] < 2.5  # the raw judge mean is far below it


def test_a_system_with_a_planted_offset_is_flagged() -> None:
    calibration = calibrate_records(_records(offset_system="C"), bootstrap=0, seed=5)
    assert calibration.flagged == ["C"]
    entry = next(e for e in calibration.by_system if e["system"] == "C")
    assert entry["residual"] > 0.4 and entry["ci95"][0] > 0  # humans rate C higher than the common map says


def test_the_transfer_test_is_welch_holm_on_cross_fitted_residuals() -> None:
    """The final step of the step-down test, recomputed with scikit-learn, scipy and statsmodels: the map
    cross-fitted on the systems not flagged, the flagged system calibrated by the map of the others."""
    from scipy import stats
    from sklearn.isotonic import IsotonicRegression
    from statsmodels.stats.multitest import multipletests

    records = [r for r in _records(offset_system="B") if r["human_score"] is not None]
    calibration = calibrate_records(shuffled(records), bootstrap=0, seed=11)
    records.sort(key=lambda r: r["item_id"])  # the folds are drawn over the items by id (no groups here)
    assert calibration.flagged == ["B"]
    x = np.array([r["score"] for r in records])
    y = np.array([r["human_score"] for r in records])
    systems = np.array([r["system_id"] for r in records])
    pool = systems != "B"
    fold = np.array(_folds(int(pool.sum()), 5, 11))
    residuals = np.empty(len(x))
    pooled = np.empty(int(pool.sum()))
    for part in range(5):
        fit = IsotonicRegression(out_of_bounds="clip").fit(x[pool][fold != part], y[pool][fold != part])
        pooled[fold == part] = y[pool][fold == part] - fit.predict(x[pool][fold == part])
    residuals[pool] = pooled
    residuals[~pool] = y[~pool] - IsotonicRegression(out_of_bounds="clip").fit(x[pool], y[pool]).predict(x[~pool])
    expected_p = [
        stats.ttest_ind(residuals[systems == s], residuals[(systems != s) & pool], equal_var=False).pvalue
        for s in SYSTEMS
    ]
    assert [e["system"] for e in calibration.by_system] == list(SYSTEMS)
    np.testing.assert_allclose([e["p"] for e in calibration.by_system], expected_p, rtol=1e-9)
    np.testing.assert_allclose(
        [e["p_holm"] for e in calibration.by_system], multipletests(expected_p, method="holm")[1], rtol=1e-9
    )
    np.testing.assert_allclose([e["residual"] for e in calibration.by_system],
                               [residuals[systems == s].mean() for s in SYSTEMS], rtol=1e-9)  # fmt: skip


def test_the_cross_fitted_error_is_recomputed_by_sklearn() -> None:
    from sklearn.isotonic import IsotonicRegression

    records = sorted((r for r in _records() if r["human_score"] is not None), key=lambda r: r["item_id"])
    x = np.array([r["score"] for r in records])
    y = np.array([r["human_score"] for r in records])
    fold = np.array(_folds(len(x), 5, 2))
    predicted = np.empty(len(x))
    for part in range(5):
        fit = IsotonicRegression(out_of_bounds="clip").fit(x[fold != part], y[fold != part])
        predicted[fold == part] = fit.predict(x[fold == part])
    calibration = calibrate_records(shuffled(records), bootstrap=0, seed=2)  # any order: the folds are by item id
    assert calibration.error_after["mae"] == pytest.approx(np.abs(y - predicted).mean())
    assert calibration.error_before["mae"] == pytest.approx(np.abs(y - x).mean())


def test_cross_ppi_is_ppi_pythons() -> None:
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(3)
    y = rng.normal(2, 1, 40)
    y_hat = y + rng.normal(0.3, 0.5, 40)
    unlabelled = rng.normal(2.3, 1, (300, 5))
    ours = cross_ppi_mean(y, y_hat, unlabelled)
    low, high = ppi_py.crossppi_mean_ci(y, y_hat, unlabelled, alpha=0.05)
    assert ours["mean"] == pytest.approx(float(np.ravel(ppi_py.crossppi_mean_pointestimate(y, y_hat, unlabelled))[0]))
    assert ours["ci95"] == pytest.approx([float(np.ravel(low)[0]), float(np.ravel(high)[0])])


def test_too_few_labels_and_pairwise_runs_are_refused() -> None:
    with pytest.raises(UserError, match="at least 10 items with a judge score and a human rating; found 5"):
        calibrate_records(_records(n=1, labelled=1), bootstrap=0)
    with pytest.raises(UserError, match="pairwise run has verdicts"):
        calibrate_records([{"item_id": 1, "dataset": "d", "aspect": "a", "task_type": "pairwise", "verdict": "first"}])


def test_the_map_is_applied_only_to_the_same_judge_and_aspect() -> None:
    """--apply's run must be scores of the same dataset, aspect and method (a pairwise run or another judge
    was given 'no judge scores' and an empty mean, as if the map had been applied)."""
    records = _records(n=12, labelled=12)
    same = [{**r, "item_id": f"new-{r['item_id']}", "human_score": None} for r in _records(n=4, labelled=0, seed=1)]
    assert calibrate_records(records, apply_to=same, bootstrap=0).applied["n_unlabelled"] == 20
    pairwise = [{"item_id": 1, "dataset": "own", "aspect": "quality", "method": "geval", "task_type": "pairwise",
                 "verdict": "first"}]  # fmt: skip
    other = [{**r, "method": "debate"} for r in same]
    for target, found in [(pairwise, "own/quality (geval) with verdicts"), (other, "own/quality (debate)")]:
        with pytest.raises(UserError, match=r"--apply: the map is own/quality judged by geval; the run to apply"):
            calibrate_records(records, apply_to=target, bootstrap=0)
        with pytest.raises(UserError, match=found.replace("(", r"\(").replace(")", r"\)")):
            calibrate_records(records, apply_to=target, bootstrap=0)


def test_folds_and_resamples_are_checked_as_the_command_checks_them() -> None:
    """From Python, folds=1 was taken as 2 and bootstrap=-1 as none, silently."""
    for options, message in [({"folds": 1}, "--folds 1: give 2 or more"), ({"bootstrap": -1}, "--bootstrap -1")]:
        with pytest.raises(UserError, match=message):
            calibrate_records(_records(n=12), **options)
