"""Gather what a report shows from run directories: config, summary and the result records.

A run is a folder written by ``debate-eval run`` (``config.json``, ``results.jsonl``, ``summary.json``) or a
``results.jsonl`` file alone. Records of methods this module does not know are kept as they are: the page
reads their fields defensively. Nothing here computes statistics; see ``numbers.py``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import redact_record
from debate_eval.tasks.engine import compat
from debate_eval.tasks.engine.config_checksum import edit_note
from debate_eval.tasks.engine.record import validate_record
from debate_eval.tasks.engine.reread import mixed_versions_warning
from debate_eval.tasks.engine.rundir import RESULTS_FILE, RunDir, iter_json_lines, read_json_object


@dataclass
class Run:
    """One run as the report sees it."""

    label: str  # unique within a report, e.g. "debate" or "debate (2)"
    path: Path  # the run directory (or the folder of a bare results file)
    records: list[dict[str, Any]]
    config: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def method(self) -> str:
        """The method (protocol) name of the run."""
        methods = sorted({method_of(r) for r in self.records})
        if methods:
            return "+".join(methods)
        config = self.config.get("result_config") or {}
        return str(config.get("method") or config.get("protocol") or "unknown")

    @property
    def task_type(self) -> str:
        """``pairwise`` when any record is a pairwise one, else ``single``."""
        return "pairwise" if any(is_pairwise(r) for r in self.records) else "single"


def method_of(record: dict[str, Any]) -> str:
    """The record's method (older files are read through ``compat``)."""
    return compat.method_of(record)


def is_pairwise(record: dict[str, Any]) -> bool:
    """Whether the record is a pairwise comparison (it has a task type or a verdict/human label)."""
    return record.get("task_type") == "pairwise" or (
        record.get("task_type") is None and ("verdict" in record or "human_label" in record)
    )


def number(value: Any) -> float | None:
    """A finite float, or None (null, NaN, infinity, booleans, text)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def item_key(record: dict[str, Any]) -> str:
    """The identity of an item across runs: dataset/aspect/item_id."""
    return f"{record.get('dataset', '?')}/{record.get('aspect', '?')}/{record.get('item_id')}"


def compare_key(record: dict[str, Any]) -> str:
    """The identity of an item when runs are set side by side: as ``item_key``, but a dataset variant
    (``xdial_fed_turn-chinese``) counts as its base set, so the same item in two languages lines up."""
    dataset = str(record.get("dataset", "?"))
    if "-" in dataset and not dataset.lower().endswith((".csv", ".json", ".jsonl")):
        dataset = dataset.split("-", 1)[0]
    return f"{dataset}/{record.get('aspect', '?')}/{record.get('item_id')}"


def _read_json(path: Path) -> dict[str, Any]:
    return read_json_object(path)


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a results file, the last line per item winning (a resumed run may repeat an item).

    Every record is checked by the one record validator (``engine.record.validate_record``, as resume and
    meta-eval check it): a bad line is a ``UserError`` naming file, line (counted from 1) and field.
    """
    latest: dict[str, dict[str, Any]] = {}
    for line, record in iter_json_lines(path):
        validate_record(record, path, line)
        latest[f"{item_key(record)}/{method_of(record)}"] = record
    return list(latest.values())


def load_run(name: str | Path) -> Run:
    """A run from a run directory or a results file; ``UserError`` when neither is there."""
    path = Path(name)
    if path.is_dir():
        results, folder = path / RESULTS_FILE, path
    elif path.is_file():
        results, folder = path, path.parent
    else:
        raise UserError(f"{path}: no such run directory or results file")
    if not results.is_file():
        raise UserError(f"{path}: no {RESULTS_FILE} in this folder; give a run directory of `debate-eval run`")
    records, _ = redact_record(read_records(results))  # no configured secret on the page, whatever the file holds
    warning = mixed_versions_warning(records, folder)  # records of two parsers (engine/reread.py): one line
    if warning:
        print(warning, file=sys.stderr)
    run_dir = RunDir(folder)
    config = _read_json(run_dir.config_path) if results.name == RESULTS_FILE else {}
    edited = edit_note(run_dir.config_path, config) if config else None
    if edited:  # its settings may name a model that never ran: the page shows none of them
        print(f"debate-eval: warning: {edited}; its settings are left out of the report", file=sys.stderr)
        config = {}
    summary = _read_json(run_dir.summary_path) if results.name == RESULTS_FILE else {}
    return Run(label="", path=folder, records=records, config=config, summary=summary)


def load_runs(names: Sequence[str | Path]) -> list[Run]:
    """Load runs and give each a unique label (its method, then its folder name on a clash)."""
    if not names:
        raise UserError("give at least one run directory")
    runs = [load_run(name) for name in names]
    methods = [run.method for run in runs]
    labels: list[str] = []
    for run, method in zip(runs, methods, strict=True):
        label = method if methods.count(method) == 1 else f"{method} ({run.path.name})"
        while label in labels:
            label += "'"
        labels.append(label)
        run.label = label
    return runs


def _squash(text: str) -> str:
    return " ".join(text.split())


def _in_prompts(inputs: Any, record: dict[str, Any]) -> bool:
    """Whether every non-empty text of ``inputs`` appears in the record's messages (so a dataset variant or
    a changed file never puts another item's text beside a transcript)."""
    messages = _squash(
        " ".join(str(m.get("content", "")) for m in record.get("transcript") or [] if isinstance(m, dict))
    )
    texts = [_squash(str(value)) for value in inputs.values() if str(value).strip()]
    return bool(texts) and all(text[:200] in messages for text in texts)


def attach_inputs(runs: Sequence[Run], data_dir: str | Path | None = None) -> list[str]:
    """Give records without ``inputs`` their item's texts from the dataset (``inputs_source: "dataset"``),
    so the page can show the judged text apart from the prompts, when those texts are in the record's
    messages (checked, so a variant of a dataset never shows another text). The run files are not changed.

    Returns one note per dataset that could not be loaded (the page then shows the prompts only).
    """
    from debate_eval.tasks.data.datasets import load_items
    from debate_eval.tasks.data.own_file import restore_dataset

    wanted = sorted({str(r.get("dataset")) for run in runs for r in run.records if not r.get("inputs")})
    notes = []
    for run in runs:  # a run on the user's own file: register the file again from its config.json
        try:
            restore_dataset(run.config.get("result_config") or {})
        except Exception as exc:  # a moved or edited file only costs the separate copy of the texts
            notes.append(f"{run.path}: own data file not read again ({str(exc).splitlines()[0][:200]})")
    for dataset in wanted:
        try:
            items = {item.item_id: item.inputs for item in load_items(dataset, data_dir)}
        except Exception as exc:  # any failure only costs the separate copy of the texts
            notes.append(f"{dataset}: judged texts not loaded ({str(exc).splitlines()[0][:200]})")
            continue
        for run in runs:
            for record in run.records:
                inputs = items.get(str(record.get("item_id")))
                if (
                    not record.get("inputs")
                    and record.get("dataset") == dataset
                    and inputs is not None
                    and _in_prompts(inputs, record)
                ):
                    record["inputs"] = dict(inputs)
                    record["inputs_source"] = "dataset"
    return notes
