"""Importers of published judge outputs (``debate-eval import FORMAT FILE... --out DIR``).

Each format is one module with ``FORMAT`` and ``import_file(path, options) -> (ImportResult, aspect,
scale)``, or ``import_files(paths, options)`` when its files make one run together (``judgebench``, ``alpaca-eval``);
``REREADABLE = False`` when its verdicts are a release's own codes rather than a judge's text (``rescore``
refuses such a run); :mod:`common` builds the records and writes the run directory.
"""

from __future__ import annotations

from types import ModuleType

from debate_eval.tasks.analysis.imports import alpaca_eval, debate_authors, geval, jsonl, judgebench, pandalm

FORMATS: dict[str, ModuleType] = {
    module.FORMAT: module for module in (alpaca_eval, debate_authors, geval, jsonl, judgebench, pandalm)
}

__all__ = ["FORMATS"]
