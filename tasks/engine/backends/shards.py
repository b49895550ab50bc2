"""Shards of a run's items, and merging shard directories into one run directory.

- ``--shard K/N`` selects the items whose stable hash of the item id falls in shard ``K`` of ``N``. Shards are
  counted from 0 (``0/4`` .. ``3/4``), as Kubernetes' ``JOB_COMPLETION_INDEX`` and a Slurm array
  ``--array=0-3`` count them. The hash is SHA-256 of the item id (never Python's ``hash``, which changes
  between processes), so every machine and every rerun puts an item in the same shard. The selection
  (``--limit``, ``--docs``) is made first, so the shards of one command partition the same items.
- ``merge_shards`` writes one run directory from shard directories of one configuration: their
  ``config.json`` must carry the same config hash (a mismatch names the fields that differ); an item finished
  in two directories counts once (the first directory given wins), a failed line is superseded by a finished
  one. The files are streamed: only an index of keys is held, never the records.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.lock import RunLock, live_owner, owner_text
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.results import ResultsStore, _differences
from debate_eval.tasks.engine.rundir import RunDir, ScanEnd, complete_lines, record_result_key, results_file_name
from debate_eval.tasks.engine.summary import SystemsComparison, compared_systems, priced_as_configured
from debate_eval.tasks.engine.tally import Tally

WORKERS_DIR = "workers"  # the folder under a run directory holding its --workers shards while they run
_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def parse_shard(text: str, source: str = "--shard") -> tuple[int, int]:
    """``"K/N"`` as ``(K, N)`` with ``0 <= K < N``; a one-line ``UserError`` otherwise."""
    match = _SHARD.match(str(text))
    if not match or int(match.group(2)) < 1 or int(match.group(1)) >= int(match.group(2)):
        raise UserError(f"{source}: expected K/N with 0 <= K < N (shards are counted from 0: 0/4 .. 3/4), got {text!r}")
    return int(match.group(1)), int(match.group(2))


def shard_of(item_id: object, count: int) -> int:
    """The shard (0 .. ``count`` - 1) of an item id: the first 8 bytes of its SHA-256, modulo ``count``."""
    digest = hashlib.sha256(str(item_id).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count


def in_shard(item_id: object, shard: tuple[int, int] | None) -> bool:
    """True when the item belongs to ``shard`` (``(K, N)``; None: every item does)."""
    return shard is None or shard_of(item_id, shard[1]) == shard[0]


def shard_dir_name(shard: tuple[int, int]) -> str:
    """The suffix of a shard's default run directory: ``shard-K-of-N``."""
    return f"shard-{shard[0]}-of-{shard[1]}"


def _shard_lines(
    directories: Sequence[Path], config_hash: str, report: MergeReport | None = None
) -> Iterator[tuple[int, int, bytes, Record]]:
    """The lines of the shards' results files written under ``config_hash``, in order, each with its
    directory's index, its line number and its bytes (with the newline); with ``report``, the other lines are
    counted (``other_config``). Each line is checked; a last line cut short by a crash is skipped with a notice."""
    for index, directory in enumerate(directories):
        end = ScanEnd()
        for number, record in RunDir(directory).iter_numbered(end):
            if record.config_hash != config_hash:
                if report is not None:
                    report.other_config += 1
                continue
            yield index, number, end.line if end.line.endswith(b"\n") else end.line + b"\n", record


@dataclass
class MergeReport:
    """What a merge wrote: lines kept, finished and failed items, lines left out and why."""

    out_dir: Path
    written: int = 0
    finished: int = 0
    failed: int = 0
    duplicates: int = 0  # finished lines of an item already finished in an earlier directory (counted once)
    superseded: int = 0  # failed lines replaced by a finished (or later failed) line of the same item
    other_config: int = 0  # lines of another configuration (an earlier run in the same directory)
    shards: list[list[int] | None] = field(default_factory=list)
    missing_shards: list[int] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report's lines, for the command line."""
        out = [
            f"merged into {RunDir(self.out_dir).results_path}: {self.written} items ({self.finished} finished, "
            f"{self.failed} failed)"
        ]
        dropped = []
        if self.duplicates:
            dropped.append(f"{self.duplicates} repeated finished lines counted once")
        if self.superseded:
            dropped.append(f"{self.superseded} failed lines superseded")
        if self.other_config:
            dropped.append(f"{self.other_config} lines of another configuration")
        if dropped:
            out.append("left out: " + ", ".join(dropped))
        if self.missing_shards:
            out.append(
                "note: shards " + ", ".join(str(k) for k in self.missing_shards) + " were not given; merge them "
                "too (or rerun them) for every item"
            )
        return out


def merge_shards(out_dir: Path, directories: Sequence[Path], systems: SystemsComparison | None = None) -> MergeReport:
    """Write one run directory ``out_dir`` from the shard directories (see the module docstring).

    ``out_dir`` must be new or empty (no ``results.jsonl``); it is written under its run lock, the results
    into a temporary file renamed into place, so an interrupted merge leaves no half file. Its ``summary.json``
    holds the merged run's totals, their estimated cost priced as the run of the shards' configuration prices
    its own, and, as a run's does, its systems block (``systems``: the caller's comparison, asked when a record
    names a system).
    """
    if not directories:
        raise UserError("merge: give at least one shard directory")
    directories = [Path(d) for d in directories]
    resolved = {d.resolve() for d in directories}
    if len(resolved) != len(directories):
        raise UserError("merge: a shard directory is given twice")
    if Path(out_dir).resolve() in resolved:
        raise UserError(f"{out_dir}: the output directory is one of the shard directories; use a new one")
    for directory in directories:  # a shard still running would be merged with part of its items
        owner = live_owner(directory)
        if owner is not None:
            raise UserError(
                f"{directory} is still being written by a debate-eval run ({owner_text(owner)}); merge it when that "
                "run has ended"
            )
    configs = [RunDir(d).run_config(merging=True) for d in directories]
    first = configs[0]
    for directory, config in zip(directories[1:], configs[1:], strict=True):  # one configuration, or one line
        if config["config_hash"] != first["config_hash"]:
            sides = (f"in {Path(directories[0]).name}", f"in {Path(directory).name}")
            differing = ", ".join(
                _differences(first.get("result_config", {}), config.get("result_config", {}), "", sides)
            )
            raise UserError(
                f"{directory} holds another configuration than {directories[0]} (differs in: "
                f"{differing or 'the configuration hash only: written by another version'}); merge only the "
                "shards of one command"
            )
    config_hash = str(first["config_hash"])
    report = MergeReport(out_dir=Path(out_dir))
    report.shards = [_shard_of_config(c) for c in configs]
    counts = {s[1] for s in report.shards if s}
    if len(counts) == 1:
        count = counts.pop()
        given = {s[0] for s in report.shards if s}
        report.missing_shards = [k for k in range(count) if k not in given]

    # pass 1: the winning line of every key (directory index, line number); only keys and two ints are held
    winner: dict[str, tuple[int, int, bool]] = {}
    for index, number, _, record in _shard_lines(directories, config_hash, report):
        key = record_result_key(record, True)  # one result per item and aspect, across the shards
        finished = record.ok
        held = winner.get(key)
        if held is None:
            winner[key] = (index, number, finished)
        elif held[2]:  # finished already: counted once
            if finished:
                report.duplicates += 1
            else:
                report.superseded += 1
        else:  # a failed line is superseded by any later line of the item
            report.superseded += 1
            winner[key] = (index, number, finished)

    out = Path(out_dir)
    run_dir = RunDir(out)
    lock = run_dir.take_lock()
    try:
        target = run_dir.results_path
        if target.exists() and target.stat().st_size:
            raise UserError(f"{out}: already holds {results_file_name()}; merge into a new directory")
        total = Tally()  # the run's own totals
        tmp = run_dir.results_temp_path()
        try:
            with tmp.open("wb") as handle:
                for index, number, raw, record in _shard_lines(directories, config_hash):
                    held = winner.get(record_result_key(record, True))
                    if held is not None and held[0] == index and held[1] == number:
                        handle.write(raw)
                        total.add(record)
                        report.written += 1
                        if held[2]:
                            report.finished += 1
                        else:
                            report.failed += 1
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise UserError(f"{target}: cannot write the merged results ({exc.strerror})") from None
        document = dict(configs[0])  # write_config seals it anew
        # the run options of the one command the shards split: no shard, no --workers (a one-process run's)
        document["run_options"] = {
            **(document.get("run_options") or {}),
            "shard": None,
            "workers": None,
            "out_dir": str(out),
        }
        document["merged_from"] = [str(d) for d in directories]
        run_dir.write_config(document)
        compared = compared_systems(total, lambda: run_dir.iter_records(messages=False), systems)
        cost = priced_as_configured(total, document)  # the shards' models (one configuration), as a run prices
        summary = {**total.to_dict(cost), **({"systems": compared} if compared else {})}
        run_dir.write_summary({**summary, "merged_from": document["merged_from"]})
    finally:
        lock.release()
    return report


def _shard_of_config(config: dict[str, Any]) -> list[int] | None:
    """The ``[K, N]`` a shard directory was run with (None: not a shard)."""
    shard = (config.get("run_options") or {}).get("shard")
    if isinstance(shard, list) and len(shard) == 2 and all(isinstance(v, int) for v in shard):
        return [int(shard[0]), int(shard[1])]
    return None


def drain_leftovers(out_dir: Path, store: ResultsStore, done: set[str], multi: bool) -> None:
    """Append what worker directories left by an earlier run hold (finished lines not in the run directory),
    then remove them. A worker directory whose worker still runs is refused in one line."""
    root = out_dir / WORKERS_DIR
    if not root.is_dir():
        return
    for directory in sorted(p for p in root.iterdir() if p.is_dir()):
        lock = RunLock(directory)
        lock.acquire()  # a worker of another run still at work: a one-line UserError naming it
        try:
            for raw, record in complete_lines(RunDir(directory).results_path):
                key = record_result_key(record, multi)
                if record.config_hash != store.config_hash or key in done or record.error:
                    continue
                done.add(key)
                store.append_raw(raw, record)
        finally:
            lock.release()
    shutil.rmtree(root, ignore_errors=True)
