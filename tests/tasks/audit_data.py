"""Data for the audit tests (tests/tasks/cli/test_audit.py, tests/tasks/analysis/test_audit_report_browser.py): an
own single-score file with judged texts of 3 to 95 words and a G-Eval-style template, an own A/B file, and the
``debate-eval audit`` arguments that audit them with a planted scripted judge."""

from __future__ import annotations

import json
from pathlib import Path

WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
TEMPLATE = """Rate the quality of the text.

Evaluation Criteria:

Quality (1-5) - is the text clear and useful?

Text:

{{output}}


Evaluation Form (scores ONLY):

- Quality:"""


def text_of(n: int, seed: int) -> str:
    return " ".join(WORDS[(seed + i) % len(WORDS)] for i in range(n))


def write_single(folder: Path, n: int = 24) -> tuple[Path, Path]:
    """n items with judged texts of 3..95 words; human scores unrelated to length (a cycle 1..5)."""
    rows = [
        {"id": f"t{i:02d}", "source": f"source {i}", "output": text_of(3 + (i * 37) % 93, i), "rating": 1 + i % 5}
        for i in range(n)
    ]
    data = folder / "ratings.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    template = folder / "quality.txt"
    template.write_text(TEMPLATE, encoding="utf-8")
    return data, template


def write_pairwise(folder: Path, n: int = 20) -> Path:
    rows = [
        {"q": f"question {i}", "a": text_of(5 + i % 7, i), "b": text_of(9 + i % 4, i + 3), "label": "AB"[i % 2]}
        for i in range(n)
    ]
    data = folder / "pairs.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return data


def single_args(folder: Path, model: str, out: Path, *extra: str) -> list[str]:
    data, template = write_single(folder)
    return [
        "audit", "--dataset", str(data), "--aspect", "quality", "--fields", "output=output,source=source,human=rating",
        "--template", str(template), "--provider", "scripted", "--model", model, "--out", str(out), "--no-progress",
        "--bootstrap", "200", *extra,
    ]  # fmt: skip


def pairwise_args(folder: Path, model: str, out: Path, *extra: str) -> list[str]:
    data = write_pairwise(folder)
    return [
        "audit", "--dataset", str(data), "--aspect", "preference",
        "--fields", "question=q,output_a=a,output_b=b,label=label", "--labels", "first=A,second=B",
        "--provider", "scripted", "--model", model, "--out", str(out), "--no-progress", "--bootstrap", "200", *extra,
    ]  # fmt: skip
