"""The constructed comparisons of the paired-comparison audit, built from its description (no model, fixed seeds).

- ``copy_and_abstain``: 80 FairEval-like pairwise items; run A's verdict is right on 60 (75 %); run B copies
  A's verdict where A is right and gives no verdict where A is wrong. B is never better than A.
- ``identical_plus_constant``: 100 SummEval-like documents of 16 summaries; run B is identical to A on 67
  documents and gives one constant score on A's 33 worst documents (a useless judge there).
- ``small_gain``: 100 documents; run B equals A except on 5 documents, where B is closer to the humans (a
  small real gain, every item scored by both runs): the paired fix must leave Δ and its interval unchanged.
- ``two_documents``: one run on 2 documents (too few groups for an interval or a p-value).
- ``topical_chat``: a ChatEval-labelled run on 60 Topical-Chat-like contexts of 6 responses, 4 aspects (for the
  two definitions, per-context and pooled); the scores are noise around the humans', not a judge's.

``python tests/tasks/analysis/constructed_cases.py OUT`` writes each run as ``OUT/<case>/<a|b>/results.jsonl``
(``OUT/two_documents/results.jsonl``), the files the issue's before/after figures were measured on.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

Record = dict[str, Any]
VERDICTS = ("first", "second", "tie")


def _pairwise(item: int, verdict: str | None, label: str, protocol: str) -> Record:
    return {
        "item_id": f"q{item:02d}",
        "dataset": "faireval",
        "aspect": "preference",
        "protocol": protocol,
        "task_type": "pairwise",
        "verdict": verdict,
        "human_label": label,
        "parse_status": "parsed" if verdict else "no_verdict",
    }


def copy_and_abstain(n_items: int = 80, n_right: int = 60, seed: int = 22) -> tuple[list[Record], list[Record]]:
    """Run A right on ``n_right`` of ``n_items``; run B = A where A is right, no verdict where A is wrong."""
    rng = random.Random(seed)
    labels = [rng.choice(VERDICTS) for _ in range(n_items)]
    right = set(rng.sample(range(n_items), n_right))
    run_a, run_b = [], []
    for item, label in enumerate(labels):
        wrong = next(v for v in VERDICTS if v != label)
        verdict_a = label if item in right else wrong
        run_a.append(_pairwise(item, verdict_a, label, "debate"))
        run_b.append(_pairwise(item, verdict_a if item in right else None, label, "chateval"))
    return run_a, run_b


def _single(doc: int, summary: int, human: float, score: float | None, protocol: str) -> Record:
    return {
        "item_id": f"doc{doc:03d}-s{summary:02d}",
        "dataset": "summeval",
        "aspect": "coherence",
        "protocol": protocol,
        "group_id": f"doc{doc:03d}",
        "system_id": f"M{summary}",
        "human_score": human,
        "score": score,
        "parse_status": "parsed" if score is not None else "no_score",
    }


def _documents(n_docs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Human scores (1-5, averaged over three raters as SummEval's) and a noisy judge's scores, per document."""
    rng = np.random.default_rng(seed)
    humans = np.round(rng.integers(1, 6, size=(n_docs, 16, 3)).mean(axis=2), 4)
    noise = rng.uniform(0.6, 2.0, size=(n_docs, 1))  # some documents are harder for the judge than others
    scores = np.clip(np.round(humans + rng.normal(0, 1, size=humans.shape) * noise), 1, 5)
    return humans, scores


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    from scipy import stats

    return float(stats.spearmanr(x, y)[0])


def identical_plus_constant(n_docs: int = 100, n_constant: int = 33, seed: int = 7) -> tuple[list[Record], ...]:
    """Run B = run A on all documents but A's ``n_constant`` worst (lowest ρ), where B scores every summary 3."""
    humans, scores = _documents(n_docs, seed)
    worst = set(np.argsort([_spearman(scores[d], humans[d]) for d in range(n_docs)])[:n_constant].tolist())
    run_a, run_b = [], []
    for d in range(n_docs):
        for s in range(16):
            run_a.append(_single(d, s, float(humans[d, s]), float(scores[d, s]), "debate"))
            run_b.append(_single(d, s, float(humans[d, s]), 3.0 if d in worst else float(scores[d, s]), "geval"))
    return run_a, run_b


def small_gain(n_docs: int = 100, n_better: int = 5, seed: int = 11) -> tuple[list[Record], list[Record]]:
    """Run B = run A except on ``n_better`` documents, where B's scores are the humans' plus less noise."""
    humans, scores = _documents(n_docs, seed)
    rng = np.random.default_rng(seed + 1)
    better = set(rng.choice(n_docs, size=n_better, replace=False).tolist())
    run_a, run_b = [], []
    for d in range(n_docs):
        closer = np.clip(np.round(humans[d] + rng.normal(0, 0.5, size=16)), 1, 5)
        for s in range(16):
            run_a.append(_single(d, s, float(humans[d, s]), float(scores[d, s]), "debate"))
            score_b = float(closer[s] if d in better else scores[d, s])
            run_b.append(_single(d, s, float(humans[d, s]), score_b, "debate"))
    return run_a, run_b


def two_documents(seed: int = 3) -> list[Record]:
    """One run on 2 SummEval documents (16 summaries each)."""
    humans, scores = _documents(2, seed)
    return [_single(d, s, float(humans[d, s]), float(scores[d, s]), "debate") for d in range(2) for s in range(16)]


def topical_chat(contexts: int = 60, seed: int = 5) -> list[Record]:
    """60 contexts x 6 responses per aspect, human scores the mean of 3 ratings on 1-3, scores noisy copies."""
    rng = np.random.default_rng(seed)
    records = []
    for aspect in ("naturalness", "coherence", "engagingness", "groundedness"):
        for context in range(contexts):
            humans = np.round(rng.integers(1, 4, size=(6, 3)).mean(axis=1), 4)
            scores = np.clip(np.round(humans + rng.normal(0, 0.8, size=6)), 1, 3)
            for response in range(6):
                records.append(
                    {
                        "item_id": f"c{context:02d}-r{response}",
                        "dataset": "topical_chat",
                        "aspect": aspect,
                        "protocol": "chateval",
                        "group_id": f"c{context:02d}",
                        "human_score": float(humans[response]),
                        "score": float(scores[response]),
                        "parse_status": "parsed",
                    }
                )
    return records


def write_run(folder: Path, records: list[Record]) -> Path:
    """``folder/results.jsonl`` with one record per line; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def write_all(out: Path) -> None:
    """Every case under ``out`` (see the module docstring)."""
    for name, build in (
        ("copy_and_abstain", copy_and_abstain),
        ("identical_plus_constant", identical_plus_constant),
        ("small_gain", small_gain),
    ):
        run_a, run_b = build()
        write_run(out / name / "a", run_a)
        write_run(out / name / "b", run_b)
    write_run(out / "two_documents", two_documents())
    write_run(out / "topical_chat", topical_chat())


if __name__ == "__main__":
    write_all(Path(sys.argv[1]))
