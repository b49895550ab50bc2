"""What a ``Judge`` checks in its keywords and inputs before it judges, as ``run`` checks its flags and input
file: the run options it has no use for, the texts, the ids, and one text per id; and the digests that name
inputs given without an id."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.own_rows import SINGLE_INPUT_ORDER

SINGLE_INPUTS = SINGLE_INPUT_ORDER  # context, source, reference, output (the text judged last)
_TEXTS = "give the texts to score(), compare() or score_many()"
RUN_ONLY = {  # the run options a judge has no use for (they were ignored), each with what takes its place
    **dict.fromkeys(("dataset", "data_dir", "fields", "labels", "language", "limit", "docs"), _TEXTS),
    "out": "record_to=DIR keeps the judgments",
    "swap": "compare(..., swap=True) judges both orders",
    **dict.fromkeys(("progress", "quiet", "no_progress"), "score_many(..., progress=True) shows a bar"),
    **dict.fromkeys(("shard", "workers", "ray"), "a judge's calls run in this process, concurrency= at a time"),
    **dict.fromkeys(("batch", "batch_max_requests", "batch_wait", "batch_poll"), "a judge sends each call at once"),
}


def sha256_of(value: Mapping[str, Any]) -> str:
    """The SHA-256 (hex) of ``value`` as sorted JSON: the identity of a judge's inputs."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def judgment_digest(inputs: Mapping[str, str], system: str | None) -> str:
    """The SHA-256 of a judgment's inputs and system (``details.judge_inputs_sha256``; one system's output
    is not another's)."""
    return sha256_of(inputs if system is None else {**inputs, "\x00system": system})


def inputs_digest(inputs: Mapping[str, str], exclude: str) -> str:
    """A short SHA-256 of ``inputs`` without ``exclude`` (the inputs several systems' outputs share)."""
    return sha256_of({name: value for name, value in inputs.items() if name != exclude})[:16]


def check_text(call: str, name: str, value: str, *, required: bool) -> None:
    """Refuse text a run's input file could not hold: a lone surrogate (not encodable as UTF-8), or, for an
    input a run requires (``output``, a given ``source``), empty or whitespace-only text, as ``run`` refuses
    such a cell."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UserError(
            f"{call}: {name} is not valid text: a lone surrogate {value[error.start]!r} at character "
            f"{error.start + 1} (counted from 1)"
        ) from None
    if required and not value.strip():
        raise UserError(f"{call}: {name} is {'empty' if not value else 'whitespace-only text'}: give the text to judge")


def item_id_of(call: str, value: Any) -> str | None:
    """``id`` as text (a whole number as its digits), refused as ``run`` refuses an id cell: not text, empty or
    whitespace-only (such an id made a line every reader of the directory refuses)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise UserError(f"{call}: id must be text, got {type(value).__name__}")
    text = str(value)
    if not text.strip():
        raise UserError(f"{call}: id is {'empty' if not text else 'whitespace-only text'}: give text, or no id")
    return text


def one_text_per_id(rows: Iterable[Mapping[str, Any] | str], record_to: Path) -> None:
    """Refuse rows that give one ``id`` to other texts (a second ``score(id=...)`` on other inputs is refused
    too): both would be judged and recorded under that id."""
    seen: dict[str, tuple[int, Any]] = {}
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, Mapping) or row.get("id") is None:
            continue
        texts = tuple(row.get(name) for name in (*SINGLE_INPUTS, "system"))
        first = seen.setdefault(str(row["id"]), (number, texts))
        if first[1] != texts:
            raise UserError(
                f"score_many: rows {first[0]} and {number} (counted from 1) give the id {str(row['id'])!r} to other "
                f"texts; {record_to} would hold both: give each its own id"
            )
