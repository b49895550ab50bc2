"""What analysis adds to a run's ``summary.json`` when the run ends: the per-system comparison of its records
(``systems.run_systems``), passed to ``runner.run`` by its caller (the engine does not import analysis).
numpy and scipy are loaded only when a run has systems to compare."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def compare_systems(rows: Sequence[Any]) -> dict[str, Any] | None:
    """The summary's ``systems`` block of the records' rows (``Record.systems_row``), or None."""
    from debate_eval.tasks.analysis.systems import run_systems

    return run_systems(rows)
