"""A finished (or resumed, or interrupted) run as Python objects: ``Run``, its ``Record``s and their
``Message``s, read from the run directory the engine wrote (``results.jsonl``, ``config.json``,
``summary.json``). ``load_run`` opens any run directory, from ``evaluate`` or ``debate-eval run``."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import redact_record
from debate_eval.tasks.engine.results import RESULTS_FILE, read_jsonl

if TYPE_CHECKING:
    import pandas

    from debate_eval._meta import MetaEval

CONFIG_FILE, SUMMARY_FILE = "config.json", "summary.json"
TABLE_COLUMNS = (
    "item_id",
    "dataset",
    "aspect",
    "method",
    "score",
    "human_score",
    "verdict",
    "human_label",
    "parse_status",
    "parse_method",
    "agreed",
    "rounds",
    "error",
    "llm_calls",
    "cached_calls",
    "prompt_tokens",
    "completion_tokens",
    "elapsed_s",
    "group_id",
    "system_id",
)


@dataclass(frozen=True)
class Message:
    """One transcript entry: who said what, its token usage, and the score (or verdict) parsed from it."""

    index: int
    agent: str
    role: str
    content: str
    usage: Mapping[str, int] | None = None
    cached: bool = False
    score: Mapping[str, Any] | None = None  # {"value", "status", "method", "reason"} when parsed
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> Message:
        """A transcript entry as stored in ``results.jsonl``."""
        return cls(
            index=int(entry.get("index") or 0),
            agent=str(entry.get("agent") or ""),
            role=str(entry.get("role") or ""),
            content=str(entry.get("content") or ""),
            usage=entry.get("usage"),
            cached=bool(entry.get("cached")),
            score=entry.get("score") or entry.get("verdict"),
            raw=dict(entry),
        )


@dataclass(frozen=True)
class Record:
    """One result line: an item (under one aspect) judged by one method. ``raw`` is the whole stored record
    (``details``, per-role ``usage``, pairwise orders); ``transcript`` every message."""

    item_id: str
    dataset: str
    aspect: str
    method: str
    score: float | None
    human_score: float | None
    verdict: str | None
    human_label: str | None
    parse_status: str | None
    error: str | None
    group_id: str | None
    transcript: tuple[Message, ...] = field(repr=False)
    raw: Mapping[str, Any] = field(repr=False)

    @classmethod
    def from_dict(cls, record: Mapping[str, Any]) -> Record:
        """A record as stored in ``results.jsonl``."""
        return cls(
            item_id=str(record.get("item_id")),
            dataset=str(record.get("dataset")),
            aspect=str(record.get("aspect")),
            method=str(record.get("protocol") or "debate"),
            score=_number(record.get("score")),
            human_score=_number(record.get("human_score")),
            verdict=record.get("verdict"),
            human_label=record.get("human_label"),
            parse_status=record.get("parse_status"),
            error=record.get("error"),
            group_id=None if record.get("group_id") is None else str(record.get("group_id")),
            transcript=tuple(Message.from_dict(e) for e in record.get("transcript") or ()),
            raw=dict(record),
        )

    @property
    def ok(self) -> bool:
        """True when the item finished (it may still have no score: see ``parse_status``)."""
        return not self.error

    def row(self) -> dict[str, Any]:
        """The record's table row (``Run.to_pandas``): no transcript."""
        usage = [u for u in (self.raw.get("usage") or {}).values() if isinstance(u, Mapping)]
        values = {
            **{name: self.raw.get(name) for name in TABLE_COLUMNS},
            "item_id": self.item_id,
            "method": self.method,
            "score": self.score,
            "human_score": self.human_score,
            "prompt_tokens": sum(int(u.get("prompt_tokens") or 0) for u in usage),
            "completion_tokens": sum(int(u.get("completion_tokens") or 0) for u in usage),
        }
        return {name: values[name] for name in TABLE_COLUMNS}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class Run:
    """A run directory: ``path``, its ``config`` (``config.json``) and ``summary`` (``summary.json``), and
    its records (``results.jsonl``, read when asked for, so a resumed run shows its new lines)."""

    path: Path
    config: Mapping[str, Any] = field(default_factory=dict, repr=False)
    summary: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def config_hash(self) -> str | None:
        """The identity of the run's results (``config.json``)."""
        value = self.config.get("config_hash")
        return str(value) if value else None

    @property
    def results_file(self) -> Path:
        """``results.jsonl``."""
        return self.path / RESULTS_FILE

    @property
    def records(self) -> list[Record]:
        """The run's records: the latest line per item (and aspect) of the run's configuration."""
        return [Record.from_dict(record) for record in self.raw_records()]

    def raw_records(self) -> list[dict[str, Any]]:
        """The records as stored (dicts), the latest line per item and aspect of this configuration."""
        if not self.results_file.is_file():
            return []
        latest: dict[tuple[str, str], dict[str, Any]] = {}
        stored, _ = redact_record(read_jsonl(self.results_file))  # as `show`: a file of an earlier version may hold one
        for record in stored:
            if self.config_hash and record.get("config_hash") not in (None, self.config_hash):
                continue
            latest[(str(record.get("item_id")), str(record.get("aspect")))] = record
        return list(latest.values())

    def to_pandas(self) -> pandas.DataFrame:
        """One row per record (item and aspect): scores, human scores, verdicts, parse status, errors, calls
        and tokens; no transcripts (``transcript(item_id)``)."""
        import pandas

        return pandas.DataFrame([record.row() for record in self.records], columns=list(TABLE_COLUMNS))

    def transcript(self, item_id: str, aspect: str | None = None) -> list[Message]:
        """Every message of one item's evaluation (``aspect`` to choose in a run of several aspects)."""
        found = [r for r in self.records if r.item_id == str(item_id) and (aspect is None or r.aspect == aspect)]
        if not found:
            raise UserError(f"{self.path}: no item {item_id!r}" + (f" with aspect {aspect!r}" if aspect else ""))
        if len(found) > 1:
            aspects = ", ".join(r.aspect for r in found)
            raise UserError(f"{self.path}: item {item_id!r} was judged under several aspects; give aspect= ({aspects})")
        return list(found[0].transcript)

    def meta_evaluate(self, bootstrap: int | None = None, ci_method: str = "percentile") -> MetaEval:
        """How the scores (or verdicts) agree with the human ratings: the numbers of ``debate-eval meta-eval
        RUN --json`` (``bootstrap`` resamples for the intervals, default as the command, 0 for none;
        ``ci_method`` ``percentile`` or ``bca``)."""
        from debate_eval._meta import meta_evaluate

        return meta_evaluate(self, bootstrap=bootstrap, ci_method=ci_method)

    def report(
        self, path: str | os.PathLike[str] = "report.html", *, title: str | None = None, ci_method: str = "percentile"
    ) -> Path:
        """Write the run's HTML report (as ``debate-eval report RUN --out PATH --ci-method CI_METHOD``); returns
        its path. ``ci_method`` (``percentile`` or ``bca``) gives the intervals ``meta_evaluate(ci_method=)``
        gives."""
        from debate_eval.tasks.analysis.report import write_report

        return Path(write_report([str(self.path)], os.fspath(path), title=title, ci_method=ci_method))

    def __len__(self) -> int:
        return len(self.raw_records())


def load_run(path: str | os.PathLike[str]) -> Run:
    """Open a run directory (or its ``results.jsonl``) written by ``evaluate`` or ``debate-eval run``."""
    folder = Path(path).expanduser()
    if folder.is_file() and folder.name == RESULTS_FILE:
        folder = folder.parent
    if not folder.is_dir():
        raise UserError(f"{folder}: no such run directory")
    if not (folder / RESULTS_FILE).is_file() and not (folder / CONFIG_FILE).is_file():
        raise UserError(f"{folder}: not a run directory (no {RESULTS_FILE} or {CONFIG_FILE})")
    return Run(path=folder, config=_read_json(folder / CONFIG_FILE), summary=_read_json(folder / SUMMARY_FILE))


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise UserError(f"{path}: cannot read it ({error})") from None
    return value if isinstance(value, dict) else {}
