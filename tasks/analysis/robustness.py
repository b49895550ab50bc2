"""The robustness table of ``debate-eval robustness`` (DialEvalML's multilingual and robust tasks).

Rows, one per variant and aspect:

- **languages**: per language, the correlation of the scores with the humans (item level) and the mean
  absolute difference of each item's score from its English score (``mean_abs_diff``), both over one common
  item set: the items that EVERY language scored and humans rated (``items``; ``compared`` counts the
  differences), so a language that failed on the hard items is not correlated on easier ones. ``scored``
  is how many items the language scored in all. English is the reference row (difference 0).
- **paraphrases**: ``original`` (the items as given), ``paraphrased`` (every rewrite of every item: the
  correlation on the paraphrased set; ``mean_abs_diff`` = mean |rewrite score - original score|), and one row
  per rewrite index ``paraphrase K``. ``mean_spread`` (on the ``paraphrased`` row) is the mean over items of
  max - min of the item's scores (original and rewrites); ``per_item`` in the JSON lists them.

Scores are compared on the method's own scale (the same for every variant). Correlations are Spearman,
Kendall tau-b and Pearson over items (``correlations.correlations``); None when undefined (constant scores).
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval.tasks.analysis.correlations import STATISTICS, correlations, mean, pairs
from debate_eval.tasks.analysis.records import RecordLike, ScoreRow, number, score_rows

COLUMNS = (
    "mode", "variant", "aspect", "items", "scored", *STATISTICS, "mean_abs_diff", "compared", "mean_spread",
)  # fmt: skip
REFERENCE_LANGUAGE = "english"
ORIGINAL, PARAPHRASED = "original", "paraphrased"


def _scores(rows: Sequence[ScoreRow], aspect: str, rated: bool = False) -> dict[str, float]:
    """Item key -> score of the aspect's scored rows (``rated``: only the rows without an error that humans rated)."""
    return {
        row.key: value
        for row in rows
        if str(row.aspect) == aspect and (value := number(row.score)) is not None
        and (not rated or (not row.error and number(row.human_score) is not None))
    }  # fmt: skip


def _row(mode: str, variant: str, aspect: str, rows: Sequence[ScoreRow]) -> dict[str, Any]:
    part = [row for row in rows if str(row.aspect) == aspect and not row.error]
    stats = correlations(pairs(part)) or {}
    scored = sum(1 for row in part if number(row.score) is not None)
    return {
        "mode": mode,
        "variant": variant,
        "aspect": aspect,
        "items": scored,
        "scored": scored,
        **{name: stats.get(name) for name in STATISTICS},
        "mean_abs_diff": None,
        "compared": 0,
        "mean_spread": None,
    }


def aspects_of(*groups: Sequence[RecordLike]) -> list[str]:
    """The aspects in the records, in first-seen order."""
    return list(dict.fromkeys(str(row.aspect) for group in groups for row in score_rows(group)))


def language_rows(by_language: Mapping[str, Sequence[RecordLike]], reference: str = REFERENCE_LANGUAGE) -> list[dict]:
    """One row per language and aspect, every language correlated on the items all of them scored (and humans
    rated); the difference is taken from ``reference``'s scores of the same items."""
    by_language = {language: score_rows(records) for language, records in by_language.items()}
    rows = []
    for aspect in aspects_of(*by_language.values()):
        rated = {language: _scores(records, aspect, rated=True) for language, records in by_language.items()}
        common = [i for i in next(iter(rated.values()), {}) if all(i in scores for scores in rated.values())]
        reference_scores = rated.get(reference, {})
        for language, records in by_language.items():
            row = _row("language", language, aspect, records)
            common_rows = [row for row in records if str(row.aspect) == aspect and row.key in common]
            stats = correlations(pairs(row for row in common_rows if not row.error)) or {}
            diffs = [abs(rated[language][i] - reference_scores[i]) for i in common if i in reference_scores]
            row.update(
                {name: stats.get(name) for name in STATISTICS},
                items=len(common),
                mean_abs_diff=mean(diffs),
                compared=len(diffs),
            )
            rows.append(row)
    return rows


def original_id(item_id: str, separator: str = "~p") -> tuple[str, int]:
    """``turn-001~p2`` -> (``turn-001``, 2)."""
    base, _, k = item_id.rpartition(separator)
    return base, int(k)


def paraphrase_rows(
    original: Sequence[RecordLike], paraphrased: Sequence[RecordLike]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The rows of the paraphrase check and the per-item scores (aspect -> item -> original/rewrites/spread)."""
    original, paraphrased = score_rows(original), score_rows(paraphrased)
    rows: list[dict[str, Any]] = []
    per_item: dict[str, Any] = {}
    for aspect in aspects_of(original, paraphrased):
        first = _scores(original, aspect)
        rewrites: dict[str, dict[int, float]] = {}
        for item_id, score in _scores(paraphrased, aspect).items():
            base, k = original_id(item_id)
            rewrites.setdefault(base, {})[k] = score
        rows.append({**_row("paraphrase", ORIGINAL, aspect, original), "mean_abs_diff": 0.0, "compared": len(first)})
        diffs = [abs(s - first[i]) for i, scores in rewrites.items() if i in first for s in scores.values()]
        spreads = {
            i: max([first[i], *scores.values()]) - min([first[i], *scores.values()])
            for i, scores in rewrites.items()
            if i in first
        }
        row = _row("paraphrase", PARAPHRASED, aspect, paraphrased)
        row.update(mean_abs_diff=mean(diffs), compared=len(diffs), mean_spread=mean(list(spreads.values())))
        rows.append(row)
        for k in sorted({k for scores in rewrites.values() for k in scores}):
            subset = [row for row in paraphrased if original_id(row.key)[1] == k]
            k_diffs = [abs(scores[k] - first[i]) for i, scores in rewrites.items() if k in scores and i in first]
            rows.append(
                {
                    **_row("paraphrase", f"paraphrase {k}", aspect, subset),
                    "mean_abs_diff": mean(k_diffs),
                    "compared": len(k_diffs),
                }
            )
        per_item[aspect] = {
            i: {
                "original": first.get(i),
                "paraphrases": [s for _, s in sorted(scores.items())],
                "spread": spreads.get(i),
            }
            for i, scores in rewrites.items()
        }
    return rows, per_item


def _text(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def format_rows(rows: Sequence[Mapping[str, Any]]) -> str:
    """The table printed on screen."""
    shown = {"spearman": "rho", "kendall": "tau", "pearson": "r", "mean_abs_diff": "|diff|", "mean_spread": "spread"}
    keys = COLUMNS[1:]  # the CSV's columns but the mode
    header = [shown.get(key, key) for key in keys]
    widths = [max(len(h), *(len(_text(row[k])) for row in rows)) for h, k in zip(header, keys, strict=True)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(_text(row[k]).ljust(w) for k, w in zip(keys, widths, strict=True)))
    return "\n".join(lines)


def write_csv(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """``robustness.csv``: one line per row, the columns of ``COLUMNS`` (empty for None)."""
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({key: "" if row.get(key) is None else row.get(key) for key in COLUMNS})


def plot(rows: Sequence[Mapping[str, Any]], path: Path, title: str) -> None:
    """``robustness.png``: the correlation (Spearman) and the score drift (mean |diff|) per variant/aspect."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    several = len({row["aspect"] for row in rows}) > 1
    labels = [f"{row['variant']}/{row['aspect']}" if several else str(row["variant"]) for row in rows]
    figure, (left, right) = plt.subplots(1, 2, figsize=(max(8.0, 0.9 * len(rows) + 4), 4.2))
    positions = range(len(rows))
    left.bar(positions, [row["spearman"] or 0.0 for row in rows], color="#4472c4")
    left.set_title("Spearman correlation with the humans")
    left.axhline(0, color="black", linewidth=0.6)
    right.bar(positions, [row["mean_abs_diff"] or 0.0 for row in rows], color="#ed7d31")
    right.set_title("score drift (mean |score - reference|)")
    for axis in (left, right):
        axis.set_xticks(list(positions))
        axis.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    for index, row in enumerate(rows):
        if row["spearman"] is None:
            left.annotate("n/a", (index, 0), ha="center", va="bottom", fontsize=7)
    figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
