"""Gather what a report shows from run directories: config, summary and the result records.

A run is a folder written by ``debate-eval run`` (``config.json``, ``results.jsonl``, ``summary.json``) or a
``results.jsonl`` file alone. The records are read as :class:`Record` and never held together: one pass keeps
an :class:`Item` per record (the few numbers and names the figures read, a few hundred bytes) and the byte
offset of its line, and the page reads the records it embeds again from those offsets, one at a time
(:meth:`Run.iter_records`). Records of methods this module does not know are kept as they are. Nothing here
computes statistics; see ``numbers.py``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import environment_snapshot
from debate_eval.tasks.engine.config_checksum import edit_note
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.reread import mixed_versions_warning
from debate_eval.tasks.engine.rundir import (
    RunDir,
    ScanEnd,
    iter_numbered_file,
    lines_at,
    results_file,
    results_file_name,
)
from debate_eval.tasks.engine.views import Item, is_pairwise
from debate_eval.tasks.engine.views import finite as number


def item_key(record: Record | Item) -> str:
    """The identity of an item across runs: dataset/aspect/item_id."""
    return f"{record.dataset}/{record.aspect}/{record.item_id}"


def compare_key(record: Record | Item) -> str:
    """The identity of an item when runs are set side by side: as ``item_key``, but a dataset variant
    (``xdial_fed_turn-chinese``) counts as its base set, so the same item in two languages lines up."""
    dataset = str(record.dataset)
    if "-" in dataset and not dataset.lower().endswith((".csv", ".json", ".jsonl")):
        dataset = dataset.split("-", 1)[0]
    return f"{dataset}/{record.aspect}/{record.item_id}"


@dataclass
class Run:
    """One run as the report sees it: its documents as :class:`RunDir` reads them and an :class:`Item` per
    record (the last line per item wins); the records themselves stay in the file (:meth:`iter_records`)."""

    label: str  # unique within a report, e.g. "debate" or "debate (2)"
    path: Path  # the run directory (or the folder of a bare results file)
    items: list[Item]
    results: Path  # the results file
    config: dict[str, Any] = field(default_factory=dict)  # read by RunDir (none for a results file of another name)
    summary: dict[str, Any] = field(default_factory=dict)
    offsets: list[int] = field(default_factory=list)  # the byte offset of each item's line
    usage: dict[str, dict[str, int]] = field(default_factory=dict)  # tokens and calls per role, summed
    texts: dict[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)  # dataset -> id -> inputs

    @property
    def method(self) -> str:
        """The method name of the run."""
        methods = sorted({item.method for item in self.items})
        if methods:
            return "+".join(methods)
        config = self.config.get("result_config") or {}
        return str(config.get("method") or config.get("protocol") or "unknown")

    @property
    def task_type(self) -> str:
        """``pairwise`` when any record is a pairwise one, else ``single``."""
        return "pairwise" if any(is_pairwise(item) for item in self.items) else "single"

    def iter_lines(self) -> Iterator[tuple[dict[str, Any], Record]]:
        """Every item's line, read again from the file one at a time: its JSON object as the file holds it and
        its record, every configured secret masked, and the judged texts attached to both (``attach_inputs``)."""
        for line, record in lines_at(self.results, self.offsets, redact=True):
            inputs = self._texts(record)
            if inputs is None:
                yield line, record
            else:
                yield (
                    {**line, "inputs": inputs, "inputs_source": "dataset"},
                    record.replace(inputs=inputs, inputs_source="dataset"),
                )

    def iter_records(self) -> Iterator[Record]:
        """Every item's record (``iter_lines``), one at a time."""
        for _, record in self.iter_lines():
            yield record

    @property
    def records(self) -> list[Record]:
        """Every record (``iter_records`` read whole: for small runs and tools)."""
        return list(self.iter_records())

    def _texts(self, record: Record) -> dict[str, Any] | None:
        """The judged texts from the dataset for a record without them, when its messages hold them."""
        texts = self.texts.get(str(record.dataset))
        if not texts or record.inputs:
            return None
        inputs = texts.get(str(record.item_id))
        if inputs is None or not _in_prompts(inputs, record):
            return None
        return dict(inputs)


USAGE_COUNTS = ("prompt_tokens", "completion_tokens", "calls", "cached_calls")


def _usage(record: Record) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The record's tokens and calls per role, as numbers (``USAGE_COUNTS``)."""
    usage = record.usage if isinstance(record.usage, Mapping) else {}
    return tuple(
        (sys.intern(str(role)), tuple(int(number(entry.get(name)) or 0) for name in USAGE_COUNTS))
        for role, entry in usage.items()
        if isinstance(entry, Mapping)
    )


def read_items(path: Path) -> tuple[list[Item], list[int], dict[str, dict[str, int]]]:
    """The items of a results file (the last line per item and method winning, in the order the items first
    appear), their lines' byte offsets, and the tokens and calls per role summed over those records.

    Every record is checked by the one record validator (``Record.from_json``, as resume and meta-eval check
    it): a bad line is a ``UserError`` naming file, line (counted from 1) and field.
    """
    index: dict[str, int] = {}
    items: list[Item] = []
    offsets: list[int] = []
    usages: list[tuple[tuple[str, tuple[int, ...]], ...]] = []  # per item: (role, its counts) pairs
    end = ScanEnd()
    with environment_snapshot():  # the environment's secrets read once, not at every record
        for _, record in iter_numbered_file(path, end, redact=True):
            key = f"{item_key(record)}/{record.method}"
            item, usage = Item.of(record), _usage(record)
            at = index.setdefault(key, len(items))
            if at == len(items):
                items.append(item)
                offsets.append(end.line_start)
                usages.append(usage)
            else:
                items[at], offsets[at], usages[at] = item, end.line_start, usage
    summed: dict[str, dict[str, int]] = {}
    for usage in usages:
        for role, counts in usage:
            target = summed.setdefault(role, {})
            for name, count in zip(USAGE_COUNTS, counts, strict=True):
                target[name] = target.get(name, 0) + count
    return items, offsets, summed


def load_run(name: str | Path) -> Run:
    """A run from a run directory or a results file; ``UserError`` when neither is there."""
    path = Path(name)
    if not path.exists():
        raise UserError(f"{path}: no such run directory or results file")
    results = results_file(path)
    if not results.is_file():
        raise UserError(f"{path}: no {results_file_name()} in this folder; give a run directory of `debate-eval run`")
    items, offsets, usage = read_items(results)  # no configured secret on the page, whatever the file holds
    run_dir = RunDir.of_results(results)
    warning = mixed_versions_warning(items, run_dir.path)  # records of two parsers (engine/reread.py): one line
    if warning:
        print(warning, file=sys.stderr)
    run = Run(label="", path=run_dir.path, items=items, results=results, offsets=offsets, usage=usage)
    if run_dir.is_results_file(results):  # a results file of another name has no run's documents
        run.config = run_dir.config
        edited = edit_note(run_dir.config_path, run.config) if run.config else None
        if edited:  # its settings may name a model that never ran: the page shows none of them
            print(f"debate-eval: warning: {edited}; its settings are left out of the report", file=sys.stderr)
            run.config = {}
        run.summary = run_dir.summary
    return run


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


def _in_prompts(inputs: Mapping[str, Any], record: Record) -> bool:
    """Whether every non-empty text of ``inputs`` appears in the record's messages (so a dataset variant or
    a changed file never puts another item's text beside a transcript)."""
    messages = _squash(" ".join(message.content for message in record.transcript))
    texts = [_squash(str(value)) for value in inputs.values() if str(value).strip()]
    return bool(texts) and all(text[:200] in messages for text in texts)


def attach_inputs(runs: Sequence[Run], data_dir: str | Path | None = None) -> list[str]:
    """Give records without ``inputs`` their item's texts from the dataset (``inputs_source: "dataset"``),
    so the page can show the judged text apart from the prompts, when those texts are in the record's
    messages (checked as each record is read, so a variant of a dataset never shows another text). The run
    files are not changed.

    Returns one note per dataset that could not be loaded (the page then shows the prompts only).
    """
    from debate_eval.tasks.data.datasets import load_items
    from debate_eval.tasks.data.own_file import restore_dataset

    wanted = sorted({item.dataset for run in runs for item in run.items if not item.has_inputs})
    notes = []
    for run in runs:  # a run on the user's own file: register the file again from its config.json
        try:
            restore_dataset(run.config.get("result_config") or {})
        except Exception as exc:  # a moved or edited file only costs the separate copy of the texts
            notes.append(f"{run.path}: own data file not read again ({str(exc).splitlines()[0][:200]})")
    for dataset in wanted:
        try:
            texts = {item.item_id: item.inputs for item in load_items(dataset, data_dir)}
        except Exception as exc:  # any failure only costs the separate copy of the texts
            notes.append(f"{dataset}: judged texts not loaded ({str(exc).splitlines()[0][:200]})")
            continue
        for run in runs:
            if any(item.dataset == dataset for item in run.items):
                run.texts[dataset] = texts
    return notes


def label_items(run: Run, path: str | Path) -> None:
    """Give the run's items the human labels of a ``labels.jsonl`` (``tasks.analysis.labels``: checked against
    the run's items and scale) in place of the dataset's ratings; items without a label get none."""
    from debate_eval.tasks.analysis.labels import apply_labels, read_labels, run_scale

    rows = [item.score_row() for item in run.items]
    aspects = {item.aspect for item in run.items}
    scale = run_scale(run.config, next(iter(aspects))) if len(aspects) == 1 else None
    labelled = apply_labels(rows, read_labels(path, rows, scale))
    run.items = [  # an Item is frozen: each labelled one is a copy
        replace(item, human_score=row.human_score, human_label=row.human_label)
        for item, row in zip(run.items, labelled, strict=True)
    ]
