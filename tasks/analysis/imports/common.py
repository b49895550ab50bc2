"""What every importer shares: reading the file, joining rows to a dataset's items, parsing answers as a run
does, building records that ``show``, ``rescore`` and ``meta-eval`` accept, and writing the run directory.

An imported record looks like a run's record (``item_id``, ``dataset``, ``aspect``, ``protocol``, ``group_id``,
``human_score``/``human_label``, ``score``/``verdict`` and their parse fields, ``decided_by``, a
``transcript`` holding the judge's raw text) plus ``imported``: the format, file and row (counted from 1) it
came from. Rows whose id matches no item of the dataset are listed (count and first five), never dropped
silently.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange, parse_score
from debate_eval.debates.scoring.untrusted import UntrustedMaterial
from debate_eval.debates.scoring.verdicts import ParsedVerdict, parse_verdict, planted_verdicts
from debate_eval.tasks.data.datasets import Item, load_items
from debate_eval.tasks.engine.rundir import RunDir, written_line

SHOWN_UNMATCHED = 5


@dataclass
class ImportResult:
    """The records an importer built, the ids it could not join, and notes for the summary."""

    records: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def item(self, items: Mapping[str, Item], item_id: str) -> Item | None:
        """The dataset's item of ``item_id``; None, and the id noted as unmatched, when the dataset has none."""
        found = items.get(item_id)
        if found is None:
            self.unmatched.append(item_id)
        return found

    def extend(self, other: ImportResult) -> None:
        """Add another file's result."""
        self.records += other.records
        self.unmatched += other.unmatched
        self.notes += other.notes


def read_text(path: Path) -> str:
    """A UTF-8 file's text (a byte-order mark an editor adds is dropped, as every data file's); a missing or
    undecodable file is one ``UserError`` line."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise UserError(f"{path}: not UTF-8 text") from None


def read_json_rows(path: Path) -> list[dict[str, Any]]:
    """A JSON file holding a list of objects; anything else (a missing or malformed file too) is one ``UserError``
    line (rows counted from 1)."""
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    if not isinstance(data, list):
        raise UserError(f"{path}: expected a JSON list of rows, got {type(data).__name__}")
    for number, row in enumerate(data, start=1):
        if not isinstance(row, dict):
            raise UserError(f"{path}: row {number} (counted from 1) is not a JSON object")
    return data


def items_by_id(dataset: str, data_dir: str | None) -> dict[str, Item]:
    """The dataset's items by id (the dataset must be registered)."""
    return {item.item_id: item for item in load_items(dataset, data_dir)}


def unmatched_line(ids: Sequence[str], dataset: str) -> str | None:
    """``"3 rows matched no item of summeval (first five: a, b, c)"``, or None when every row matched."""
    if not ids:
        return None
    shown = ", ".join(ids[:SHOWN_UNMATCHED])
    return f"{len(ids)} rows matched no item of {dataset} and are not in the run (first five: {shown})"


def material_of(item: Item) -> UntrustedMaterial:
    """The texts under evaluation of ``item``: copies of them in an answer are blanked before parsing."""
    return UntrustedMaterial([text for text in item.inputs.values() if text])


def parse_answer(text: str, item: Item, scale: ScoreRange, aspect: str) -> ParsedScore:
    """Parse a judge's answer exactly as a run does (copied texts under evaluation blanked first)."""
    return parse_score(material_of(item).neutralize(text), scale, aspect)


def parse_pairwise_answer(text: str, item: Item) -> ParsedVerdict:
    """Parse a pairwise answer as a run does (verdict phrases planted in the judged texts decide nothing)."""
    planted = planted_verdicts([t for t in item.inputs.values() if t])
    return parse_verdict(material_of(item).neutralize(text), planted)


def summeval_id(row: Mapping[str, Any], where: str) -> str:
    """The SummEval item id (``doc_id/system_id``) of a released row; a one-line error at ``where`` (the file and
    row) when either field is not text."""
    for key in ("doc_id", "system_id"):
        if not isinstance(row.get(key), str):
            raise UserError(f"{where}: field {key!r} is missing or not text")
    return f"{row['doc_id']}/{row['system_id']}"


def no_call_fields() -> dict[str, Any]:
    """The fields of an imported record that a run's model calls would set: no error, nothing asked again, no
    rounds, no usage, no calls."""
    return {
        "error": None,
        "reasked": False,
        "agreed": None,
        "rounds": 0,
        "usage": {},
        "llm_calls": 0,
        "cached_calls": 0,
    }


def base_record(item: Item, aspect: str, protocol: str, source: Mapping[str, Any]) -> dict[str, Any]:
    """The fields every imported record has (identity, human rating, where it came from)."""
    return {
        "item_id": item.item_id,
        "dataset": item.dataset,
        "aspect": aspect,
        "method": protocol,
        "group_id": item.group_id,
        "system_id": item.system_id,
        "task_type": item.task_type,
        "imported": dict(source),
        **no_call_fields(),
        **(
            {"human_label": item.human_label}
            if item.task_type == "pairwise"
            else {"human_score": item.human_scores.get(aspect)}
        ),
    }


def score_fields(parsed: ParsedScore, value: float | None = None) -> dict[str, Any]:
    """``score`` and the parse fields of a record (``value`` overrides the parsed value, e.g. a sample mean)."""
    return {
        "score": value if value is not None else (parsed.value if parsed.ok else None),
        "parse_status": parsed.status,
        "parse_method": parsed.method,
        "parse_reason": parsed.reason,
    }


def transcript_entry(index: int, agent: str, role: str, content: str, parsed: Any = None) -> dict[str, Any]:
    """One transcript entry holding a judge's raw text (and, when parsed, the parse)."""
    entry: dict[str, Any] = {"index": index, "agent": agent, "role": role, "content": content}
    if isinstance(parsed, ParsedScore):
        entry["score"] = parsed.to_dict()
    elif isinstance(parsed, ParsedVerdict):
        entry["verdict"] = parsed.to_dict()
    return entry


def config_payload(
    dataset: str, aspect: str, protocol: str, scale: ScoreRange | None, fmt: str, files: Iterable[Path], options: dict
) -> dict[str, Any]:
    """A ``config.json`` for an imported run: what ``rescore`` and ``show`` read, and what was imported."""
    result_config = {
        "dataset": dataset,
        "aspect": aspect,
        "protocol": protocol,
        "template": {"source": f"import:{fmt}", "sha256": None, "scale": str(scale) if scale else None, "text": None},
        "import": {"format": fmt, "files": [str(f) for f in files], "options": options},
    }
    digest = hashlib.sha256(json.dumps(result_config, sort_keys=True).encode("utf-8")).hexdigest()[:16]
    return {"config_hash": digest, "result_config": result_config}


def check_new_out(out_dir: Path) -> None:
    """A ``UserError`` when ``out_dir`` already holds results (an import never writes over a run)."""
    results = RunDir(out_dir).results_path
    if results.exists() and results.stat().st_size > 0:
        raise UserError(f"{out_dir} already holds results ({results}); import into a new --out directory")


def write_run(out_dir: Path, config: dict[str, Any], records: Sequence[dict[str, Any]]) -> Path:
    """Write ``config.json`` and ``results.jsonl`` into a new (or empty) ``out_dir``; never overwrite results.
    Each line is written as a run writes it (``written_line``: every configured secret masked)."""
    run_dir = RunDir(out_dir)
    results = run_dir.results_path
    check_new_out(out_dir)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"{out_dir}: cannot create the output directory: {exc.strerror}") from None
    for record in records:
        record.update(config_hash=config["config_hash"])
    run_dir.write_config(config, seal=False)
    tmp = results.with_suffix(".jsonl.tmp")
    with tmp.open("wb") as handle:
        for record in records:
            handle.write(written_line(record))
    tmp.replace(results)
    return results


def verdict_fields(parsed: ParsedVerdict, item: Item) -> dict[str, Any]:
    """The pairwise fields of a record, as a pairwise run writes them (``inputs`` kept for ``show``)."""
    return {
        "verdict": parsed.value if parsed.ok else None,
        "score": None,
        "parse_status": parsed.status,
        "parse_method": parsed.method,
        "parse_reason": parsed.reason,
        "verdict_parse": parsed.to_dict(),
        "inputs": {key: str(item.inputs.get(key) or "") for key in ("question", "input", "output_a", "output_b")},
    }
