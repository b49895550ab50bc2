"""The numbers a report shows: meta-evaluation with bootstrap intervals, published numbers to set beside it,
score distributions, how the DEBATE Scorer moved between rounds, pairwise confusion, tokens and cost.

The correlations, pairwise metrics and their 95 % intervals are STATS's (``tasks.analysis.correlations``,
``pairwise_metrics``, ``bootstrap``): the same numbers as ``debate-eval meta-eval --bootstrap``, with the
same minimum-units rule (an interval over too few groups is the text "too few groups (n=2)"). The published
row beside a run is the one ``meta-eval`` shows (``tasks.analysis.references.reference_for``: per method,
dataset and definition; none for imported runs); the papers' own tables come from
``tasks.analysis.paper_tables``, each with its paper, table and level.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from debate_eval.tasks.analysis import paper_tables
from debate_eval.tasks.analysis.bootstrap import DEFAULT_CI_METHOD, DEFAULT_RESAMPLES
from debate_eval.tasks.analysis.correlations import ITEM, POOLED_DATASETS, evaluate_aspect
from debate_eval.tasks.analysis.distribution import score_bin
from debate_eval.tasks.analysis.pairwise_metrics import evaluate_pairwise
from debate_eval.tasks.analysis.references import is_imported, no_reference_reason, reference_for
from debate_eval.tasks.analysis.report.gather import Item, Run, is_pairwise, number
from debate_eval.tasks.analysis.systems import compare_systems, system_level, systems_of, win_rates
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.views import scorer_scores as scorer_answers

BOOTSTRAP_RESAMPLES = DEFAULT_RESAMPLES  # as meta-eval's --bootstrap default
MAX_SYSTEMS = 60  # more systems than this in one dataset/aspect: the page does not list every pair (meta-eval does)
VERDICTS = ("first", "second", "tie")
GREEK = {"spearman": "ρ", "kendall": "τ", "pearson": "r"}
DEFINITION_NAMES = {
    paper_tables.PER_GROUP: "per group, averaged",
    paper_tables.POOLED: "pooled",
    paper_tables.ITEM_LEVEL: "item level",
}


def _parts(items: Iterable[Item]) -> dict[tuple[str, str], list[Item]]:
    parts: dict[tuple[str, str], list[Item]] = {}
    for item in items:
        parts.setdefault((str(item.dataset), str(item.aspect)), []).append(item)
    return dict(sorted(parts.items()))


def _items(records: Iterable[Record | Item]) -> Iterator[Item]:
    """The items of records (an item as it is)."""
    for record in records:
        yield record if isinstance(record, Item) else Item.of(record)


def meta_eval_rows(
    run: Run, resamples: int = BOOTSTRAP_RESAMPLES, ci_method: str = DEFAULT_CI_METHOD
) -> list[dict[str, Any]]:
    """One row per dataset/aspect and definition of the run's single-score records (Topical-Chat: per-context
    and pooled): the definition's two statistics with 95 % intervals (or the minimum-units text), counts, and
    the published row ``meta-eval`` shows beside them (``paper_label``; ``paper`` None where it has none).
    ``ci_method`` is ``meta-eval --ci-method``'s (``percentile`` or ``bca``)."""
    rows = []
    for (dataset, aspect), items in _parts(r for r in run.items if not is_pairwise(r)).items():
        method, records = items[0].method, [item.score_row() for item in items]
        report = evaluate_aspect(dataset, aspect, method, records, bootstrap=resamples, ci_method=ci_method)
        imported = is_imported(records)
        pooled = [paper_tables.POOLED] if dataset in POOLED_DATASETS else []
        definitions = [paper_tables.ITEM_LEVEL] if report.level == ITEM else [paper_tables.PER_GROUP, *pooled]
        for definition in definitions:
            reference = reference_for(method, dataset, definition, imported=imported)
            pooled = definition == paper_tables.POOLED
            intervals = report.pooled_ci95 if pooled else report.ci95
            cells = []
            default = paper_tables.PAPER_STATISTICS.get(dataset, ("spearman", "kendall"))
            for statistic in paper_tables.DEFINITION_STATISTICS.get((dataset, definition), default):
                cells.append(
                    {
                        "statistic": statistic,
                        "symbol": GREEK.get(statistic, statistic),
                        "value": getattr(report, f"pooled_{statistic}" if pooled else statistic),
                        "ci": intervals if isinstance(intervals, str) else (intervals or {}).get(statistic),
                        "paper": reference.value(aspect, statistic) if reference else None,
                    }
                )
            rows.append(
                {
                    "dataset": dataset,
                    "aspect": aspect,
                    "level": report.level,
                    "definition": definition,
                    "definition_name": DEFINITION_NAMES[definition],
                    "paper_label": reference.label() if reference else None,
                    "paper_note": reference.note if reference else no_reference_reason(method, dataset, imported),
                    "cells": cells,
                    "n_items": report.n_items,
                    "n_missing": report.n_missing,
                    "n_unrated": report.n_unrated,
                    "n_groups": report.n_groups,
                    "n_skipped": report.n_skipped,
                }
            )
    return rows


def pairwise_rows(
    run: Run, resamples: int = BOOTSTRAP_RESAMPLES, ci_method: str = DEFAULT_CI_METHOD
) -> list[dict[str, Any]]:
    """STATS's pairwise report (accuracy, κ, consistency, agreement, intervals) per dataset/aspect, as dicts,
    with the published row ``meta-eval`` shows (``paper_label``, ``paper``: metric → value, or None);
    ``ci_method`` as in :func:`meta_eval_rows`."""
    rows = []
    for (dataset, aspect), items in _parts(r for r in run.items if is_pairwise(r)).items():
        method, records = items[0].method, [item.score_row() for item in items]
        report = evaluate_pairwise(dataset, aspect, method, records, bootstrap=resamples, ci_method=ci_method)
        row = report.to_dict()
        imported = is_imported(records)
        reference = reference_for(method, dataset, paper_tables.PAIRWISE, imported=imported)
        row["paper_label"] = reference.label() if reference else None
        row["paper_note"] = reference.note if reference else no_reference_reason(method, dataset, imported)
        row["paper"] = dict(reference.values.get(aspect, {})) if reference else None
        rows.append(row)
    return rows


def systems_rows(
    run: Run, resamples: int = BOOTSTRAP_RESAMPLES, ci_method: str = DEFAULT_CI_METHOD
) -> list[dict[str, Any]]:
    """Per dataset/aspect whose records name several systems (``tasks.analysis.systems``, the computation
    ``meta-eval --bootstrap`` shows): ``system_level`` (the systems' mean scores correlated with their mean
    human scores), ``systems`` (single-score: per system mean, interval and PPI estimate, and the pairs' paired
    differences with p, Holm p and wins/ties/losses; pairwise: each system's win rate), or ``too_many`` (the
    number of systems, above ``MAX_SYSTEMS``: not compared pair by pair on the page)."""
    rows = []
    for (dataset, aspect), items in _parts(run.items).items():
        records = [item.score_row() for item in items]
        pairwise = any(is_pairwise(item) for item in items)
        row: dict[str, Any] = {"dataset": dataset, "aspect": aspect, "pairwise": pairwise}
        options = {"bootstrap": resamples, "ci_method": ci_method}
        named = {name for item in items for name in (item.system_a, item.system_b) if name} if pairwise else None
        count = len(named) if named is not None else len(systems_of(records))
        if count > MAX_SYSTEMS:
            rows.append({**row, "too_many": count, "system_level": None, "systems": None})
            continue
        if pairwise:
            row |= {"system_level": None, "systems": win_rates(records, **options)}
        else:
            compared = compare_systems(records, **options, family=f"{dataset}/{aspect}")
            row |= {"system_level": system_level(records, **options), "systems": compared}
        if row["systems"] or row["system_level"]:
            rows.append(row)
    return rows


def published(run: Run) -> list[tuple[str, list[str], list[tuple[str, list[float | None]]]]]:
    """The published tables on the run's datasets, restricted to its aspects (and averages): for each,
    (title, statistics, [(evaluator, values)])."""
    out = []
    aspects = {str(item.aspect) for item in run.items} | {"average"}
    for dataset in sorted({str(item.dataset) for item in run.items}):
        for table in paper_tables.published_for(dataset):
            rows = [
                (f"{evaluator} ({aspect})", [values.get(s) for s in table.statistics])
                for evaluator, by_aspect in table.rows.items()
                for aspect, values in by_aspect.items()
                if aspect in aspects
            ]
            if rows:
                out.append((table.title(), list(table.statistics), rows))
    return out


def has_human_ratings(records: Iterable[Record | Item]) -> bool:
    """Whether any of ``records`` carries a human score or label (a run of unlabelled outputs has none)."""
    return any(r.human_label in VERDICTS or number(r.human_score) is not None for r in records)


def _verdict(record: Record | Item) -> str:
    return str(record.verdict) if record.verdict in VERDICTS else "none"


def verdict_counts(records: Iterable[Record | Item]) -> Counter[str]:
    """Counts of verdicts (``first``/``second``/``tie``/``none``)."""
    return Counter(_verdict(r) for r in records)


def confusion(records: Iterable[Record | Item]) -> dict[str, dict[str, int]]:
    """Counts of verdicts (``first``/``second``/``tie``/``none``) per human label."""
    counts: dict[str, Counter[str]] = {label: Counter() for label in VERDICTS}
    for record in records:
        if record.human_label in VERDICTS:
            counts[str(record.human_label)][_verdict(record)] += 1
    return {label: dict(c) for label, c in counts.items()}


def score_distribution(records: Iterable[Record | Item], key: str) -> Counter[int]:
    """Counts of ``key`` (``score`` or ``human_score``) per integer bin (rounded half up, as the paper's
    Appendix B)."""
    return Counter(score_bin(v) for r in records if (v := number(getattr(r, key))) is not None)


def scorer_scores(record: Record) -> list[float | None]:
    """The Scorer's score of each round as a list (``engine.views.scorer_scores``)."""
    return list(scorer_answers(record))


def scorer_moves(records: Iterable[Record | Item]) -> list[dict[str, int]]:
    """Per debate round (after the Critic's i-th feedback): how many Scorers kept their score, moved towards
    the human score, moved away from it, moved with no human score to compare, or gave no score."""
    rounds: list[Counter[str]] = []
    for item in _items(records):
        values = item.scorer if item.scorer is not None else ()
        human = item.human_score
        for index in range(1, len(values)):
            while len(rounds) < index:
                rounds.append(Counter())
            before, after = values[index - 1], values[index]
            if before is None or after is None:
                kind = "no score"
            elif after == before:
                kind = "unchanged"
            elif human is None:
                kind = "changed"
            elif abs(after - human) < abs(before - human):
                kind = "towards"
            elif abs(after - human) > abs(before - human):
                kind = "away"
            else:
                kind = "same distance"
            rounds[index - 1][kind] += 1
    return [dict(counter) for counter in rounds]


def order_agreement(records: Iterable[Record | Item]) -> dict[str, dict[str, int]] | None:
    """With --swap: counts of the verdict in the original order (rows) against the verdict in the swapped
    order mapped back to A/B (columns); the diagonal is the position-consistent items. None without --swap."""
    counts: dict[str, Counter[str]] = {label: Counter() for label in (*VERDICTS, "none")}
    seen = False
    for item in _items(records):
        if item.orders is not None:
            seen = True
            original, swapped = (v if v in VERDICTS else "none" for v in item.orders)
            counts[str(original)][str(swapped)] += 1
    return {label: dict(c) for label, c in counts.items()} if seen else None


def totals(run: Run) -> dict[str, Any]:
    """Items, failures, parse counts, calls, tokens per role and estimated cost (summary.json first, else
    summed from the records)."""
    summary = run.summary
    usage: dict[str, dict[str, int]]
    if isinstance(summary.get("usage"), dict):
        usage = {str(k): v for k, v in summary["usage"].items() if isinstance(v, dict)}
    else:
        usage = {role: dict(entry) for role, entry in run.usage.items()}
    items = run.items
    return {
        "items": len(items),
        "failed": sum(1 for r in items if r.error),
        "parsed": sum(1 for r in items if r.score is not None or r.verdict in VERDICTS),
        "llm_calls": summary.get("llm_calls", sum(r.llm_calls for r in items)),
        "cached_calls": summary.get("cached_calls", sum(r.cached_calls for r in items)),
        "usage": usage,
        "prompt_tokens": sum(int(number(u.get("prompt_tokens")) or 0) for u in usage.values()),
        "completion_tokens": sum(int(number(u.get("completion_tokens")) or 0) for u in usage.values()),
        "cost": number(summary.get("estimated_cost_usd")),
    }
