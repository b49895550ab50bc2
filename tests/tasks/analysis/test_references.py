"""The published row beside a run: chosen per method, dataset and definition, the same for every output."""

from __future__ import annotations

import pytest

from debate_eval.tasks.analysis.paper_tables import PAIRWISE, PER_GROUP, POOLED
from debate_eval.tasks.analysis.references import (
    KNOWN_METHODS,
    REFERENCE_NAMES,
    method_reference,
    no_reference_reason,
    reference_for,
)


@pytest.mark.parametrize(
    ("method", "dataset", "definition", "label", "aspect", "statistic", "value"),
    [
        ("debate", "summeval", PER_GROUP, "DEBATE (Kim et al. 2024) Table 1, row DEBATE (GPT-4)", "coherence",
         "spearman", 0.610),
        ("tiebreaker", "topical_chat", PER_GROUP, "DEBATE (Kim et al. 2024) Table 1, row DEBATE (GPT-4)",
         "naturalness", "pearson", 0.699),
        ("multiagent", "summeval", PER_GROUP, "DEBATE (Kim et al. 2024) Table 1, row MultiAgent (GPT-4)",
         "fluency", "kendall", 0.393),
        ("geval", "summeval", PER_GROUP, "G-Eval (Liu et al. 2023) Table 1, row G-Eval-4 (GPT-4)", "coherence",
         "spearman", 0.582),
        ("geval", "topical_chat", POOLED,
         "G-Eval (Liu et al. 2023) as quoted by ChatEval (Chan et al. 2023) Table 2, row G-EVAL-4", "coherence",
         "spearman", 0.605),
        ("geval", "topical_chat", PER_GROUP, "DEBATE (Kim et al. 2024) Table 1, row G-Eval-4 (GPT-4)", "coherence",
         "pearson", 0.614),
        ("chateval", "topical_chat", POOLED, "ChatEval (Chan et al. 2023) Table 2, row GPT-4(MA)", "average",
         "spearman", 0.684),
        ("chateval", "faireval", PAIRWISE, "ChatEval (Chan et al. 2023) Table 1, row GPT-4 Multi-Agent",
         "preference", "accuracy", 0.638),
        ("chateval", "summeval", PER_GROUP, "DEBATE (Kim et al. 2024) Table 1, row ChatEval (GPT-4)", "relevance",
         "kendall", 0.472),
        ("fennec", "pandalm", PAIRWISE, "Fennec (2024) Table 2, row Fennec-7B", "preference", "agreement", 0.7067),
        ("fennec", "autoj_pairwise", PAIRWISE, "Fennec (2024) Table 2, row Fennec-7B", "preference", "consistency",
         0.8552),
    ],
)  # fmt: skip
def test_each_method_gets_its_own_papers_row(
    method: str, dataset: str, definition: str, label: str, aspect: str, statistic: str, value: float
) -> None:
    reference = method_reference(method, dataset, definition)
    assert reference is not None and reference.label() == label
    assert reference.value(aspect, statistic) == pytest.approx(value)


def test_no_row_where_no_paper_has_one() -> None:
    assert method_reference("debate", "topical_chat", POOLED) is None  # DEBATE reports per-context only
    assert method_reference("debate", "faireval", PAIRWISE) is None
    assert method_reference("dialevalml", "fed_turn", "item") is None
    assert "no FED numbers" in no_reference_reason("dialevalml", "fed_turn", imported=False)
    assert "no FED numbers" in no_reference_reason("dialevalml", "xdial_fed_turn-german", imported=False)
    assert method_reference("my-plugin", "summeval", PER_GROUP) is None
    assert method_reference("geval", "my_file.csv", PER_GROUP) is None  # the user's own data


def test_imported_runs_get_a_row_only_when_asked() -> None:
    assert reference_for("geval", "summeval", PER_GROUP, imported=True) is None
    asked = reference_for("geval", "summeval", PER_GROUP, imported=True, asked="geval")
    assert asked is not None and asked.paper.startswith("G-Eval")
    assert reference_for("debate", "summeval", PER_GROUP, asked="none") is None
    sophisticated = reference_for("debate", "summeval", PER_GROUP, asked="DEBATE-Sophisticated")
    assert sophisticated.table == "Table 3" and sophisticated.value("consistency", "spearman") == 0.655
    old_name = reference_for("debate", "summeval", PER_GROUP, asked="G-Eval-4")  # DEBATE Table 1's row, as before
    assert old_name.paper.startswith("DEBATE") and old_name.value("coherence", "spearman") == 0.522


def test_every_name_is_accepted() -> None:
    assert set(KNOWN_METHODS) <= set(REFERENCE_NAMES)
    for name in REFERENCE_NAMES:
        reference_for("debate", "summeval", PER_GROUP, asked=name)  # no KeyError
