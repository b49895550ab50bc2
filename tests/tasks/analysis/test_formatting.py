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
        "global_spearman",
        "global_kendall",
        "global_pearson",
        "n_items",
        "n_missing",
        "n_groups",
        "n_skipped",
        "protocol",
        "level",  # added with the bootstrap (issue 10)
        "ci95",
    }
    entry = payload["summeval"]["coherence"]
    assert entry["spearman"] == pytest.approx(1.0)
    assert (entry["n_items"], entry["n_groups"], entry["protocol"]) == (3, 1, "debate")
    assert (entry["level"], entry["ci95"]) == ("group", None)  # no bootstrap asked for
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
