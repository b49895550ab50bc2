"""Gather what a report shows from run directories: config, summary and the result records.

A run is a folder written by ``debate-eval run`` (``config.json``, ``results.jsonl``, ``summary.json``) or a
``results.jsonl`` file alone. The records are read as :class:`Record` and never held together: one pass keeps
an :class:`Item` per record (the few numbers and names the figures read, a few hundred bytes) and the byte
offset of its line, and the page reads the records it embeds again from those offsets, one at a time
(:meth:`Run.iter_records`). Records of methods this module does not know are kept as they are. Nothing here
computes statistics; see ``numbers.py``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import environment_snapshot
from debate_eval.tasks.analysis.records import ScoreRow
from debate_eval.tasks.engine.config_checksum import edit_note
from debate_eval.tasks.engine.record import PAIRWISE, ROW_FIELDS, Record, RecordRow
from debate_eval.tasks.engine.reread import mixed_versions_warning
from debate_eval.tasks.engine.rundir import (
    RunDir,
    ScanEnd,
    iter_numbered_file,
    lines_at,
    read_json_object,
    results_file_name,
)

VERDICTS = ("first", "second", "tie")


def number(value: Any) -> float | None:
    """A finite float, or None (null, NaN, infinity, booleans, text)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def is_pairwise(record: Record | Item) -> bool:
    """Whether the record is a pairwise comparison (its task type says so, or it has a verdict or human label
    without a task type)."""
    return record.task_type == PAIRWISE or (
        record.task_type is None and (record.verdict is not None or record.human_label is not None)
    )


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


def method_of(record: Record | Item) -> str:
    """The record's method (a file of an earlier version is read through ``compat`` by ``Record``)."""
    return str(record.method)


def _tokens(record: Record) -> int:
    return record.prompt_tokens() + record.completion_tokens() if isinstance(record.usage, Mapping) else 0


def _int(value: Any) -> int:
    return int(number(value) or 0)


def has_critic(record: Record) -> bool:
    """Whether the record's transcript holds a Critic's turn (a Scorer-Critic debate, whatever the method's name)."""
    return any(message.role == "critic" for message in record.transcript)


def scorer_scores(record: Record) -> tuple[float | None, ...]:
    """The Scorer's parsed score in each of its answers, in order (None where an answer had none).

    A re-ask answer replaces the answer it re-asked for, so there is one value per round.
    """
    values: list[float | None] = []
    reasking = False  # the Commander's last relay asked the Scorer again for its score alone
    for message in record.transcript:
        if message.role == "commander":
            reasking = message.raw.get("relay") == "reask"
        if message.role != "scorer":
            continue
        score = message.score if isinstance(message.score, Mapping) else {}
        value = number(score.get("value"))
        if reasking and values:
            values[-1] = value if value is not None else values[-1]
        else:
            values.append(value)
        reasking = False
    return tuple(values)


@dataclass(frozen=True, slots=True, kw_only=True)
class Item(RecordRow):
    """What the report's figures and item table read of one record (no transcript, details or texts): the
    record's fields of ``RecordRow`` (``engine/record.py``, declared there once), and these."""

    orders: tuple[str | None, str | None] | None  # --swap: the verdicts of both orders (mapped back)
    agreed: bool | None
    rounds: float | None
    stop_reason: str | None
    tokens: int
    llm_calls: int
    cached_calls: int
    has_inputs: bool
    scorer: tuple[float | None, ...] | None  # the Scorer's score per round, when a Critic took part
    confidence: float | None = None  # how sure the judgment is, in [0, 1]

    @classmethod
    def of(cls, record: Record) -> Item:
        """The item of a record (the names every item repeats are interned: one string per dataset)."""
        intern = sys.intern
        verdicts = record.verdicts
        orders = None
        if isinstance(verdicts, Mapping) and "swapped" in verdicts:
            orders = (verdicts.get("original"), verdicts.get("swapped"))
        pairwise = is_pairwise(record)
        return cls(
            item_id=record.item_id,
            dataset=intern(str(record.dataset)),
            aspect=intern(str(record.aspect)),
            method=intern(method_of(record)),
            group_id=record.group_id,
            system_id=record.system_id,
            score=number(record.score),
            human_score=number(record.human_score),
            task_type=record.task_type if record.task_type is not None or not pairwise else PAIRWISE,
            verdict=record.verdict,
            human_label=record.human_label,
            consistent=record.consistent if isinstance(record.consistent, bool) else None,
            orders=orders,
            error=record.error,
            parse_status=record.parse_status,
            agreed=record.agreed if isinstance(record.agreed, bool) else None,
            rounds=number(record.rounds),
            stop_reason=record.stop_reason,
            tokens=_tokens(record),
            llm_calls=_int(record.llm_calls),
            cached_calls=_int(record.cached_calls),
            imported=bool(record.extra.get("imported")),
            has_inputs=bool(record.inputs),
            scorer=scorer_scores(record) if not pairwise and has_critic(record) else None,
            system_a=record.system_a,
            system_b=record.system_b,
            config_hash=record.config_hash,
            parser_version=record.parser_version,
            score_normalized=number(record.score_normalized),
            confidence=number(record.confidence),
        )

    def score_row(self) -> ScoreRow:
        """What the meta-evaluation reads of the item (``tasks.analysis.records.ScoreRow``): its record fields."""
        return ScoreRow(**{name: getattr(self, name) for name in ROW_FIELDS})


@dataclass
class Run:
    """One run as the report sees it: its documents and an :class:`Item` per record (the last line per item
    wins); the records themselves stay in the file (:meth:`iter_records`)."""

    label: str  # unique within a report, e.g. "debate" or "debate (2)"
    path: Path  # the run directory (or the folder of a bare results file)
    items: list[Item]
    config: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)
    results: Path | None = None  # the results file
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
        if self.results is None:
            return
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
        (sys.intern(str(role)), tuple(_int(entry.get(name)) for name in USAGE_COUNTS))
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
            key = f"{item_key(record)}/{method_of(record)}"
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
    if path.is_dir():
        results, folder = RunDir(path).results_path, path
    elif path.is_file():
        results, folder = path, path.parent
    else:
        raise UserError(f"{path}: no such run directory or results file")
    if not results.is_file():
        raise UserError(f"{path}: no {results_file_name()} in this folder; give a run directory of `debate-eval run`")
    items, offsets, usage = read_items(results)  # no configured secret on the page, whatever the file holds
    warning = mixed_versions_warning(items, folder)  # records of two parsers (engine/reread.py): one line
    if warning:
        print(warning, file=sys.stderr)
    run_dir = RunDir(folder)
    in_run_dir = run_dir.is_results_file(results)  # a results file of another name has no run's documents
    config = read_json_object(run_dir.config_path) if in_run_dir else {}
    edited = edit_note(run_dir.config_path, config) if config else None
    if edited:  # its settings may name a model that never ran: the page shows none of them
        print(f"debate-eval: warning: {edited}; its settings are left out of the report", file=sys.stderr)
        config = {}
    summary = read_json_object(run_dir.summary_path) if in_run_dir else {}
    return Run(
        label="",
        path=folder,
        items=items,
        config=config,
        summary=summary,
        results=results,
        offsets=offsets,
        usage=usage,
    )


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
