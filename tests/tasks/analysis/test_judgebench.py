"""JudgeBench's own figures in meta-eval and the judge card, on the released judges' outputs imported with
``debate-eval import judgebench``: every figure checked against a hand count over the raw JSON lines and the
interval against statsmodels' Wilson interval."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

from debate_eval.tasks.analysis.audit.base_facets import agreement
from debate_eval.tasks.analysis.audit.facet import Bootstrap
from debate_eval.tasks.analysis.judgebench import judgebench_figures, wilson_interval
from debate_eval.tasks.analysis.meta_eval import meta_evaluate
from debate_eval.tasks.analysis.records import load_results
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.record import Record

PAIRS = "judgebench/judgebench_gpt-4o-2024-05-13.jsonl"
OUTPUTS = {
    "o1-mini": ("judgebench/outputs/arena_hard_o1-mini-2024-09-12.jsonl", 65.71),
    "internlm2-7b": ("judgebench/outputs/reward_model_internlm2-7b-reward.jsonl", 59.43),
    "skywork-gemma-27b": ("judgebench/outputs/reward_model_Skywork-Reward-Gemma-2-27B.jsonl", 64.29),  # docs' figure
}
SWAP = {"A>B": "B>A", "B>A": "A>B"}
KNOWN = ("A>B", "B>A", "A=B")


def shared_file(shared_data_dir: Path, relative: str) -> Path:
    path = shared_data_dir / relative
    if not path.is_file():
        reason = f"{path} not found (JudgeBench does not ship); set DEBATE_EVAL_DATA_DIR to the shared data folder"
        if os.environ.get("DEBATE_EVAL_REQUIRE_DATA") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def hand_counts(path: Path) -> dict[str, list[int]]:
    """Per category ("all", "mmlu-pro", ...): [right, pairs, consistent, pairs with both decisions], counted
    from the raw lines with JudgeBench's rule."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        d1, d2 = (j["decision"] if j else None for j in row["judgments"])
        d2 = SWAP.get(d2, d2)
        total = sum((d == row["label"]) - (d == SWAP[row["label"]]) for d in (d1, d2))
        source = row["source"]
        for key in ("all", "mmlu-pro" if source.startswith("mmlu-pro") else source):
            counts[key][0] += total > 0
            counts[key][1] += 1
            if d1 in KNOWN and d2 in KNOWN:
                counts[key][2] += d1 == d2
                counts[key][3] += 1
    return counts


@pytest.fixture(scope="module", params=sorted(OUTPUTS))
def imported(request: pytest.FixtureRequest, shared_data_dir: Path, tmp_path_factory: pytest.TempPathFactory):
    relative, published = OUTPUTS[request.param]
    outputs = shared_file(shared_data_dir, relative)
    out = tmp_path_factory.mktemp("judgebench") / "run"
    assert (
        main(["import", "judgebench", str(shared_file(shared_data_dir, PAIRS)), str(outputs), "--out", str(out)]) == 0
    )
    return out, outputs, published


def test_meta_eval_reports_judgebench_score_per_source_and_consistency(imported) -> None:
    out, outputs, published = imported
    figures = meta_evaluate(load_results([out / "results.jsonl"]))["judgebench"]["preference"].judgebench
    counts = hand_counts(outputs)
    right, pairs, consistent, both = counts["all"]
    assert pairs == figures["n_pairs"] == 350 and figures["n_right"] == right
    assert figures["score"] == pytest.approx(100 * right / pairs) and round(figures["score"], 2) == published
    assert figures["consistency"] == pytest.approx(consistent / both)
    assert set(figures["categories"]) == {"mmlu-pro", "livebench-reasoning", "livebench-math", "livecodebench"}
    for name, entry in figures["categories"].items():
        assert [entry["n_right"], entry["n_pairs"], entry["n_consistent"], entry["n_both_orders"]] == counts[name]
    assert (
        sum(e["n_pairs"] for n, e in figures["sources"].items() if n.startswith("mmlu-pro-")) == counts["mmlu-pro"][1]
    )


def test_the_interval_is_wilsons(imported) -> None:
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    out, _, _ = imported
    figures = meta_evaluate(load_results([out / "results.jsonl"]))["judgebench"]["preference"].judgebench
    low, high = proportion.proportion_confint(figures["n_right"], figures["n_pairs"], alpha=0.05, method="wilson")
    assert figures["ci95"] == pytest.approx([100 * low, 100 * high], abs=1e-9)
    assert wilson_interval(0, 0) is None


def test_the_judge_card_shows_the_judgebench_score(imported) -> None:
    out, outputs, _ = imported
    lines = (out / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [Record.from_json(json.loads(line)) for line in lines]
    facet = agreement(records, Bootstrap(n=0))
    right, pairs, _, _ = hand_counts(outputs)["all"]
    figure = facet.figure("judgebench")
    assert figure.value == pytest.approx(100 * right / pairs)
    assert any(note.startswith("JudgeBench livecodebench: ") for note in facet.notes)


def test_the_json_report_carries_the_figures(imported, capsys: pytest.CaptureFixture[str]) -> None:
    out, outputs, _ = imported
    assert main(["meta-eval", str(out), "--json", "--bootstrap", "0"]) == 0
    figures = json.loads(capsys.readouterr().out)["judgebench"]["preference"]["judgebench"]
    right, pairs, _, _ = hand_counts(outputs)["all"]
    assert figures["n_right"] == right and figures["n_pairs"] == pairs


def row(label: str, verdict: str | None, verdicts: dict[str, str | None] | None = None) -> dict[str, object]:
    return {"item_id": f"{label}{verdict}{verdicts}", "dataset": "judgebench", "aspect": "preference",
            "task_type": "pairwise", "human_label": label, "verdict": verdict, "verdicts": verdicts,
            "system_id": "livebench-math"}  # fmt: skip


def test_one_order_runs_and_ties_count_as_judgebench_counts_them() -> None:
    rows = [
        row("first", "first"),  # +1
        row("first", "tie"),  # 0
        row("second", "first"),  # -1
        row("first", "tie", {"original": "first", "swapped": "tie"}),  # +1 (the run's verdict is a tie)
        row("second", None, {"original": "second", "swapped": None}),  # +1
        row("second", "tie", {"original": "second", "swapped": "first"}),  # 0
    ]
    figures = judgebench_figures(rows)
    assert figures is not None and figures["n_right"] == 3 and figures["n_pairs"] == 6
    assert figures["n_both_orders"] == 2 and figures["n_consistent"] == 0
    assert judgebench_figures([{**r, "dataset": "pandalm"} for r in rows]) is None
