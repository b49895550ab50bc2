"""The published tables are transcribed from the papers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from debate_eval.tasks.analysis.paper_tables import PAPER_TABLE1

PAPER = Path("/work/shared/papers/debate-devils-advocate.txt")


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
