"""Meta-evaluation against hand-computed correlations (no scipy in the expected values)."""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis import meta_eval
from debate_eval.tasks.analysis.meta_eval import (
    PAPER_TABLE1,
    AspectReport,
    format_distribution,
    format_json,
    format_table,
    load_results,
    meta_evaluate,
    score_distribution,
)

PAPER = Path("/work/shared/papers/debate-devils-advocate.txt")


# ------------------------------------------------------------------------ independent reference formulas


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties get the average rank."""
    return [sum(1 for w in values if w < v) + (sum(1 for w in values if w == v) + 1) / 2 for v in values]


def pearson(x: list[float], y: list[float]) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def spearman(x: list[float], y: list[float]) -> float:
    return pearson(ranks(x), ranks(y))


def kendall_tau_b(x: list[float], y: list[float]) -> float:
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif dx * dy > 0:
                concordant += 1
            else:
                discordant += 1
    total_x = concordant + discordant + ties_y  # pairs not tied in x
    total_y = concordant + discordant + ties_x
    return (concordant - discordant) / math.sqrt(total_x * total_y)


# ----------------------------------------------------------------------------------------------- fixtures


def rec(
    item_id: str,
    group: str,
    human: float | None,
    score: float | None,
    dataset: str = "summeval",
    aspect: str = "coherence",
    protocol: str | None = "debate",
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "item_id": item_id,
        "dataset": dataset,
        "aspect": aspect,
        "group_id": group,
        "system_id": "M0",
        "human_score": human,
        "score": score,
        "parse_status": "parsed" if score is not None else "no_score",
    }
    if protocol is not None:
        record["protocol"] = protocol
    return record


def group(prefix: str, humans: list[float], scores: list[float | None], **kwargs: Any) -> list[dict[str, Any]]:
    return [rec(f"{prefix}-{i}", prefix, h, s, **kwargs) for i, (h, s) in enumerate(zip(humans, scores, strict=True))]


def write_jsonl(path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail, encoding="utf-8")
    return path


def only(report: dict[str, dict[str, AspectReport]], dataset: str = "summeval") -> AspectReport:
    (entry,) = report[dataset].values()
    return entry


# ---------------------------------------------------------------------------------------- the formulas


def test_reference_formulas_on_hand_computed_examples() -> None:
    # human 1..5, prediction 2,1,4,3,5: sum d^2 = 4 -> rho = 1 - 6*4/(5*24) = 0.8; 8 concordant,
    # 2 discordant pairs -> tau = 6/10; deviations give r = 8/10.
    assert spearman([2, 1, 4, 3, 5], [1, 2, 3, 4, 5]) == pytest.approx(0.8)
    assert kendall_tau_b([2, 1, 4, 3, 5], [1, 2, 3, 4, 5]) == pytest.approx(0.6)
    assert pearson([2, 1, 4, 3, 5], [1, 2, 3, 4, 5]) == pytest.approx(0.8)
    # with a tie in the predictions: tau-b = 5 / sqrt(6 * 5)
    assert kendall_tau_b([1, 2, 2, 5], [1, 2, 3, 4]) == pytest.approx(5 / math.sqrt(30))


# ------------------------------------------------------------------------------------- group statistics


def test_perfect_agreement_is_one() -> None:
    entry = only(meta_evaluate(group("d1", [1, 2, 3, 4], [2, 3, 4, 5])))
    assert (entry.spearman, entry.kendall, entry.pearson) == (
        pytest.approx(1.0),
        pytest.approx(1.0),
        pytest.approx(1.0),
    )
    assert (entry.n_items, entry.n_missing, entry.n_groups, entry.n_skipped) == (4, 0, 1, 0)


def test_reversed_order_is_minus_one() -> None:
    entry = only(meta_evaluate(group("d1", [1, 2, 3, 4], [5, 4, 3, 2])))
    assert entry.spearman == pytest.approx(-1.0)
    assert entry.kendall == pytest.approx(-1.0)
    assert entry.pearson == pytest.approx(-1.0)


def test_group_average_over_documents() -> None:
    records = group("d1", [1, 2, 3, 4], [2, 3, 4, 5]) + group("d2", [1, 2, 3, 4, 5], [2, 1, 4, 3, 5])
    entry = only(meta_evaluate(records))
    # d1: 1, 1, 1; d2: rho 0.8, tau 0.6, r 0.8 (hand-computed above)
    assert entry.spearman == pytest.approx(0.9)
    assert entry.kendall == pytest.approx(0.8)
    assert entry.pearson == pytest.approx(0.9)
    assert entry.n_groups == 2
    # global: all 9 items pooled, by the independent formulas
    predicted = [2, 3, 4, 5, 2, 1, 4, 3, 5]
    human = [1, 2, 3, 4, 1, 2, 3, 4, 5]
    assert entry.global_spearman == pytest.approx(spearman(predicted, human))
    assert entry.global_kendall == pytest.approx(kendall_tau_b(predicted, human))
    assert entry.global_pearson == pytest.approx(pearson(predicted, human))


def test_group_with_constant_human_scores_is_skipped_and_counted() -> None:
    records = group("d1", [1, 2, 3, 4], [2, 3, 4, 5]) + group("d2", [3, 3, 3], [1, 2, 3])
    entry = only(meta_evaluate(records))
    assert entry.spearman == pytest.approx(1.0)  # d2 would pull the mean down if it were used
    assert (entry.n_groups, entry.n_skipped, entry.n_items) == (1, 1, 7)


def test_group_with_constant_predictions_is_skipped_and_counted() -> None:
    records = group("d1", [1, 2, 3, 4], [5, 4, 3, 2]) + group("d2", [1, 2, 3], [4, 4, 4])
    entry = only(meta_evaluate(records))
    assert entry.spearman == pytest.approx(-1.0)
    assert (entry.n_groups, entry.n_skipped) == (1, 1)


def test_only_constant_groups_give_none_not_nan() -> None:
    report = meta_evaluate(group("d1", [2, 2, 2], [1, 2, 3]))
    entry = only(report)
    assert (entry.spearman, entry.kendall, entry.pearson) == (None, None, None)
    assert entry.global_spearman is None
    assert (entry.n_groups, entry.n_skipped) == (0, 1)
    assert "NaN" not in format_json(report)
    assert json.loads(format_json(report))["summeval"]["coherence"]["spearman"] is None


def test_missing_predictions_are_excluded_and_counted() -> None:
    # d1 keeps 3 of 4 items: (4,1), (2,3), (1,4) -> exactly reversed. Imputing the null would change that.
    records = group("d1", [1, 2, 3, 4], [4, None, 2, 1]) + group("d2", [1, 2, 3], [None, None, 3])
    entry = only(meta_evaluate(records))
    assert entry.spearman == pytest.approx(-1.0)
    assert entry.kendall == pytest.approx(-1.0)
    assert entry.n_items == 7
    assert entry.n_missing == 3
    assert (entry.n_groups, entry.n_skipped) == (1, 1)  # d2 has a single prediction left


def test_topical_chat_pearson_and_spearman() -> None:
    human, predicted = [1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 2.0, 5.0]
    records = group("ctx1", human, predicted, dataset="topical_chat", aspect="naturalness")
    entry = only(meta_evaluate(records), "topical_chat")
    # r = 6 / sqrt(5 * 9); rho (tied ranks 2.5, 2.5) = 4.5 / sqrt(4.5 * 5)
    assert entry.pearson == pytest.approx(6 / math.sqrt(45))
    assert entry.pearson == pytest.approx(0.894427191)
    assert entry.spearman == pytest.approx(4.5 / math.sqrt(22.5))
    assert entry.kendall == pytest.approx(kendall_tau_b(predicted, human))


def test_aspects_and_datasets_are_separate() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("d1", [1, 2, 3], [3, 2, 1], aspect="fluency")
    records += group("c1", [1, 2, 3], [1, 3, 2], dataset="topical_chat", aspect="coherence")
    report = meta_evaluate(records)
    assert set(report) == {"summeval", "topical_chat"}
    assert report["summeval"]["coherence"].spearman == pytest.approx(1.0)
    assert report["summeval"]["fluency"].spearman == pytest.approx(-1.0)
    assert report["topical_chat"]["coherence"].spearman == pytest.approx(0.5)


def test_several_protocols_are_keyed_apart() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("d1", [1, 2, 3], [3, 2, 1], protocol="geval")
    report = meta_evaluate(records)
    assert set(report["summeval"]) == {"coherence", "coherence[geval]"}
    assert report["summeval"]["coherence[geval]"].protocol == "geval"
    assert report["summeval"]["coherence[geval]"].aspect == "coherence"
    assert report["summeval"]["coherence[geval]"].spearman == pytest.approx(-1.0)


def test_single_non_debate_protocol_keeps_plain_aspect() -> None:
    report = meta_evaluate(group("d1", [1, 2, 3], [1, 2, 3], protocol="geval"))
    assert set(report["summeval"]) == {"coherence"}
    assert report["summeval"]["coherence"].protocol == "geval"


# ----------------------------------------------------------------------------------------------- loading


def test_last_record_wins_for_duplicated_item_ids(tmp_path: Path) -> None:
    first = group("d1", [1, 2, 3], [1, None, 3])
    retry = [rec("d1-1", "d1", 2, 2)]
    path = write_jsonl(tmp_path / "results.jsonl", first + retry)
    records = load_results([path])
    assert len(records) == 3
    assert {r["item_id"]: r["score"] for r in records} == {"d1-0": 1, "d1-1": 2, "d1-2": 3}
    entry = only(meta_evaluate(records))
    assert (entry.n_items, entry.n_missing) == (3, 0)


def test_last_record_wins_across_files_and_missing_protocol_is_debate(tmp_path: Path) -> None:
    old = write_jsonl(tmp_path / "a.jsonl", group("d1", [1, 2, 3], [1, 2, 3], protocol=None))
    new = write_jsonl(tmp_path / "b.jsonl", [rec("d1-0", "d1", 1, 5)])
    records = load_results([old, new])
    assert len(records) == 3
    assert {r["item_id"]: r["score"] for r in records}["d1-0"] == 5
    report = meta_evaluate(records)
    assert set(report["summeval"]) == {"coherence"}
    assert report["summeval"]["coherence"].protocol == "debate"


def test_same_item_id_under_other_protocol_is_kept(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "r.jsonl", [rec("x", "d1", 1, 1), rec("x", "d1", 1, 2, protocol="geval")])
    assert len(load_results([path])) == 2


def test_truncated_final_line_is_skipped_with_warning(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2], [1, 2]), tail='{"item_id": "d1-2", "da')
    records = load_results([path])
    assert [r["item_id"] for r in records] == ["d1-0", "d1-1"]
    err = capsys.readouterr().err
    assert "warning" in err
    assert "line 3" in err


def test_bad_middle_line_raises_with_line_number(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    lines = [json.dumps(rec("a", "d1", 1, 1)), "{not json", json.dumps(rec("b", "d1", 2, 2))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"results\.jsonl: line 2 "):
        load_results([path])


def test_bad_final_line_with_newline_is_an_error(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", [rec("a", "d1", 1, 1)], tail="{broken\n")
    with pytest.raises(UserError, match="line 2"):
        load_results([path])


def test_missing_file_and_bad_records_raise_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"nope\.jsonl"):
        load_results([tmp_path / "nope.jsonl"])
    path = tmp_path / "list.jsonl"
    path.write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(UserError, match="line 1"):
        load_results([path])
    path.write_text(json.dumps({"item_id": "a", "dataset": "summeval"}) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match="aspect"):
        load_results([path])


# -------------------------------------------------------------------------------------------- formatting


def test_json_shape() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("c1", [1, 2, 3], [1, 3, 2], dataset="topical_chat")
    payload = json.loads(format_json(meta_evaluate(records)))
    assert set(payload) == {"summeval", "topical_chat"}
    assert set(payload["summeval"]) == {"coherence"}
    assert set(payload["summeval"]["coherence"]) == {
        "spearman",
        "kendall",
        "pearson",
        "global_spearman",
        "global_kendall",
        "global_pearson",
        "n_items",
        "n_missing",
        "n_groups",
        "n_skipped",
        "protocol",
    }
    entry = payload["summeval"]["coherence"]
    assert entry["spearman"] == pytest.approx(1.0)
    assert (entry["n_items"], entry["n_groups"], entry["protocol"]) == (3, 1, "debate")
    assert payload["topical_chat"]["coherence"]["spearman"] == pytest.approx(0.5)


def _all_aspects(dataset: str, aspects: list[str]) -> list[dict[str, Any]]:
    records = []
    for aspect in aspects:
        records += group(f"{aspect}-d1", [1, 2, 3], [1, 2, 3], dataset=dataset, aspect=aspect)
    return records


def test_table_shows_counts_measured_and_paper_numbers() -> None:
    records = _all_aspects("summeval", ["coherence", "consistency", "fluency", "relevance"])
    records += _all_aspects("topical_chat", ["naturalness", "coherence", "engagingness", "groundedness"])
    records.append(rec("extra", "coherence-d1", 2, None, aspect="coherence"))
    table = format_table(meta_evaluate(records))
    assert "Table 1" in table
    assert "GPT-4" in table
    assert "NOT this run" in table
    average = next(line for line in table.splitlines() if line.startswith("summeval/average"))
    assert "0.597" in average
    assert "0.575" in average
    assert "1.000" in average
    tc_average = next(line for line in table.splitlines() if line.startswith("topical_chat/average"))
    assert "0.735" in tc_average
    assert "0.729" in tc_average
    coherence = next(line for line in table.splitlines() if line.startswith("summeval/coherence "))
    assert coherence.split()[1:4] == ["4", "1", "1/0"]  # items, missing, groups used/skipped
    assert coherence.split()[-2:] == ["0.610", "0.588"]
    groundedness = next(line for line in table.splitlines() if line.startswith("topical_chat/groundedness"))
    assert groundedness.split()[-2:] == ["0.745", "0.800"]


def test_table_partial_aspects_marks_paper_average_and_other_reference() -> None:
    records = _all_aspects("summeval", ["coherence", "fluency"])
    average = next(
        line for line in format_table(meta_evaluate(records)).splitlines() if line.startswith("summeval/average")
    )
    # mean of the paper's coherence and fluency: (0.610 + 0.542) / 2 = 0.576, (0.588 + 0.515) / 2 = 0.5515
    assert "~0.576" in average
    assert "0.597" not in average
    table = format_table(meta_evaluate(records), reference="ChatEval")
    assert "0.477" in table  # ChatEval coherence rho
    with pytest.raises(UserError):
        format_table(meta_evaluate(records), reference="nobody")


def test_paper_table_is_copied_from_the_paper_text() -> None:
    if not PAPER.is_file():
        pytest.skip("paper text not available")
    lines = PAPER.read_text(encoding="utf-8").splitlines()
    blocks = {"summeval": [], "topical_chat": []}  # type: dict[str, list[list[float]]]
    current = None
    for line in lines:
        if line.startswith("SummEval Average"):
            current = "summeval" if not blocks["summeval"] else None
        elif line.startswith("Topical-Chat Average"):
            current = "topical_chat"
        elif line.startswith("Table 1:"):
            break
        elif current and (numbers := re.findall(r"-?\d\.\d{3}", line)):
            blocks[current].append([float(n) for n in numbers])
    aspects = {
        "summeval": (("average", "spearman", "kendall"), "coherence", "consistency", "fluency", "relevance"),
        "topical_chat": (
            ("average", "pearson", "spearman"),
            "naturalness",
            "coherence",
            "engagingness",
            "groundedness",
        ),
    }
    evaluators = ["G-Eval-4", "ChatEval", "MultiAgent", "DEBATE"]  # the last four (GPT-4) rows of each block
    for dataset, rows in blocks.items():
        (_, first, second), *names = aspects[dataset]
        for evaluator, row in zip(evaluators, rows[-4:], strict=True):
            assert len(row) == 10
            for index, aspect in enumerate(["average", *names]):
                paper = PAPER_TABLE1[evaluator][dataset][aspect]
                assert (paper[first], paper[second]) == (row[2 * index], row[2 * index + 1]), (
                    evaluator,
                    aspect,
                )


def test_paper_averages_are_consistent_with_the_aspects() -> None:
    for evaluator, datasets in PAPER_TABLE1.items():
        for dataset, table in datasets.items():
            for statistic, value in table["average"].items():
                values = [table[a][statistic] for a in table if a != "average"]
                assert sum(values) / len(values) == pytest.approx(value, abs=0.0016), (evaluator, dataset)


# ------------------------------------------------------------------------------------------ distribution


def test_score_distribution_percentages() -> None:
    records = [
        rec("a", "d1", 1.0, 1.0),
        rec("b", "d1", 1.333, 2.5),  # human -> 1, predicted 2.5 rounds half up -> 3
        rec("c", "d1", 1.667, 5.0),  # human -> 2
        rec("d", "d1", 4.667, None),  # human -> 5, no prediction
    ]
    entry = score_distribution(records)["summeval"]["coherence"]
    assert entry["bins"] == [1, 2, 3, 4, 5]
    assert entry["human"] == {1: 50.0, 2: 25.0, 3: 0.0, 4: 0.0, 5: 25.0}
    assert entry["predicted"] == pytest.approx({1: 100 / 3, 2: 0.0, 3: 100 / 3, 4: 0.0, 5: 100 / 3})
    assert (entry["n_human"], entry["n_predicted"]) == (4, 3)
    text = format_distribution(score_distribution(records))
    assert "summeval/coherence" in text
    assert "50.00" in text
    assert "33.33" in text


def test_score_bin_rounds_half_up() -> None:
    assert [meta_eval.score_bin(v) for v in (0.5, 1.5, 2.5, 2.49, 0.333, 0.667)] == [1, 2, 3, 2, 0, 1]


# ---------------------------------------------------------------------------------------------- command


def _run_command(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    meta_eval.add_subparser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(argv)
    status = args.handler(args)
    return status, capsys.readouterr().out


def test_command_prints_table_json_and_distribution(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = write_jsonl(tmp_path / "results.jsonl", group("d1", [1, 2, 3, 4], [2, 3, 4, 5]))
    status, out = _run_command(["meta-eval", str(path)], capsys)
    assert status == 0
    assert "summeval/coherence" in out
    assert "0.610" in out
    status, out = _run_command(["meta-eval", str(path), "--json"], capsys)
    assert status == 0
    assert json.loads(out)["summeval"]["coherence"]["spearman"] == pytest.approx(1.0)
    status, out = _run_command(["meta-eval", str(tmp_path), "--distribution"], capsys)
    assert status == 0
    assert "summeval/average" in out
    assert "Score distribution" in out
