"""Systems (tasks/analysis/systems.py): the system of a record, the system-level correlation checked against
an independent pandas/scipy computation (constructed records and SummEval's own human scores), the per-system
comparison on constructed data with a known winner, and pairwise win rates."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pandas as pd
import pytest
from analysis_factories import assert_same_figures, shuffled
from scipy import stats

from debate_eval.tasks.analysis.bootstrap import SEED
from debate_eval.tasks.analysis.formatting import format_json, format_table
from debate_eval.tasks.analysis.meta_eval import meta_evaluate
from debate_eval.tasks.analysis.systems import (
    compare_systems,
    holm,
    run_systems,
    summary_lines,
    system_level,
    system_of,
    win_rates,
)


def record(doc: str, system: str, score: float | None, human: float | None, **extra: Any) -> dict[str, Any]:
    return {
        "item_id": f"{doc}/{system}",
        "dataset": "mine.jsonl",
        "aspect": "quality",
        "group_id": doc,
        "system_id": system,
        "score": score,
        "human_score": human,
        **extra,
    }


def constructed(n_docs: int = 30, seed: int = 1) -> list[dict[str, Any]]:
    """Five systems of distinct quality; the judge sees quality with noise; one output in ten unscored."""
    rng = random.Random(seed)
    quality = {"S1": 1.5, "S2": 2.5, "S3": 3.0, "S4": 3.5, "S5": 4.2}
    out = []
    for d in range(n_docs):
        difficulty = rng.gauss(0, 0.5)
        for system, q in quality.items():
            human = q + difficulty + rng.gauss(0, 0.6)
            score = None if rng.random() < 0.1 else round(q + difficulty + rng.gauss(0, 0.9))
            out.append(record(f"d{d}", system, score, human))
    return out


def independent_system_level(records: list[dict[str, Any]]) -> dict[str, float]:
    """pandas groupby + scipy: the systems' means over their items with both scores, then the three statistics."""
    frame = pd.DataFrame(records).dropna(subset=["score", "human_score"])
    means = frame.groupby("system_id")[["score", "human_score"]].mean()
    return {
        "kendall": stats.kendalltau(means["score"], means["human_score"]).statistic,
        "spearman": stats.spearmanr(means["score"], means["human_score"]).statistic,
        "pearson": stats.pearsonr(means["score"], means["human_score"]).statistic,
    }


def test_system_of_reads_system_id_then_the_item_id_of_summeval() -> None:
    assert system_of(record("d1", "M5", 1, 1)) == "M5"
    summeval = {"item_id": "dm-test-abc/M11", "dataset": "summeval", "group_id": "dm-test-abc", "aspect": "x"}
    assert system_of(summeval) == "M11"  # an older or imported record without system_id
    assert system_of({**summeval, "group_id": None}) == "M11"
    assert system_of({"item_id": "row-3", "dataset": "mine.csv", "aspect": "x"}) is None  # own data, no system
    assert system_of({"item_id": "a/b", "dataset": "mine.csv", "aspect": "x"}) is None  # only known datasets


def test_system_level_equals_an_independent_pandas_scipy_computation() -> None:
    records = constructed()
    level = system_level(records)
    assert level is not None and level["n_systems"] == 5 and level["n_groups"] == 30
    expected = independent_system_level(records)
    for name, value in expected.items():
        assert level[name] == pytest.approx(value, abs=1e-12), name
    frame = pd.DataFrame(records).dropna(subset=["score", "human_score"])
    assert level["systems"]["S3"]["judge_mean"] == pytest.approx(frame[frame.system_id == "S3"]["score"].mean())
    assert level["systems"]["S3"]["n_items"] == int((frame.system_id == "S3").sum())


def test_system_level_bootstrap_resamples_documents_and_recomputes_the_system_means() -> None:
    records = constructed()
    level = system_level(records, bootstrap=200)
    frame = pd.DataFrame(records).dropna(subset=["score", "human_score"])
    docs = list(dict.fromkeys(r["group_id"] for r in records))
    rows = np.random.default_rng(SEED).integers(0, len(docs), size=(200, len(docs)))
    draws = []
    for row in rows:  # the same resamples of documents, each document as often as drawn
        sample = pd.concat([frame[frame.group_id == docs[i]] for i in row])
        means = sample.groupby("system_id")[["score", "human_score"]].mean()
        draws.append(stats.kendalltau(means["score"], means["human_score"]).statistic)
    expected = np.percentile(draws, [2.5, 97.5])
    assert level["ci95_documents"]["kendall"] == pytest.approx(list(expected), abs=1e-12)
    assert level["ci95_documents"]["kendall"][0] < level["kendall"] <= level["ci95_documents"]["kendall"][1]


def test_system_level_interval_is_fisher_z_over_the_systems() -> None:
    """The documents' bootstrap holds the systems fixed and under-covers the systems' correlation (0.85 for
    Pearson at 16 systems); ``ci95`` is Fisher's z over the systems with each statistic's standard error."""
    records = constructed(n_docs=30) + [
        {**r, "system_id": r["system_id"] + "x", "item_id": r["item_id"] + "x"} for r in constructed(30, seed=2)
    ]
    level = system_level(records, bootstrap=50)
    n = level["n_systems"]
    assert n == 10
    z = stats.norm.ppf(0.975)
    ses = {"pearson": 1 / np.sqrt(n - 3), "kendall": np.sqrt(0.437 / (n - 4))}
    ses["spearman"] = np.sqrt((1 + level["spearman"] ** 2 / 2) / (n - 3))
    for name, se in ses.items():
        expected = [np.tanh(np.arctanh(level[name]) - z * se), np.tanh(np.arctanh(level[name]) + z * se)]
        assert level["ci95"][name] == pytest.approx(expected, rel=1e-12), name
    assert "Fisher z" in level["ci95_method"]
    four = [r for r in constructed() if r["system_id"] != "S5"]
    assert system_level(four, bootstrap=50)["ci95"] == "too few systems (n=4)"


def test_system_level_on_summeval_scores_equals_the_independent_computation(shared_data_dir: Any) -> None:
    """SummEval's 16 systems x 100 documents: relevance ratings as the 'judge' of the coherence ratings; each
    record named by its item id only (as an old run or an import may be), the system taken from it."""
    from debate_eval.tasks.data.datasets import load_items

    items = load_items("summeval", shared_data_dir)
    records = [
        {
            "item_id": item.item_id,
            "dataset": "summeval",
            "aspect": "coherence",
            "group_id": item.group_id,
            "score": item.human_scores["relevance"],
            "human_score": item.human_scores["coherence"],
        }
        for item in items
    ]
    report = meta_evaluate(records, bootstrap=50)["summeval"]["coherence"]
    level = report.system_level
    assert level["n_systems"] == 16 and level["n_groups"] == 100
    frame = pd.DataFrame(records).assign(system_id=[item.item_id.split("/")[1] for item in items])
    expected = independent_system_level(frame.to_dict("records"))
    for name, value in expected.items():
        assert level[name] == pytest.approx(value, abs=1e-12), name
    assert set(level["systems"]) == {item.system_id for item in items}
    payload = json.loads(format_json(meta_evaluate(records, bootstrap=50)))["summeval"]["coherence"]
    assert payload["system_level"]["kendall"] == pytest.approx(expected["kendall"])
    assert "system level (16 systems' mean scores over 100 groups)" in format_table({"summeval": {"coherence": report}})


def test_system_level_needs_three_systems_and_withholds_intervals_below_ten_documents() -> None:
    assert system_level([record(f"d{i}", "only", i % 5, i % 3) for i in range(20)]) is None
    two = [r for r in constructed() if r["system_id"] in ("S1", "S2")]
    assert system_level(two) is None  # two points: always +1 or -1
    assert system_level([r for r in constructed() if r["system_id"] in ("S1", "S2", "S3")])["n_systems"] == 3
    few = [r for r in constructed() if r["group_id"] in {f"d{i}" for i in range(4)}]
    assert system_level(few, bootstrap=100)["ci95"] == "too few groups (n=4)"


def known_winner(n_docs: int = 40, seed: int = 7) -> list[dict[str, Any]]:
    """System B is better than A by 1 point on most documents; C equals A up to noise."""
    rng = random.Random(seed)
    out = []
    for d in range(n_docs):
        base = rng.choice([1, 2, 3])
        out.append(record(f"d{d}", "A", base, None))
        out.append(record(f"d{d}", "B", base + (1 if rng.random() < 0.85 else 0), None))
        out.append(record(f"d{d}", "C", base + rng.choice([-1, 0, 0, 1]), None))
    return out


def test_per_system_comparison_finds_the_known_winner() -> None:
    records = known_winner()
    block = compare_systems(records, bootstrap=500)
    assert list(block["systems"]) == ["A", "B", "C"]
    a, b = block["systems"]["A"], block["systems"]["B"]
    assert b["mean"] > a["mean"] and a["ci95"][0] <= a["mean"] <= a["ci95"][1]
    pairs = {(p["first"], p["second"]): p for p in block["pairs"]}
    ab = pairs[("A", "B")]
    assert ab["n_inputs"] == 40 and ab["difference"] == pytest.approx(a["mean"] - b["mean"])
    assert ab["ci95"][1] < 0 and ab["p_value"] < 0.01  # B wins, clearly
    assert ab["wins"] == 0 and ab["losses"] + ab["ties"] == 40 and ab["losses"] > 25
    ac = pairs[("A", "C")]
    assert ac["ci95"][0] < 0 < ac["ci95"][1] and ac["p_value"] > 0.05  # no difference to find
    assert ac["wins"] + ac["ties"] + ac["losses"] == 40


def test_paired_difference_is_scipys_paired_t_test() -> None:
    """The pairs' p was the paired bootstrap's, whose floor 2/(B+1) kept Holm over many pairs from ever reaching
    0.05; it is now the paired t-test's on the per-document differences, with its t interval."""
    records = known_winner()
    ab = next(p for p in compare_systems(records, bootstrap=300)["pairs"] if p["second"] == "B")
    by = {(r["group_id"], r["system_id"]): r["score"] for r in records}
    a = [by[(f"d{d}", "A")] for d in range(40)]
    b = [by[(f"d{d}", "B")] for d in range(40)]
    reference = stats.ttest_rel(a, b)
    assert ab["test"] == "paired t" and ab["difference"] == pytest.approx(np.mean(a) - np.mean(b))
    assert ab["p_value"] == pytest.approx(reference.pvalue, rel=1e-9)
    assert ab["ci95"] == pytest.approx(list(reference.confidence_interval(0.95)), rel=1e-9)
    bca = next(p for p in compare_systems(records, bootstrap=300, ci_method="bca")["pairs"] if p["second"] == "B")
    assert bca["ci95"] == ab["ci95"] and bca["difference"] == ab["difference"]


def test_holm_adjustment_equals_statsmodels() -> None:
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    block = compare_systems(constructed(), bootstrap=300)
    p = [pair["p_value"] for pair in block["pairs"]]
    expected = multitest.multipletests(p, method="holm")[1]
    assert [pair["p_holm"] for pair in block["pairs"]] == pytest.approx(list(expected))
    expected_bh = multitest.multipletests(p, method="fdr_bh")[1]
    assert [pair["p_bh"] for pair in block["pairs"]] == pytest.approx(list(expected_bh))
    assert block["family"] == "the 10 tested pairs of 5 systems" and block["family_size"] == 10
    assert holm([0.01, "too few groups (n=3)", None, 0.04]) == [0.02, "too few groups (n=3)", None, 0.04]


def test_pairs_only_on_shared_inputs_and_run_summary_lines() -> None:
    records = known_winner(12) + [record("other", "D", 3, None)]
    block = compare_systems(records, bootstrap=0)
    assert "D" in block["systems"] and not any("D" in (p["first"], p["second"]) for p in block["pairs"])
    assert block["systems"]["D"]["ci95"] is None
    summary = run_systems(records, bootstrap=100)
    lines = summary_lines(summary)
    assert lines[0] == "quality: per system, mean judge score, 95% CI"
    assert any(line.startswith("  A - B: -") and "/12 over 12 inputs" not in line for line in lines)
    assert any("over 12 inputs" in line for line in lines)


def test_one_system_without_partial_ratings_has_no_systems_block() -> None:
    assert compare_systems([record(f"d{i}", "S", 3, 3) for i in range(12)]) is None
    assert run_systems([record(f"d{i}", "S", 3, None) for i in range(12)]) is None


def pairwise_record(i: int, a: str, b: str, verdict: str | None) -> dict[str, Any]:
    return {
        "item_id": f"p{i}",
        "dataset": "pairs.jsonl",
        "aspect": "preference",
        "task_type": "pairwise",
        "verdict": verdict,
        "human_label": None,
        "system_a": a,
        "system_b": b,
    }


def test_win_rates_count_ties_half_and_each_opponent_apart() -> None:
    verdicts = ["first"] * 14 + ["second"] * 4 + ["tie"] * 2  # X (shown first) against Y
    records = [pairwise_record(i, "X", "Y", v) for i, v in enumerate(verdicts)]
    records += [pairwise_record(100 + i, "Z", "X", "second") for i in range(10)]  # X beats Z, shown second
    records.append(pairwise_record(200, "X", "Y", None))  # no verdict: left out
    block = win_rates(records, bootstrap=200)
    x = block["systems"]["X"]
    assert (x["wins"], x["ties"], x["losses"], x["comparisons"]) == (24, 2, 4, 30)
    assert x["win_rate"] == pytest.approx(25 / 30) and x["ci95"][0] < 25 / 30 < x["ci95"][1]
    assert x["against"]["Y"]["win_rate"] == pytest.approx(15 / 20) and x["against"]["Z"]["win_rate"] == 1.0
    assert block["systems"]["Y"]["win_rate"] == pytest.approx(5 / 20) and block["systems"]["Z"]["wins"] == 0
    assert win_rates([pairwise_record(1, "", "", "first")]) is None


def test_bca_intervals_of_the_system_means() -> None:
    records = known_winner()
    percentile = compare_systems(records, bootstrap=400)["systems"]["B"]
    bca = compare_systems(records, bootstrap=400, ci_method="bca")["systems"]["B"]
    assert bca["mean"] == percentile["mean"] and bca["ci95"] != percentile["ci95"]
    assert bca["ci95"][0] < bca["mean"] < bca["ci95"][1]
    assert abs(bca["ci95"][0] - percentile["ci95"][0]) < 0.2 and abs(bca["ci95"][1] - percentile["ci95"][1]) < 0.2


def test_intervals_do_not_depend_on_the_order_of_the_records() -> None:
    """The resamples are drawn from the documents by id and from the values sorted, not in the order the records
    came in: the same intervals bit for bit, the other figures to the rounding of a sum in another order."""
    verdicts = ["first", "second", "tie", None]
    pairwise = [pairwise_record(i, f"S{i % 3}", f"S{(i + 1) % 3}", verdicts[i % 4]) for i in range(60)]
    for records, of in (
        (constructed(), lambda r: system_level(r, bootstrap=300)),
        (known_winner(), lambda r: compare_systems(r, bootstrap=300)),
        (pairwise, lambda r: win_rates(r, bootstrap=300)),
    ):
        before, after = of(records), of(shuffled(records))
        assert_same_figures(after, before)
        resampled = ["ci95_documents"] if "ci95_documents" in before else []
        assert [after[key] for key in resampled] == [before[key] for key in resampled]
        for name, entry in before.get("systems", {}).items():
            assert after["systems"][name].get("ci95") == entry.get("ci95"), name
