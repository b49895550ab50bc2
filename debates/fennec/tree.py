"""A Fennec record's branches as a text tree, for ``debate-eval show``.

::

    === Fennec tree: 3 branches (3 criteria written, 3 found) ===
    ├── 1. Accuracy: facts match the article
    │   ├── guideline: 1: ... | 2: ... | ...
    │   └── judgment: score 4 — The summary keeps every fact ...
    └── ...
    correction: Better text ... (score 2.5 is below 3); re-judged 4, gain +1.5

A ``--swap`` record shows one tree per order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debate_eval.debates.record import ResultRecord


def _line(text: str, full: bool, limit: int = 160) -> str:
    flat = " | ".join(part.strip() for part in str(text).splitlines() if part.strip())
    return flat if full or len(flat) <= limit else flat[: limit - 3] + "..."


def _number(value: Any) -> str:
    return "none" if value is None else f"{value:g}" if isinstance(value, int | float) else str(value)


def _grade(branch: Mapping[str, Any]) -> str:
    if "verdict" in branch:
        scores = branch.get("scores") or {}
        verdict = (branch.get("verdict") or {}).get("value")
        return f"A {_number(scores.get('A'))}, B {_number(scores.get('B'))}, prefers {verdict or 'none'}"
    return f"score {_number((branch.get('score') or {}).get('value'))}"


def _correction(info: Mapping[str, Any], full: bool) -> str:
    corrected = info.get("corrected")
    if not corrected:
        return f"correction: none ({info.get('why')})"
    line = f"correction of {info.get('target')} ({info.get('why')}): {_line(corrected, full)}"
    rescore = info.get("rescore")
    if isinstance(rescore, Mapping):
        gain = rescore.get("gain")
        line += f"\n  re-judged: {_number(rescore.get('score'))}, gain {'none' if gain is None else f'{gain:+g}'}"
    return line


def format_details(details: Mapping[str, Any], full: bool = False) -> list[str]:
    """The tree of one order's details (empty when they hold no Fennec tree)."""
    tree = details.get("tree")
    if not isinstance(tree, list):
        return []
    criteria = details.get("criteria") or {}
    asked = ", asked again" if details.get("criteria_reasked") else ""
    found = criteria.get("found", 0)
    lines = [f"Fennec tree: {len(tree)} of {details.get('branches')} branches ({found} criteria found{asked})"]
    for n, branch in enumerate(tree):
        last = n == len(tree) - 1
        stem, pad = ("└── ", "    ") if last else ("├── ", "│   ")
        lines.append(f"{stem}{branch.get('branch')}. {_line(branch.get('criterion', ''), full)}")
        lines.append(f"{pad}├── guideline: {_line(branch.get('guideline', ''), full)}")
        lines.append(f"{pad}└── judgment: {_grade(branch)} — {_line(branch.get('judgment', ''), full)}")
    if isinstance(details.get("correction"), Mapping):
        lines.append(_correction(details["correction"], full))
    return lines


def format_tree(record: ResultRecord, full: bool = False) -> str | None:
    """The Fennec tree(s) of ``record`` as one block, or None when it is no Fennec record."""
    details = record.details or {}
    blocks = []
    if "tree" in details:
        blocks.append("\n".join(format_details(details, full)))
    for order, summary in (details.get("orders") or {}).items():
        lines = format_details((summary or {}).get("details") or {}, full)
        if lines:
            blocks.append(f"[{order} order] " + "\n".join(lines))
    return "=== " + "\n\n".join(blocks) if blocks else None
