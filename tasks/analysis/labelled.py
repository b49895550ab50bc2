"""Judges on labelled items: what a cascade and the choice of a judge read of finished runs.

A judge is one finished run (``debate-eval run``, or an imported file of released judgments). Of each item it
keeps the answer (a verdict, or a score), its ``confidence`` and its tokens; ``align`` puts several judges
and the human labels side by side on the items they share. A judge's answer agrees with the label when the
verdicts are equal (pairwise), or when the score is within ``tolerance`` of the human score (single scores:
the default 0.5 counts a 4 as agreeing with a human mean of 3.67 or 4.33, not with 3.33).

The labels are the runs' own human labels (``human_label`` / ``human_score`` of the records) or, with a labels
file (``--labels FILE``, the ``labels.jsonl`` the label page downloads), that file's labels only (as
``meta-eval --labels`` reads them); the runs' labels must then agree with each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.labels import combined, read_run_labels
from debate_eval.tasks.analysis.records import is_pairwise, latest_records, load_results, results_path
from debate_eval.tasks.engine.rundir import RunDir

DEFAULT_TOLERANCE = 0.5
Answer = str | float  # a verdict ("first" / "second" / "tie") or a score


@dataclass(frozen=True)
class LabelledJudge:
    """One finished run as a judge: per item key (``item_id``, and the aspect when the run has several), its
    answer, confidence and tokens, the human label the run carries, and its cost per token when priced."""

    name: str
    pairwise: bool
    answers: Mapping[str, Answer | None]
    confidence: Mapping[str, float | None]
    tokens: Mapping[str, int]
    labels: Mapping[str, Answer]
    usd_per_token: float | None

    def cost_per_item(self, keys: Sequence[str]) -> tuple[float, float | None]:
        """The mean tokens per item over ``keys``, and the mean estimated dollars (None without a price)."""
        tokens = float(np.mean([self.tokens.get(key, 0) for key in keys])) if keys else 0.0
        return tokens, None if self.usd_per_token is None else tokens * self.usd_per_token


def load_judge(path: str | Path, name: str | None = None) -> LabelledJudge:
    """The judge of the run directory (or results file) at ``path``; the last line of an item wins."""
    source = results_path(path)
    records = latest_records(source)
    if not records:
        raise UserError(f"{source}: no results to read")
    aspects = {aspect for _, aspect in records}
    pairwise = all(is_pairwise(r) for r in records.values())
    answers: dict[str, Answer | None] = {}
    confidence: dict[str, float | None] = {}
    tokens: dict[str, int] = {}
    labels: dict[str, Answer] = {}
    for (item, aspect), record in records.items():
        key = item if len(aspects) == 1 else f"{item} [{aspect}]"
        answers[key] = None if record.error else (record.verdict if pairwise else record.score)
        confidence[key] = None if record.error else record.confidence
        tokens[key] = record.prompt_tokens() + record.completion_tokens()
        human = record.human_label if pairwise else record.human_score
        if human is not None:
            labels[key] = human
    directory = Path(path) if Path(path).is_dir() else source.parent
    run_dir, total_tokens = RunDir(directory), sum(tokens.values())
    cost = run_dir.summary.get("estimated_cost_usd") if run_dir.summary_path.is_file() else None
    if not isinstance(cost, int | float) or isinstance(cost, bool) or total_tokens <= 0:
        cost = None  # not priced
    return LabelledJudge(
        name=name or directory.name,
        pairwise=pairwise,
        answers=answers,
        confidence=confidence,
        tokens=tokens,
        labels=labels,
        usd_per_token=None if cost is None else float(cost) / total_tokens,
    )


def labels_of_file(path: str | Path, run: str | Path) -> dict[str, Answer]:
    """The labels of a ``labels.jsonl`` file (``analysis.labels``, the one reader: every line checked against
    ``run``'s items and scale) by item key: the mean of an item's ratings, or its annotators' majority verdict."""
    records = load_results([results_path(run)])
    aspects = {str(row.aspect) for row in records}
    found: dict[str, Answer] = {}
    for (item, aspect), value in combined(read_run_labels(path, records, run)).items():
        found[item if aspect is None or len(aspects) == 1 else f"{item} [{aspect}]"] = value
    return found


def agrees(answer: Answer | None, label: Answer, pairwise: bool, tolerance: float) -> bool:
    """Whether a judge's answer agrees with the human label (no answer never agrees)."""
    if answer is None:
        return False
    if pairwise:
        return answer == label
    return abs(float(answer) - float(label)) <= tolerance + 1e-9


@dataclass(frozen=True)
class Aligned:
    """Judges side by side on the labelled items they share: per judge (in order) a confidence (NaN where it
    has none), whether it agrees with the label, and its tokens; ``keys`` names the items."""

    names: tuple[str, ...]
    keys: tuple[str, ...]
    confidence: tuple[np.ndarray, ...]
    correct: tuple[np.ndarray, ...]
    tokens: tuple[np.ndarray, ...]
    pairwise: bool
    unlabelled: tuple[str, ...]  # items every judge has but no label: what a cascade decides or leaves
    not_shared: int = 0  # items some judge has and another has not: left out


def align(
    judges: Sequence[LabelledJudge],
    labels: Mapping[str, Answer] | None = None,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
) -> Aligned:
    """``judges`` on the items all of them judged, with the labels of the runs, or ``labels`` alone when given
    (a label the runs give differently is then an error). Judges must be all pairwise or all single."""
    if len({judge.pairwise for judge in judges}) > 1:
        raise UserError("the runs mix pairwise and single-score judgments; give runs of the same items")
    if len({judge.name for judge in judges}) < len(judges):
        raise UserError("two runs have the same name; give run directories with different names")
    shared = set(judges[0].answers)
    for judge in judges[1:]:
        shared &= set(judge.answers)
    if not shared:
        raise UserError(f"the runs {', '.join(j.name for j in judges)} share no item: give runs of the same items")
    merged: dict[str, Answer] = dict(labels or {})
    if labels is None:
        for judge in judges:
            for key, value in judge.labels.items():
                if key in merged and merged[key] != value:
                    raise UserError(f"item {key}: the runs carry different human labels ({merged[key]!r}, {value!r})")
                merged[key] = value
    keys = tuple(sorted(key for key in shared if key in merged))
    pairwise = judges[0].pairwise
    return Aligned(
        names=tuple(judge.name for judge in judges),
        keys=keys,
        confidence=tuple(
            np.array([confidence_value(judge.confidence.get(key)) for key in keys], dtype=float) for judge in judges
        ),
        correct=tuple(
            np.array([agrees(judge.answers.get(key), merged[key], pairwise, tolerance) for key in keys], dtype=bool)
            for judge in judges
        ),
        tokens=tuple(np.array([judge.tokens.get(key, 0) for key in keys], dtype=float) for judge in judges),
        pairwise=pairwise,
        unlabelled=tuple(sorted(key for key in shared if key not in merged)),
        not_shared=len(set().union(*(judge.answers for judge in judges)) - shared),
    )


def confidence_value(value: Any) -> float:
    """A recorded confidence as a float, NaN where there is none (or it is not a number)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else float("nan")
