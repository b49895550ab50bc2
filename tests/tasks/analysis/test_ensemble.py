"""DialEvalML's ensemble: weight fitting on known-answer cases, the dev/test split, the written run directory."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.ensemble import correlation_weights, fit_ensemble, regression_weights
from debate_eval.tasks.cli.main import main


def write_run(
    folder: Path, protocol: str, rows: list[tuple[str, str | None, float | None, float]], **extra: Any
) -> Path:
    """A run directory with one record per (item, group, score, human score) on fed_turn/relevant (or ``extra``)."""
    folder.mkdir(parents=True)
    dataset = extra.get("dataset", "fed_turn")
    with (folder / "results.jsonl").open("w", encoding="utf-8") as handle:
        for item, group, score, human in rows:
            record = {"item_id": item, "dataset": dataset, "aspect": extra.get("aspect", "relevant")}
            record.update(protocol=protocol, group_id=group, score=score, human_score=human, score_normalized=score)
            handle.write(json.dumps(record) + "\n")
    return folder


def test_regression_recovers_known_weights() -> None:
    rng = np.random.default_rng(1)
    x = rng.uniform(size=(40, 2))
    weights, intercept = regression_weights(x, 0.7 * x[:, 0] + 0.3 * x[:, 1] + 0.1)
    assert weights == pytest.approx([0.7, 0.3]) and intercept == pytest.approx(0.1)
    weights, _ = regression_weights(x, -x[:, 0] + 0.5 * x[:, 1])  # a negative weight is clipped to 0
    assert weights[0] == 0.0 and weights[1] > 0


def test_correlation_rescaling_known_answers() -> None:
    human = np.arange(20, dtype=float)
    # two significant submetrics, rho +1 and -1: sign(rho) * rho^2, scaled to sum |w| = 1
    weights, rhos = correlation_weights(np.column_stack([human, -human]), human)
    assert weights == pytest.approx([0.5, -0.5]) and rhos == pytest.approx([1.0, -1.0])
    # none significant (4 items): max(rho, 0)^2, the negative one zeroed
    small = np.array([1.0, 2.0, 3.0, 4.0])
    weights, rhos = correlation_weights(np.column_stack([[1, 3, 2, 4], [4, 2, 3, 1]]).astype(float), small)
    assert rhos == pytest.approx([0.8, -0.8]) and weights == pytest.approx([1.0, 0.0])
    # a constant submetric has no correlation and no weight; all zero gives equal weights
    weights, rhos = correlation_weights(np.column_stack([np.ones(20), human]), human)
    assert rhos[0] is None and weights == pytest.approx([0.0, 1.0])
    assert correlation_weights(np.ones((5, 2)), np.arange(5.0))[0] == pytest.approx([0.5, 0.5])


def test_fit_and_write_a_run_meta_eval_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(3)
    human = [rng.uniform(0, 2) for _ in range(30)]
    ids = [f"turn-{i:03d}" for i in range(1, 31)]
    good = write_run(tmp_path / "good", "dialevalml", [(i, i, h / 2, h) for i, h in zip(ids, human, strict=True)])
    noise = [(i, i, rng.random(), h) for i, h in zip(ids, human, strict=True)]
    noise[0] = (ids[0], ids[0], None, human[0])  # an item without a score is left out of the ensemble
    write_run(tmp_path / "noise", "geval", noise)
    out = tmp_path / "ens"
    assert main(["ensemble", str(good), str(tmp_path / "noise"), "--out", str(out), "--weights", "regression"]) == 0
    printed = capsys.readouterr().out
    assert "ENSEMBLE" in printed and "fed_turn/relevant" in printed
    weights = json.loads((out / "weights.json").read_text(encoding="utf-8"))
    fitted = weights["aspects"][0]
    assert fitted["weights"]["dialevalml"] > 0.9 and fitted["weights"]["geval"] == pytest.approx(0.0, abs=1e-9)
    assert fitted["dev_items"] + fitted["test_items"] == 29 and fitted["dev_items"] == 9  # 0.3 of 29
    assert fitted["test"]["ensemble"]["spearman"] == pytest.approx(1.0)
    test = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    dev = [json.loads(line) for line in (out / "dev.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(test) == 20 and {r["split"] for r in test} == {"test"} and len(dev) == 9
    assert not {r["item_id"] for r in test} & {r["item_id"] for r in dev}
    assert main(["meta-eval", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fed_turn"]["relevant"]["spearman"] == pytest.approx(1.0)


def test_grouped_data_is_split_by_group(tmp_path: Path) -> None:
    rows = [(f"d{g}-s{s}", f"d{g}", float((g * 7 + s) % 5) / 4, float(s)) for g in range(10) for s in range(4)]
    a = write_run(tmp_path / "a", "debate", rows, dataset="summeval", aspect="coherence")
    b = write_run(tmp_path / "b", "geval", [(i, g, 1 - v, h) for i, g, v, h in rows], dataset="summeval",
                  aspect="coherence")  # fmt: skip
    (fit,), _ = fit_ensemble([a, b], "correlation", 0.3, seed=5)
    assert fit.split_by == "group" and len(fit.dev_items) == 12  # 3 of 10 documents, all their 4 summaries
    dev_groups = {i.split("-")[0] for i in fit.dev_items}
    assert not dev_groups & {i.split("-")[0] for i in fit.test_items}
    (again,), _ = fit_ensemble([a, b], "correlation", 0.3, seed=5)
    assert again.dev_items == fit.dev_items  # the seed fixes the split


def test_bad_input_is_one_line(tmp_path: Path) -> None:
    a = write_run(tmp_path / "a", "dialevalml", [(f"t{i}", None, 0.5, 1.0) for i in range(3)])
    b = write_run(tmp_path / "b", "geval", [(f"t{i}", None, 0.5, 1.0) for i in range(3)], aspect="fluent")
    with pytest.raises(UserError, match="at least two runs"):
        fit_ensemble([a])
    with pytest.raises(UserError, match="share no dataset/aspect"):
        fit_ensemble([a, b])
    with pytest.raises(UserError, match="--dev-fraction"):
        fit_ensemble([a, a], dev_fraction=1.5)
    with pytest.raises(UserError, match="nothing to fit: fed_turn/relevant: only 3 items"):
        fit_ensemble([a, a])
    c = write_run(tmp_path / "c", "dialevalml", [(f"t{i}", None, i / 5, float(i)) for i in range(5)])
    with (c / "results.jsonl").open("a", encoding="utf-8") as handle:  # a second aspect with too few items
        handle.write(json.dumps({"item_id": "t0", "dataset": "fed_turn", "aspect": "fluent", "score": 1}) + "\n")
    fits, skipped = fit_ensemble([c, c])
    assert [f.aspect for f in fits] == ["relevant"] and skipped == [
        "fed_turn/fluent: only 0 items have a score from every run and a human rating; an ensemble needs at least 4"
    ]


def test_few_items_keep_two_for_dev_and_one_for_test(tmp_path: Path) -> None:
    rows = [(f"turn-00{i}", None, float(i % 2), float(i)) for i in range(1, 5)]
    a = write_run(tmp_path / "a", "dialevalml", rows)
    b = write_run(tmp_path / "b", "geval", rows)
    (fit,), _ = fit_ensemble([a, b], "correlation", 0.3, seed=0)
    assert (len(fit.dev_items), len(fit.test_items)) == (2, 2)


def test_per_document_sets_test_significance_per_document() -> None:
    # 10 documents of 4 summaries. Submetric 0 follows the documents' level (pooled rho about 0.98) but ranks
    # the summaries inside a document right in half the documents and reversed in the other half (per-document
    # rho +1 / -1, mean 0); submetric 1 ranks every document right.
    groups = [f"d{g}" for g in range(10) for _ in range(4)]
    y = np.array([10.0 * g + s for g in range(10) for s in range(4)])
    level = np.array([10.0 * g + (s if g % 2 else 3 - s) for g in range(10) for s in range(4)])
    x = np.column_stack([level, y + 0.1])
    weights, rhos = correlation_weights(x, y, groups)
    assert rhos == pytest.approx([0.0, 1.0]) and weights == pytest.approx([0.0, 1.0])
    pooled_weights, pooled_rhos = correlation_weights(x, y)  # the item-level test finds submetric 0 significant
    assert pooled_rhos[0] > 0.9 and pooled_weights[0] > 0.4


def _raw_run(folder: Path, protocol: str, scores: list[float], humans: list[float]) -> Path:
    """A FED run whose records carry only a raw score (no score_normalized, no scale in a config.json)."""
    folder.mkdir(parents=True)
    lines = [
        json.dumps({"item_id": f"t{i:02d}", "dataset": "fed_turn", "aspect": "relevant", "protocol": protocol,
                    "score": s, "human_score": h})
        for i, (s, h) in enumerate(zip(scores, humans, strict=True))
    ]  # fmt: skip
    (folder / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_min_max_scaling_is_fitted_without_the_test_items(tmp_path: Path) -> None:
    rng = random.Random(8)
    humans = [float(rng.randint(1, 5)) for _ in range(20)]
    good = [h + rng.uniform(-0.5, 0.5) for h in humans]
    noisy = [rng.uniform(1, 5) for _ in humans]
    a, b = _raw_run(tmp_path / "a", "dialevalml", good, humans), _raw_run(tmp_path / "b", "geval", noisy, humans)
    (fit,), _ = fit_ensemble([a, b], "regression", 0.5, seed=2)
    test_item = fit.test_items[0]
    outlier = [1000.0 if f"t{i:02d}" == test_item else s for i, s in enumerate(noisy)]
    c = _raw_run(tmp_path / "c", "geval", outlier, humans)
    (again,), _ = fit_ensemble([a, c], "regression", 0.5, seed=2)
    assert again.dev_items == fit.dev_items and again.weights == pytest.approx(fit.weights)
    dev = {r["item_id"]: r["details"]["submetrics"] for r in fit.records if r["split"] == "dev"}
    dev_again = {r["item_id"]: r["details"]["submetrics"] for r in again.records if r["split"] == "dev"}
    assert dev_again.keys() == dev.keys()
    for item, values in dev.items():  # a test item's score changed nothing the fit saw
        assert dev_again[item] == pytest.approx(values), item
    dev_values = [v["geval"] for v in dev.values()]
    assert min(dev_values) == 0.0 and max(dev_values) == 1.0  # scaled on the dev items' own range
    shifted = next(r for r in again.records if r["item_id"] == test_item)["details"]["submetrics"]["geval"]
    assert shifted > 1.0  # outside the dev range: outside [0, 1], not squeezed back
