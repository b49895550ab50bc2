"""Record factories and independent reference formulas shared by the meta-evaluation tests (no scipy)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.analysis.correlations import AspectReport


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties get the average rank."""
    return [sum(1 for w in values if w < v) + (sum(1 for w in values if w == v) + 1) / 2 for v in values]


def pearson(x: list[float], y: list[float]) -> float:
    mx, my = sum(x) / len(x), sum(y) / len(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy)


def spearman(x: list[float], y: list[float]) -> float:
    return pearson(ranks(x), ranks(y))


def kendall_tau_b(x: list[float], y: list[float]) -> float:
    concordant = discordant = ties_x = ties_y = 0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif dx * dy > 0:
                concordant += 1
            else:
                discordant += 1
    total_x = concordant + discordant + ties_y  # pairs not tied in x
    total_y = concordant + discordant + ties_x
    return (concordant - discordant) / math.sqrt(total_x * total_y)


def rec(
    item_id: str,
    group: str,
    human: float | None,
    score: float | None,
    dataset: str = "summeval",
    aspect: str = "coherence",
    protocol: str | None = "debate",
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "item_id": item_id,
        "dataset": dataset,
        "aspect": aspect,
        "group_id": group,
        "system_id": "M0",
        "human_score": human,
        "score": score,
        "parse_status": "parsed" if score is not None else "no_score",
    }
    if protocol is not None:
        record["protocol"] = protocol
    return record


def group(prefix: str, humans: list[float], scores: list[float | None], **kwargs: Any) -> list[dict[str, Any]]:
    return [rec(f"{prefix}-{i}", prefix, h, s, **kwargs) for i, (h, s) in enumerate(zip(humans, scores, strict=True))]


def write_jsonl(path: Path, records: list[dict[str, Any]], tail: str = "") -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records) + tail, encoding="utf-8")
    return path


def only(report: dict[str, dict[str, AspectReport]], dataset: str = "summeval") -> AspectReport:
    (entry,) = report[dataset].values()
    return entry


def flat(value: Any, path: str = "") -> dict[str, Any]:
    """A nested structure of dicts and lists as {path: leaf}."""
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in flat(item, f"{path}.{key}").items()}
    if isinstance(value, (list, tuple)):
        return {k: v for i, item in enumerate(value) for k, v in flat(item, f"{path}[{i}]").items()}
    return {path: value}


def assert_same_figures(after: Any, before: Any) -> None:
    """The same structure and leaves, floats equal to the rounding of a sum taken in another order (1e-12
    relative): what a figure computed on the same records in another order may differ by, no more."""
    a, b = flat(after), flat(before)
    assert a.keys() == b.keys()
    for key, value in b.items():
        if isinstance(value, float) and isinstance(a[key], float):
            assert a[key] == pytest.approx(value, rel=1e-12, abs=1e-15, nan_ok=True), key
        else:
            assert a[key] == value, key


def shuffled(records: list[Any], seed: int = 5) -> list[Any]:
    """The records in another order (a run's results.jsonl is in the order its items finished)."""
    out = list(records)
    random.Random(seed).shuffle(out)
    return out
