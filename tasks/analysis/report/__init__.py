"""The report: one self-contained HTML page for one or several runs (``debate-eval report``).

Modules: ``gather`` (read run directories), ``numbers`` (what is counted and correlated), ``plots`` (inline
SVG), ``sections`` (server-rendered HTML), ``page`` (assembly, embedded data, safety), ``assets/`` (CSS, JS,
the page template), ``demo`` (scripted runs to look at).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from debate_eval.tasks.analysis.report.gather import Run, load_runs
from debate_eval.tasks.analysis.report.page import render

__all__ = ["Run", "load_runs", "render", "write_report"]


def write_report(names: Sequence[str | Path], out: str | Path, title: str | None = None) -> Path:
    """Read the runs, render the page and write it to ``out`` (its folder is created); returns the path."""
    target = Path(out)
    html = render(load_runs(names), title)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(target.name + ".tmp")
    temporary.write_text(html, encoding="utf-8")
    temporary.replace(target)
    return target
