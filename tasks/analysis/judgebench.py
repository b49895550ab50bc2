"""JudgeBench's own figures for a pairwise run on JudgeBench pairs (Tan et al. 2024, ``utils/metrics.py``).

Per pair, each order's verdict (``first`` = ``A>B``, ``second`` = ``B>A``; a ``--swap`` run's swapped order put
back in the pair's order) counts +1 when it equals the label and −1 when it equals the flipped label; a tie or
no verdict counts 0. The pair is **right** when the sum is > 0. A run judged in one order only has one verdict
per pair (JudgeBench's single-order figure is the same rule). Reported, over all pairs and per source (each
``mmlu-pro-<subject>``, ``livebench-reasoning``, ``livebench-math``, ``livecodebench``) and per category
(``mmlu-pro`` all subjects together, and the three others):

- ``score``: the percentage of pairs right (JudgeBench's figure), ``n_right`` of ``n_pairs``;
- ``ci95``: the 95 % Wilson score interval of the share right (scipy's ``binomtest(...).proportion_ci``), in
  percent;
- ``consistency``: the share of the pairs with a verdict in both orders whose two verdicts agree (position
  consistency), ``n_consistent`` of ``n_both_orders``; None for a run judged in one order.

A run is on JudgeBench pairs when its dataset is ``judgebench`` (the registered set, or an import of any
JudgeBench pairs file by ``debate-eval import judgebench``) or ``judgebench:PATH`` (a run on another
JudgeBench pairs file).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from scipy.stats import binomtest

from debate_eval.tasks.analysis.records import RecordLike, ScoreRow, score_row

DATASET = "judgebench"
#: The label a verdict stands for, and the flipped label (JudgeBench has no tie label).
FLIPPED = {"first": "second", "second": "first"}
CATEGORIES = ("mmlu-pro", "livebench-reasoning", "livebench-math", "livecodebench")


def points(row: ScoreRow) -> int | None:
    """JudgeBench's per-pair sum, None for a pair without a first/second label."""
    label = row.human_label
    if label not in FLIPPED:
        return None
    orders = row.verdicts if row.verdicts is not None else (row.verdict,)  # both orders of a --swap record
    return sum(1 if v == label else -1 if v == FLIPPED[label] else 0 for v in orders)


def category(source: str | None) -> str:
    """``mmlu-pro`` for every MMLU-Pro subject, else the source itself."""
    text = str(source or "")
    return "mmlu-pro" if text.startswith("mmlu-pro") else text


def wilson_interval(right: int, total: int) -> list[float] | None:
    """The 95 % Wilson score interval of ``right / total`` in percent (None for no pairs)."""
    if total == 0:
        return None
    interval = binomtest(right, total).proportion_ci(confidence_level=0.95, method="wilson")
    return [100.0 * interval.low, 100.0 * interval.high]


def summary(rows: Sequence[ScoreRow]) -> dict[str, Any]:
    """The figures of the module docstring over ``rows`` (labelled pairs only)."""
    sums = [p for p in (points(row) for row in rows) if p is not None]
    right = sum(1 for p in sums if p > 0)
    both = [row for row in rows if row.verdicts is not None and None not in row.verdicts]
    agree = sum(1 for row in both if row.verdicts[0] == row.verdicts[1])  # type: ignore[index]
    return {
        "score": 100.0 * right / len(sums) if sums else None,
        "n_right": right,
        "n_pairs": len(sums),
        "ci95": wilson_interval(right, len(sums)),
        "consistency": agree / len(both) if both else None,
        "n_consistent": agree,
        "n_both_orders": len(both),
    }


def judgebench_figures(records: Iterable[RecordLike]) -> dict[str, Any] | None:
    """JudgeBench's figures (overall, ``categories`` and ``sources``), None unless the records are on JudgeBench
    pairs."""
    rows = [score_row(record) for record in records]
    if not any(row.pairwise and (row.dataset == DATASET or row.dataset.startswith(DATASET + ":")) for row in rows):
        return None  # not judgments of JudgeBench pairs
    rows = [row for row in rows if row.pairwise]
    by_source: dict[str, list[ScoreRow]] = {}
    for row in rows:
        by_source.setdefault(str(row.system_id or ""), []).append(row)
    by_category: dict[str, list[ScoreRow]] = {}
    for source, part in by_source.items():
        by_category.setdefault(category(source), []).extend(part)
    ordered = [c for c in CATEGORIES if c in by_category] + sorted(set(by_category) - set(CATEGORIES))
    return {
        **summary(rows),
        "interval": "wilson",
        "categories": {name: summary(by_category[name]) for name in ordered},
        "sources": {name: summary(by_source[name]) for name in sorted(by_source)},
    }


def judgebench_lines(label: str, figures: dict[str, Any] | None) -> list[str]:
    """The text lines of :func:`judgebench_figures` for ``meta-eval``'s table."""
    if not figures or figures.get("score") is None:
        return []

    def line(name: str, entry: dict[str, Any]) -> str:
        if entry.get("score") is None:  # a part with no labelled pair (labels of a few items: meta-eval --labels)
            return f"  {name:<34} no labelled pair"
        ci = entry.get("ci95")
        interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
        consistency = entry.get("consistency")
        both = (
            f"; position consistency {consistency:.3f} ({entry['n_consistent']}/{entry['n_both_orders']})"
            if consistency is not None
            else ""
        )
        return f"  {name:<34} {entry['score']:6.2f} %{interval} ({entry['n_right']}/{entry['n_pairs']} right){both}"

    lines = [
        f"{label}: JudgeBench's score (per pair +1 per order's verdict equal to the label, -1 per verdict equal "
        "to the flipped label; right when > 0), 95% Wilson interval:",
        line("all pairs", figures),
    ]
    lines += [line(name, entry) for name, entry in figures["categories"].items()]
    mmlu = {name: entry for name, entry in figures["sources"].items() if category(name) == "mmlu-pro"}
    if len(mmlu) > 1:
        lines += [line(f"  {name}", entry) for name, entry in mmlu.items()]
    return lines
