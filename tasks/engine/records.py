"""The one validator of result records: what resume, meta-eval and every other reader accept.

A record is one line of a run's ``results.jsonl``. Every reader checks it with :func:`validate_record`, so a
line that one command accepts is never rejected by another (resume used to take a line without ``item_id``
that meta-eval then refused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError

REQUIRED_KEYS = ("item_id", "dataset", "aspect")
NUMBER_KEYS = ("score", "human_score")
VERDICTS = ("first", "second", "tie")
PAIRWISE = "pairwise"


def validate_record(record: Any, path: Path | str, line_number: int) -> dict[str, Any]:
    """``record`` itself when it is a usable result record, else a one-line ``UserError``.

    The error names the file, the line (counted from 1) and the field. Checked: a JSON object; ``item_id``,
    ``dataset`` and ``aspect`` present (``item_id`` a string or an integer); ``score`` and ``human_score``
    numbers or null; for pairwise records, ``verdict``/``human_label`` one of first, second, tie or null and
    ``consistent`` a boolean or null.
    """
    where = f"{path}: line {line_number} (counted from 1)"
    if not isinstance(record, dict):
        raise UserError(f"{where} is not a JSON object; is this a results.jsonl file?")
    missing = [key for key in REQUIRED_KEYS if record.get(key) is None or record.get(key) == ""]
    if missing:
        raise UserError(f"{where} has no {', '.join(missing)}; is this a results.jsonl file?")
    item_id = record["item_id"]
    if isinstance(item_id, bool) or not isinstance(item_id, str | int):
        raise UserError(f"{where}: item_id must be a string, not {item_id!r}")
    for key in NUMBER_KEYS:
        value = record.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise UserError(f"{where}: {key} must be a number or null, not {value!r}")
    if record.get("task_type") == PAIRWISE:
        for key in ("verdict", "human_label"):
            value = record.get(key)
            if value is not None and value not in VERDICTS:
                raise UserError(f"{where}: {key} must be one of {', '.join(VERDICTS)} or null, not {value!r}")
        consistent = record.get("consistent")
        if consistent is not None and not isinstance(consistent, bool):
            raise UserError(f"{where}: consistent must be true, false or null, not {consistent!r}")
    return record
