"""Score distributions: the share of human and predicted scores per integer bin (the paper's Appendix B, Table 2)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from debate_eval.tasks.analysis.paper_tables import PAPER_TABLE2_DISTRIBUTION
from debate_eval.tasks.analysis.records import RecordLike, ScoreRow, keyed_parts, number


def score_bin(value: float) -> int:
    """The integer bin of a score: round half up (2.5 → 3, 1.667 → 2), as in the paper's Table 2."""
    return math.floor(value + 0.5 + 1e-9)


def _percentages(bins: list[int], values: list[float]) -> dict[int, float]:
    counts = {b: 0 for b in bins}
    for value in values:
        counts[score_bin(value)] += 1
    return {b: (100.0 * counts[b] / len(values) if values else 0.0) for b in bins}


def _distribution_entry(rows: list[ScoreRow]) -> dict[str, Any]:
    human = [v for row in rows if (v := number(row.human_score)) is not None]
    predicted = [v for row in rows if (v := number(row.score)) is not None]
    observed = [score_bin(v) for v in human + predicted]
    bins = list(range(min(observed), max(observed) + 1)) if observed else []
    return {
        "bins": bins,
        "human": _percentages(bins, human),
        "predicted": _percentages(bins, predicted),
        "n_human": len(human),
        "n_predicted": len(predicted),
    }


def score_distribution(records: Iterable[RecordLike]) -> dict[str, dict[str, dict[str, Any]]]:
    """Percentage of human and predicted scores per integer bin, per dataset → aspect key (Table 2).

    Each entry: ``{"bins": [..], "human": {bin: %}, "predicted": {bin: %}, "n_human": n, "n_predicted": n}``.
    Human percentages are over all records with a human score, predicted ones over records with a score.
    Bins run from the lowest to the highest rounded score seen. Aspect keys are as in ``meta_evaluate``.
    """
    return {
        dataset: {key: _distribution_entry(part) for key, (_, part) in aspects.items()}
        for dataset, aspects in keyed_parts(records).items()
    }


def format_distribution(distribution: dict[str, dict[str, dict[str, Any]]]) -> str:
    """The score distribution as text: one block per dataset/aspect, percentages per score bin; where the
    DEBATE paper's Table 2 has the dataset/aspect, its human and DEBATE (GPT-4) percentages beside them."""
    lines = ["Score distribution (% of scores per integer bin, rounded half up; cf. Table 2 of the DEBATE paper)"]
    note = "  paper columns: DEBATE (Kim et al. 2024) Table 2, human and DEBATE (GPT-4); NOT this run"
    for dataset, aspects in distribution.items():
        for key, entry in aspects.items():
            paper = PAPER_TABLE2_DISTRIBUTION.get(dataset, {}).get(key.split("[", 1)[0])
            lines.append(f"{dataset}/{key}  (human n={entry['n_human']}, predicted n={entry['n_predicted']})")
            if paper:
                lines.append(note)
            head = f"  {'score':>5} {'human %':>8} {'predicted %':>12}"
            lines.append(head + (f" {'paper human %':>14} {'paper DEBATE %':>15}" if paper else ""))
            bins = sorted(set(entry["bins"]) | (set(paper["human"]) if paper else set()))
            for b in bins:
                line = f"  {b:>5} {entry['human'].get(b, 0.0):>8.2f} {entry['predicted'].get(b, 0.0):>12.2f}"
                if paper:
                    line += f" {_paper_cell(paper['human'].get(b)):>14} {_paper_cell(paper['DEBATE'].get(b)):>15}"
                lines.append(line)
    return "\n".join(lines)


def _paper_cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
