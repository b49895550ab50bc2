"""A finished (or resumed, or interrupted) run as Python objects: ``Run``, its ``Record``s and their
``Message``s, read from the run directory the engine wrote (``results.jsonl``, ``config.json``,
``summary.json``). ``load_run`` opens any run directory, from ``evaluate`` or ``debate-eval run``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.record import TABLE_COLUMNS, Message, Record
from debate_eval.tasks.engine.rundir import RunDir, read_json_object

if TYPE_CHECKING:
    import pandas

    from debate_eval._meta import MetaEval

__all__ = ["TABLE_COLUMNS", "Message", "Record", "Run", "load_run"]


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
        return RunDir(self.path).results_path

    @property
    def records(self) -> list[Record]:
        """The run's records: the latest line per item (and aspect) of the run's configuration."""
        config_hash = self.config_hash
        return RunDir(self.path).latest_records(
            key=lambda record: (record.key, record.aspect),
            keep=lambda record: not config_hash or record.config_hash in (None, config_hash),
            redact=True,  # as `show`: a file of an earlier version may hold a secret
        )

    def raw_records(self) -> list[dict[str, Any]]:
        """The records as stored (JSON objects), the latest line per item and aspect of this configuration."""
        return [record.to_json() for record in self.records]

    def to_pandas(self) -> pandas.DataFrame:
        """One row per record (item and aspect): scores, human scores, verdicts, parse status, errors, calls
        and tokens; no transcripts (``transcript(item_id)``)."""
        import pandas

        return pandas.DataFrame([record.row() for record in self.records], columns=list(TABLE_COLUMNS))

    def transcript(self, item_id: str, aspect: str | None = None) -> list[Message]:
        """Every message of one item's evaluation (``aspect`` to choose in a run of several aspects)."""
        found = [r for r in self.records if r.key == str(item_id) and (aspect is None or r.aspect == aspect)]
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
        return len(self.records)


def load_run(path: str | os.PathLike[str]) -> Run:
    """Open a run directory (or its ``results.jsonl``) written by ``evaluate`` or ``debate-eval run``."""
    folder = Path(path).expanduser()
    if folder.is_file() and RunDir.of_results(folder).is_results_file(folder):
        folder = folder.parent
    if not folder.is_dir():
        raise UserError(f"{folder}: no such run directory")
    run_dir = RunDir(folder)
    if not run_dir.is_run():
        raise UserError(f"{folder}: {run_dir.not_a_run_text()}")
    config, summary = (
        read_json_object(path, not_object="ignore") for path in (run_dir.config_path, run_dir.summary_path)
    )
    return Run(path=folder, config=config, summary=summary)
