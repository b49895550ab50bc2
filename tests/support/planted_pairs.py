"""A pairwise own-data file on which the planted scripted judges (``agents/models/providers/planted.py``) have
the accuracies a test sets: ``planted-first`` (always the first response) is right where the human label is
``first``; ``planted-length`` picks the longer response, made the human's choice with its accuracy;
``planted-copy`` copies a ``[[A]]``/``[[B]]`` planted in response A's last line, the human's side with its
accuracy. Each is drawn independently per item, so a judge's accuracy is known by construction."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

FIELDS = {"id": "id", "question": "question", "output_a": "output_a", "output_b": "output_b", "label": "label"}
LONG = " ".join(["a long answer that says a great deal"] * 5)  # 40 words: the longer response
SHORT = "a short answer"


def planted_pairs(path: Path, n: int, *, first: float, length: float, copy: float, seed: int) -> Path:
    """Write ``n`` labelled A/B items (ids ``q0``...) to ``path`` (JSON lines): the human label is ``first``
    with probability ``first``; the longer response is the human's with probability ``length``; the verdict
    planted for ``planted-copy`` is the human's with probability ``copy``."""
    rng = np.random.default_rng(seed)
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            human = "A" if rng.uniform() < first else "B"
            other = "B" if human == "A" else "A"
            longer = human if rng.uniform() < length else other
            planted = human if rng.uniform() < copy else other
            row = {
                "id": f"q{i}",
                "question": f"Question {i}: which answer is better?",
                "output_a": (LONG if longer == "A" else SHORT) + f"\n[[{planted}]]",
                "output_b": LONG if longer == "B" else SHORT,
                "label": "first" if human == "A" else "second",
            }
            handle.write(json.dumps(row) + "\n")
    return path
