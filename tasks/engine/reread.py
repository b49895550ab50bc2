"""Resuming a run under a newer parser: the finished records an older parser read are read again, so one run
never mixes two parsers.

Every record names the ``parser_version`` that read its answers (``debates.scoring.PARSER_VERSION``). When
``run`` resumes a run directory whose finished records were read by an older version (or by a version before
versions, no ``parser_version``), it reads each of them again from its transcript with the current rules, as
``debate-eval rescore`` does (the method's ``rescore`` / ``rescore_pairwise``; no model is called), before it
runs anything:

- ``ParserVersions`` collects the versions of the run's records from the store's index (``of_index``: no line
  is read when there is nothing to do).
- ``reread_run`` rewrites ``results.jsonl`` under the run lock: a line of another configuration, a failed
  item's line and a line the current parser read are copied byte for byte; every other line is re-read. The new
  file is written beside the old one, flushed to disk and renamed over it, so a run killed midway leaves the old
  file whole (its next resume does the work again). The run says so in one line and ``summary.json`` records it
  (``this_invocation.reread``).
- A record written before versions (no ``parser_version``, a directory of an earlier release) whose re-reading
  is the reading it holds stays as it is, byte for byte: the run does not mix two readings, and the directory
  keeps its format (``confirmed``; nothing is rewritten when every such record is confirmed).
- A record that cannot be re-read (its item is no longer in the dataset, it has no transcript, or its method's
  rescore fails on it) keeps its old reading and its old ``parser_version``, which says which parser read it;
  the run's line counts it, ``summary.json`` names it with the reason, and ``meta-eval`` and ``report`` warn that
  the run mixes parser versions (``mixed_versions_warning``). The next resume tries it again.
- Records read by a newer parser than this one (a newer debate-eval wrote them) are refused in one line: reading
  them again with older rules would undo a fix.

``reread_line`` is the re-reading of one record, shared with ``debate-eval rescore``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring import PARSER_VERSION
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.rundir import ResultsWriteError, fsync_directory, written_line

if TYPE_CHECKING:
    from debate_eval.debates.method import Method
    from debate_eval.debates.scoring.scores import ScoreRange
    from debate_eval.tasks.data.datasets import Item
    from debate_eval.tasks.engine.results import ResultsStore
    from debate_eval.tasks.engine.resume_index import IndexEntry
    from debate_eval.tasks.engine.run_config import RunConfig

TMP_SUFFIX = ".reread.tmp"  # ``.results.jsonl.<pid>.reread.tmp`` beside the results file while it is rewritten
KEPT_LISTED = 20  # the records that kept their old reading named in summary.json (the count is always there)


def version_text(version: int | None) -> str:
    """A parser version for a message: ``1``, or ``none`` for a record written before versions."""
    return "none" if version is None else str(version)


def is_older(version: int | None) -> bool:
    """Whether a record's ``parser_version`` is older than the current parser's (``None``: before versions)."""
    return not isinstance(version, int) or isinstance(version, bool) or version < PARSER_VERSION


@dataclass
class ParserVersions:
    """The parser versions of a run's finished records, from the results store's index (``of_index``)."""

    older: Counter[int | None] = field(default_factory=Counter)
    newer: Counter[int] = field(default_factory=Counter)

    @classmethod
    def of_index(cls, entries: Iterable[IndexEntry]) -> ParserVersions:
        """The versions of the run's finished records, from the results store's index (``ResultsStore.entries``:
        the last line of each key; no line is read)."""
        versions = cls()
        for entry in entries:
            version = entry.parser_version
            if not entry.mine or entry.failed:  # another configuration's, or no answer any parser read
                continue
            if is_older(version):
                versions.older[version] += 1
            elif version is not None and version > PARSER_VERSION:
                versions.newer[version] += 1
        return versions


@dataclass
class Reread:
    """What ``reread_run`` did: records re-read (by their old version) and those that kept their reading."""

    reread: Counter[int | None] = field(default_factory=Counter)
    kept_count: int = 0  # records that kept their older reading
    confirmed: int = 0  # records written before versions whose reading the current parser gives again (unchanged)
    kept: dict[str, str] = field(default_factory=dict)  # the first KEPT_LISTED of them -> why (item, reason)

    @property
    def records(self) -> int:
        """Records re-read and rewritten."""
        return sum(self.reread.values())

    def __bool__(self) -> bool:
        return bool(self.reread or self.kept_count)

    def line(self) -> str:
        """The run's one line about it."""
        parts = []
        if self.records:
            versions = ", ".join(version_text(v) for v in sorted(self.reread, key=version_order))
            parts.append(
                f"re-read {self.records} finished records of parser version {versions} from their transcripts "
                "(no model call)"
            )
        if self.kept_count:
            reason = next(iter(self.kept.values()))
            parts.append(
                f"{self.kept_count} finished records of an older version could not be re-read and keep their older "
                f"reading (first: {reason}; listed in summary.json)"
            )
        return f"debate-eval: parser version {PARSER_VERSION}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for ``summary.json``'s ``this_invocation.reread``."""
        return {
            "to_version": PARSER_VERSION,
            "records": self.records,
            "from_versions": {version_text(v): self.reread[v] for v in sorted(self.reread, key=version_order)},
            "kept": self.kept_count,
            "kept_items": dict(self.kept),
        }


def version_order(version: Any) -> tuple[int, int, str]:
    """A sort key of parser versions: none first, then by number (a hand-edited odd value last)."""
    if version is None:
        return (0, 0, "")
    if isinstance(version, int) and not isinstance(version, bool):
        return (1, version, "")
    return (2, 0, str(version))


def reread_run(
    store: ResultsStore,
    configs: Sequence[RunConfig],
    load_items: Callable[[], Iterable[Item]],
    stream: TextIO,
) -> Reread | None:
    """Re-read the run's finished records of an older parser (see the module docstring) and rewrite the
    results file, as a run does before it runs anything: its one line on ``stream`` when it re-read or kept a
    record; what it did (for ``summary.json``), or None when every record is of this parser (the dataset is
    then not loaded). Records a newer parser read are refused in one line naming the versions.

    ``configs``: the run's single-aspect configurations (each aspect's scale and method); ``load_items``: the
    dataset's items (the texts under evaluation, blanked out of answers as a run does).
    """
    versions = ParserVersions.of_index(store.entries().values())  # from the store's index: no line is read
    if versions.newer:
        found = ", ".join(str(v) for v in sorted(versions.newer))
        raise UserError(
            f"{store.out_dir}: {sum(versions.newer.values())} records were read by parser version {found}, newer "
            f"than this debate-eval's {PARSER_VERSION}; resume it with the newer debate-eval (or `debate-eval "
            "rescore` it to read them with this version's rules)"
        )
    if not versions.older:
        return None
    done = Reread()
    by_aspect = {config.aspect: config for config in configs}
    inputs = {str(item.item_id): dict(item.inputs) for item in load_items()}
    path = store.results_path
    for stale in store.run_dir.stale_results_temps(TMP_SUFFIX):  # left by a run killed while rewriting
        with contextlib.suppress(OSError):
            stale.unlink()
    tmp = store.run_dir.results_temp_path(TMP_SUFFIX)
    try:
        with tmp.open("wb") as target, path.open("rb") as source:
            for raw in source:  # one line at a time: the file is never held whole
                record = Record.from_json(json.loads(raw)) if raw.strip() else None
                if (
                    record is None
                    or record.config_hash != store.config_hash
                    or record.error
                    or not is_older(record.parser_version)
                ):
                    target.write(raw)
                    continue
                key = f"{record.key} ({record.aspect})" if store.by_aspect else record.key  # for summary.json
                why = _cannot_reread(record, by_aspect, inputs)
                if why is None:
                    try:
                        new = reread_record(record, by_aspect[record.aspect], inputs[record.key])
                    except (KeyboardInterrupt, SystemExit, MemoryError):
                        raise
                    except Exception as exc:  # one odd record keeps its reading; the run goes on
                        why = f"{record.key}: its method's rescore failed ({type(exc).__name__})"
                if why is not None:
                    done.kept_count += 1
                    if len(done.kept) < KEPT_LISTED:
                        done.kept[key] = why
                    target.write(raw)
                    continue
                if record.parser_version is None and _same_reading(new, record):
                    # written before versions and read as this parser reads it: the line stays byte for byte
                    # (a directory of an earlier release keeps its format, without the confidence a re-read
                    # derives: `rescore` adds it), and the next resume checks it again
                    done.confirmed += 1
                    target.write(raw)
                    continue
                target.write(written_line(new.to_json()))  # as every line written: no configured secret
                done.reread[record.parser_version] += 1
            target.flush()
            os.fsync(target.fileno())
        if done.records:
            os.replace(tmp, path)
            fsync_directory(store.out_dir)
    except OSError as exc:
        raise ResultsWriteError(
            f"{path}: cannot rewrite the results file to re-read its older records ({exc.strerror}); it is unchanged"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    if done.records:
        store.reread_index()
    if not done:
        return None
    print(done.line(), file=stream)
    return done


def _same_reading(new: Record, record: Record) -> bool:
    """Whether ``new`` (``record`` read again) reads it as it was written: the same line but for the parser
    version and the confidence the re-read derived (``confidence`` and ``details.confidence_basis``)."""
    details = {k: v for k, v in (new.details or {}).items() if k != "confidence_basis"}
    plain = new.replace(
        parser_version=None,
        confidence=record.confidence,
        details=details if details or record.details is not None else None,
    )
    return plain.to_json() == record.to_json()


def _cannot_reread(record: Record, by_aspect: Mapping[str, RunConfig], inputs: Mapping[str, Any]) -> str | None:
    """Why a record's transcript cannot be re-read, or None when it can."""
    if record.aspect not in by_aspect:
        return f"{record.key}: aspect {record.aspect} is not one of this run's"
    if record.key not in inputs:
        return f"{record.key}: the item is no longer in the dataset"
    if not record.transcript:
        return f"{record.key}: no transcript"
    return None


def reread_record(record: Record, config: RunConfig, inputs: Mapping[str, Any]) -> Record:
    """``record`` read again by the current parser, named with the current ``parser_version`` (``config``: its
    aspect's configuration, for the method and the scale; ``inputs``: its item's texts under evaluation)."""
    texts = [str(text) for text in inputs.values()]
    again = reread_line(record, config.method, config.template.scale, texts)
    from debate_eval.tasks.engine.judged import flag_truncated  # the run's own check

    if again.truncated and again.judged:  # the new reading found a score in the cut answer
        again = again.replace(truncated=None)
    elif not again.judged:
        again = flag_truncated(again.replace(truncated=None))
    return again


def reread_line(record: Record, method: Method, scale: ScoreRange | None, texts: Sequence[str]) -> Record:
    """A copy of one result line's record with its answers parsed again as a run parses them, named with the
    current ``parser_version``: a pairwise record's verdicts by ``method.rescore_pairwise``; otherwise every
    transcript entry's score as the method's run read it (``method.reparser``: its scale, its reading of a
    message), then the record's own score by ``method.rescore`` (``texts``: the item's texts under evaluation,
    blanked out of the answers first)."""
    from debate_eval.debates.method import Reparser
    from debate_eval.debates.scoring.untrusted import UntrustedMaterial

    if record.pairwise:
        new = method.rescore_pairwise(record, list(texts))
    else:
        transcript = [message.to_dict() for message in record.transcript]
        generic = Reparser(transcript, scale, record.aspect, UntrustedMaterial(list(texts)))
        reparse = method.reparser(record, generic)  # as the run read its answers (its scale, its reading)
        for entry in transcript:
            if "score" in entry:
                entry["score"] = reparse.read(entry).to_dict()
        new = method.rescore(record.replace(transcript=transcript), reparse)
    from debate_eval.debates.kit.confidence import with_confidence

    return with_confidence(method, new).replace(parser_version=PARSER_VERSION)


def mixed_versions_warning(records: Iterable[Any], where: object) -> str | None:
    """The one-line warning of a reader (``meta-eval``, ``report``) when the finished ``records`` it read were read
    by more than one parser version; None when they were not. ``records``: objects with ``parser_version`` and
    ``error`` (a ``Record``, a meta-evaluation row) or JSON objects of result lines."""
    counts: Counter[int | None] = Counter()
    for one in records:
        record = Record.from_json(one, messages=False) if isinstance(one, Mapping) else one
        if not record.error:
            counts[record.parser_version] += 1
    if len(counts) < 2:
        return None
    parts = ", ".join(f"{counts[v]} by version {version_text(v)}" for v in sorted(counts, key=version_order))
    return (
        f"debate-eval: warning: {where}: its records were read by different parser versions ({parts}); resume the "
        f"run or `debate-eval rescore` it so that one parser (version {PARSER_VERSION}) reads them all"
    )
