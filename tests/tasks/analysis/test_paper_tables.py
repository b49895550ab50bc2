"""The published tables are transcribed from the papers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from debate_eval.tasks.analysis.paper_tables import (
    PAPER_TABLE1,
    PAPER_TABLE2_DISTRIBUTION,
    PAPER_TABLE3,
    PUBLISHED,
    PublishedTable,
)

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


CHATEVAL = Path("/work/shared/papers/chateval.txt")
FENNEC = Path("/work/shared/papers/fennec.txt")


def _published(dataset: str, paper: str) -> PublishedTable:
    return next(t for t in PUBLISHED if t.dataset == dataset and t.paper.startswith(paper))


def test_chateval_tables_are_copied_from_the_paper_text() -> None:
    if not CHATEVAL.is_file():
        pytest.skip("paper text not available")
    text = CHATEVAL.read_text(encoding="utf-8")
    faireval = _published("faireval", "ChatEval")
    assert faireval.rows["ChatEval GPT-4 Multi-Agent"]["preference"] == {"accuracy": 63.8, "kappa": 0.40}
    for name, row in faireval.rows.items():
        words = name.replace("Human ", "").replace("ChatEval ", "").replace("FairEval ", "")
        acc, kappa = row["preference"]["accuracy"], row["preference"]["kappa"]
        pattern = re.escape(words).replace(r"\ ", r"\s+") + rf"(?:\s+-)?\s+{acc:g}(?:\.0)?\s+{kappa:g}0?\b"
        assert re.search(pattern, text), name
    topical = _published("topical_chat", "ChatEval")
    for name, row in topical.rows.items():
        line = next(line for line in text.splitlines() if line.startswith(name.replace("G-EVAL", "G-EV AL") + " "))
        numbers = [float(n) for n in re.findall(r"\d\.\d{3}", line)]
        values = [row[a][s] for a in row for s in ("spearman", "kendall")]
        assert values == numbers, name


def test_fennec_table_2_is_copied_from_the_paper_text() -> None:
    if not FENNEC.is_file():
        pytest.skip("paper text not available")
    lines = FENNEC.read_text(encoding="utf-8").splitlines()
    pandalm, autoj = _published("pandalm", "Fennec"), _published("autoj_pairwise", "Fennec")
    assert pandalm.rows["GPT-4"]["preference"] == {"agreement": 60.06, "consistency": 74.67}
    assert autoj.rows["GPT-4"]["preference"] == {"agreement": 62.28, "consistency": 86.28}
    for name in ("GPT-4", "JudgeLM-7B", "Auto-J-13B", "Fennec-7B"):
        model, *size = name.rsplit("-", 1) if name != "GPT-4" else (name,)
        line = next(x for x in lines if x.startswith(f"{model} | {size[0] if size else '-'} |"))
        numbers = [float(n) for n in re.findall(r"\d+\.\d\d", line)]
        values = [autoj.rows[name]["preference"][s] for s in ("agreement", "consistency")]
        values += [pandalm.rows[name]["preference"][s] for s in ("agreement", "consistency")]
        assert numbers[:4] == values, name


def test_every_published_table_names_paper_table_and_level() -> None:
    for table in PUBLISHED:
        title = table.title()
        assert table.paper in title
        assert table.table in title
        assert table.level in title
    geval = _published("summeval", "G-Eval")
    assert geval.rows["G-Eval-4"]["coherence"] == {"spearman": 0.582, "kendall": 0.457}
    assert geval.rows["G-Eval-4"]["relevance"] == {"spearman": 0.547, "kendall": 0.433}


def _debate_lines() -> list[str]:
    if not PAPER.is_file():
        pytest.skip("paper text not available")
    return PAPER.read_text(encoding="utf-8").splitlines()


def test_debate_table_3_is_copied_from_the_paper_text() -> None:
    lines = _debate_lines()
    for name, row in PAPER_TABLE3.items():
        line = next(x for x in lines if re.match(rf"(DEBATE )?{name} \d", x))
        numbers = [float(n) for n in re.findall(r"\d\.\d{3}", line)]
        aspects = ("average", "coherence", "consistency", "fluency", "relevance")
        assert numbers == [row[a][s] for a in aspects for s in ("spearman", "kendall")], name
    # the Original prompt is DEBATE's Table 1 row
    assert PAPER_TABLE3["Original"] == PAPER_TABLE1["DEBATE"]["summeval"]


def test_debate_table_2_is_copied_from_the_paper_text() -> None:
    lines = _debate_lines()
    start = next(i for i, x in enumerate(lines) if x.startswith("SummEval Coherence Consistency Fluency Relevance"))
    rows = [[float(n) for n in re.findall(r"\d+\.\d\d", x)] for x in lines[start : start + 12]]
    rows = [r for r in rows if len(r) in (6, 8)]
    summeval, topical = rows[:5], rows[5:8]
    for score, row in enumerate(summeval, start=1):
        values = [PAPER_TABLE2_DISTRIBUTION["summeval"][a][w][score] for a in ("coherence", "consistency", "fluency",
                  "relevance") for w in ("human", "DEBATE")]  # fmt: skip
        assert values == row, score
    for score, row in enumerate(topical, start=1):
        values = [PAPER_TABLE2_DISTRIBUTION["topical_chat"][a][w][score] for a in ("naturalness", "coherence",
                  "engagingness") for w in ("human", "DEBATE")]  # fmt: skip
        assert values == row, score
    for aspects in PAPER_TABLE2_DISTRIBUTION.values():
        for columns in aspects.values():
            for column in columns.values():
                assert sum(column.values()) == pytest.approx(100.0, abs=0.02)


def test_chateval_tau_column_holds_pearson_for_rows_quoted_from_geval() -> None:
    """ChatEval Table 2's ROUGE-L and BERTScore rows are DEBATE Table 1's (r, rho) pairs (which cite G-Eval)
    as (rho, "tau"): the 'tau' column is Pearson r there, as the note on the table says."""
    lines = _debate_lines()
    start = next(i for i, x in enumerate(lines) if x.startswith("Topical-Chat Average"))
    topical = _published("topical_chat", "ChatEval")
    for name, label in (("ROUGE-L", "ROUGE-L✝"), ("BERTScore", "BERTScore✝")):
        line = next(x for x in lines[start:] if label in x)
        r_rho = [float(n) for n in re.findall(r"\d\.\d{3}", line)]  # average r, rho, then per aspect
        aspects = ("naturalness", "coherence", "engagingness", "groundedness")
        for index, aspect in enumerate(aspects, start=1):
            r, rho = r_rho[2 * index], r_rho[2 * index + 1]
            assert topical.rows[name][aspect] == {"spearman": rho, "kendall": r}, (name, aspect)
    assert "'tau' column holds Pearson r" in topical.title()
