"""The report's JSON and table forms."""

from __future__ import annotations

import json
from typing import Any

import pytest
from analysis_factories import group, rec

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.formatting import format_json, format_table
from debate_eval.tasks.analysis.meta_eval import meta_evaluate


def test_json_shape() -> None:
    records = group("d1", [1, 2, 3], [1, 2, 3]) + group("c1", [1, 2, 3], [1, 3, 2], dataset="topical_chat")
    payload = json.loads(format_json(meta_evaluate(records)))
    assert set(payload) == {"summeval", "topical_chat"}
    assert set(payload["summeval"]) == {"coherence"}
    assert set(payload["summeval"]["coherence"]) == {
        "spearman",
        "kendall",
        "pearson",
        "pooled_spearman",
        "pooled_kendall",
        "pooled_pearson",
        "n_items",
        "n_missing",
        "n_unrated",  # records without a human score
        "n_groups",
        "n_skipped",
        "protocol",
        "level",  # added with the bootstrap
        "ci95",
        "pooled_ci95",  # the pooled statistics' interval (Topical-Chat)
        "paper",  # the published row beside the part, per definition
    }
    entry = payload["summeval"]["coherence"]
    assert entry["spearman"] == pytest.approx(1.0)
    assert (entry["n_items"], entry["n_groups"], entry["protocol"]) == (3, 1, "debate")
    assert (entry["level"], entry["ci95"]) == ("group", None)  # no bootstrap asked for
    assert entry["paper"]["per-group"]["row"] == "DEBATE (GPT-4)"
    assert entry["paper"]["per-group"]["values"] == {"spearman": 0.610, "kendall": 0.588}
    topical = payload["topical_chat"]["coherence"]["paper"]
    assert set(topical) == {"per-group", "pooled"} and topical["pooled"] is None  # DEBATE reports per-context only
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
    assert coherence.split()[1:5] == ["4", "1", "0", "1/0"]  # items, missing, unrated, groups used/skipped
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


def test_average_row_compares_the_same_aspects_on_both_sides() -> None:
    records = _all_aspects("summeval", ["coherence", "consistency", "fluency"])
    records += group("relevance-d1", [1, 2, 3], [2, 2, 2], aspect="relevance")  # constant: no correlation
    average = next(
        line for line in format_table(meta_evaluate(records)).splitlines() if line.startswith("summeval/average")
    )
    # three aspects have a value: the paper side is the mean of the paper's three (0.610 + 0.643 + 0.542) / 3,
    # not its four-aspect average 0.597
    assert "(3 of 4)" in average
    assert "~0.598" in average and "0.597" not in average
    assert average.split()[-4:-2] == ["1.000", "1.000"]


def _topical_chat(protocol: str, contexts: int = 12) -> list[dict[str, Any]]:
    records = []
    for context in range(contexts):
        humans = [1, 2, 3, 2, 1, 3]
        scores = [1, 2, 3, 3, 1, 2] if context % 2 else [2, 1, 3, 2, 1, 3]
        records += group(f"c{context}", humans, scores, dataset="topical_chat", protocol=protocol)
    return records


def test_topical_chat_shows_both_definitions_with_intervals_and_their_papers() -> None:
    report = meta_evaluate(_topical_chat("chateval"), bootstrap=200)
    entry = report["topical_chat"]["coherence"]
    assert isinstance(entry.ci95["pearson"], list) and isinstance(entry.pooled_ci95["spearman"], list)
    table = format_table(report)
    per_context, pooled = (line for line in table.splitlines() if line.startswith("topical_chat/coherence"))
    assert "(pooled)" not in per_context and "(pooled)" in pooled
    for line, (first, second) in ((per_context, ("pearson", "spearman")), (pooled, ("spearman", "kendall"))):
        intervals = entry.ci95 if line is per_context else entry.pooled_ci95
        assert f"[{intervals[first][0]:.3f}, {intervals[first][1]:.3f}]" in line
        assert f"[{intervals[second][0]:.3f}, {intervals[second][1]:.3f}]" in line
    assert "per-context: per dialogue context, averaged (DEBATE App. E.5)" in table
    assert "pooled: over all 360 responses (UniEval's correlation.py; G-Eval, ChatEval 'turn level')" in table
    # each definition beside its paper: DEBATE's reproduction row per context, ChatEval's own Table 2 pooled
    assert "DEBATE (Kim et al. 2024) Table 1, row ChatEval (GPT-4)" in table
    assert "ChatEval (Chan et al. 2023) Table 2, row GPT-4(MA)" in table
    assert pooled.split()[-6:-4] == ["0.619", "0.561"]  # ChatEval Table 2, GPT-4(MA), coherence rho / tau
    assert per_context.split()[-6:-4] == ["0.657", "0.641"]  # DEBATE Table 1, ChatEval row, coherence r / rho
    assert "'tau' column holds Pearson r for its ROUGE-L and BERTScore rows" in table
    payload = json.loads(format_json(report))["topical_chat"]["coherence"]
    assert payload["pooled_ci95"]["spearman"] == pytest.approx(entry.pooled_ci95["spearman"])
    assert payload["paper"]["pooled"]["row"] == "GPT-4(MA)"


def test_two_documents_print_no_numeric_interval() -> None:
    records = group("d1", [1, 2, 3, 4], [1, 3, 2, 4]) + group("d2", [1, 2, 3, 4], [2, 1, 4, 3])
    report = meta_evaluate(records, bootstrap=500)
    row = next(line for line in format_table(report).splitlines() if line.startswith("summeval/coherence"))
    assert row.endswith("too few groups (n=2)") and "[" not in row
    assert json.loads(format_json(report))["summeval"]["coherence"]["ci95"] == "too few groups (n=2)"


def test_pairwise_only_report_has_no_correlation_header() -> None:
    records = [
        {"item_id": f"q{i}", "dataset": "faireval", "aspect": "preference", "task_type": "pairwise",
         "protocol": "chateval", "verdict": "first", "human_label": ("first", "second")[i % 2]}
        for i in range(12)
    ]  # fmt: skip
    table = format_table(meta_evaluate(records, bootstrap=100))
    assert "used/skip" not in table and "rho" not in table
    paper = next(line for line in table.splitlines() if line.startswith("  paper (not this run)"))
    assert paper.split()[-5:-3] == ["0.638", "0.400"]  # ChatEval Table 1, GPT-4 Multi-Agent: 63.8 %, 0.40
