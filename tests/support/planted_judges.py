"""Planted judges of known accuracy on labelled pairwise items, as finished run directories (a cascade's and a
judge selection's tests): each judge is right on an item with a probability the test sets, and records a
confidence beside its verdict."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

FLIP = {"first": "second", "second": "first"}


def planted(n: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Two planted judges: judge 1 right with probability equal to its confidence (uniform on [0.5, 1]: 75%
    overall), judge 2 right with probability 0.4 + 0.6 * its confidence (85% overall)."""
    rng = np.random.default_rng(seed)
    c1, c2 = rng.uniform(0.5, 1.0, n), rng.uniform(0.5, 1.0, n)
    return [c1, c2], [rng.uniform(size=n) < c1, rng.uniform(size=n) < 0.4 + 0.6 * c2]


def labels(n: int, seed: int) -> list[str]:
    """``n`` human verdicts, first or second."""
    return [str(x) for x in np.random.default_rng(seed).choice(["first", "second"], n)]


def write_run(
    path: Path,
    verdicts: Sequence[str],
    human: Sequence[str],
    confidence: Sequence[float | None],
    *,
    tokens: int = 100,
    method: str = "planted",
) -> Path:
    """A run directory whose ``results.jsonl`` holds the given verdicts (``tokens`` per item)."""
    path.mkdir(parents=True)
    with (path / "results.jsonl").open("w", encoding="utf-8") as handle:
        for i, (verdict, label, conf) in enumerate(zip(verdicts, human, confidence, strict=True)):
            line = {
                "item_id": f"q{i}",
                "dataset": "planted",
                "aspect": "preference",
                "method": method,
                "task_type": "pairwise",
                "verdict": verdict,
                "human_label": label,
                "usage": {"judge": {"prompt_tokens": tokens - 10, "completion_tokens": 10}},
            }
            if conf is not None:
                line["confidence"] = conf
            handle.write(json.dumps(line) + "\n")
    return path


def answers_right(human: Sequence[str], right: Sequence[bool]) -> list[str]:
    """The label where ``right``, the other side elsewhere."""
    return [label if ok else FLIP[label] for label, ok in zip(human, right, strict=True)]


def planted_runs(tmp_path: Path, n: int = 400) -> tuple[Path, Path, list[str]]:
    """The two planted judges of ``planted`` as run directories ``cheap`` and ``strong``, and the labels."""
    confidences, corrects = planted(n, seed=2)
    human = labels(n, seed=4)
    one = write_run(tmp_path / "cheap", answers_right(human, corrects[0]), human, [float(c) for c in confidences[0]])
    two = write_run(tmp_path / "strong", answers_right(human, corrects[1]), human, [float(c) for c in confidences[1]])
    return one, two, human


def population_agreement(thresholds: Sequence[float]) -> float | None:
    """The agreement, over the whole population, of the items the cascade of the two ``planted`` judges decides
    with ``thresholds`` (None when it decides nothing), known by construction: with confidences uniform on
    [0.5, 1], judge 1 decides a share (1 - max(t1, 0.5)) / 0.5 of the items, right at the mean confidence above
    its threshold, (max(t1, 0.5) + 1) / 2; judge 2 decides the same share of the items judge 1 leaves (its
    confidence is independent of judge 1's), right at 0.4 + 0.6 times its mean confidence above t2."""

    def share(t: float) -> float:
        return 0.0 if not math.isfinite(t) else (1.0 - max(t, 0.5)) / 0.5

    def mean_above(t: float) -> float:
        return (max(t, 0.5) + 1.0) / 2 if math.isfinite(t) else 0.0

    first = share(thresholds[0])
    second = (1.0 - first) * share(thresholds[1])
    if first + second == 0:
        return None
    return (first * mean_above(thresholds[0]) + second * (0.4 + 0.6 * mean_above(thresholds[1]))) / (first + second)
