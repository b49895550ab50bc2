"""The two meta-evaluation datasets (SummEval and Topical-Chat): where they live, and strict loaders.

The loaders turn each JSON row into an :class:`Item` and refuse anything malformed with a
:class:`UserError` whose message names the file and, for a row problem, the 0-based row index and the
field, for example ``summeval.json: row 17: field "scores.coherence": expected a number, got "high"``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError

DATA_DIR_ENV = "DEBATE_EVAL_DATA_DIR"
_SCALE_TOLERANCE = 1e-9
_SHOWN_TEXT_CHARS = 60


@dataclass(frozen=True)
class Item:
    """One (input, system output) pair with its human scores."""

    item_id: str
    dataset: str
    group_id: str
    system_id: str
    inputs: Mapping[str, str] = field(hash=False)
    human_scores: Mapping[str, float] = field(hash=False)
    row_index: int


@dataclass(frozen=True)
class DatasetSpec:
    """What the project knows about one dataset file: location, evaluable aspects and upstream checksum."""

    name: str
    relative_path: str
    aspects: Mapping[str, tuple[float, float]] = field(hash=False)
    kind: str
    upstream_url: str
    git_blob_id: str
    size_bytes: int

    @property
    def file_name(self) -> str:
        """The file's base name, e.g. ``summeval.json``."""
        return Path(self.relative_path).name


DATASETS: dict[str, DatasetSpec] = {
    "summeval": DatasetSpec(
        name="summeval",
        relative_path="summeval/summeval.json",
        aspects={
            "coherence": (1.0, 5.0),
            "consistency": (1.0, 5.0),
            "fluency": (1.0, 5.0),
            "relevance": (1.0, 5.0),
        },
        kind="summarization",
        upstream_url="https://raw.githubusercontent.com/nlpyang/geval/main/data/summeval.json",
        git_blob_id="812a51e6727b4a64e661603fa350d76586ef7de0",
        size_bytes=5_052_406,
    ),
    "topical_chat": DatasetSpec(
        name="topical_chat",
        relative_path="topical_chat/topical_chat.json",
        aspects={
            "naturalness": (1.0, 3.0),
            "coherence": (1.0, 3.0),
            "engagingness": (1.0, 3.0),
            "groundedness": (0.0, 1.0),
        },
        kind="dialogue",
        upstream_url=(
            "https://raw.githubusercontent.com/maszhongming/UniEval/main/reproduce/data/dialogue/topical_chat.json"
        ),
        git_blob_id="b1d805141da0c7896888b5843a0cbc8f2cc26e30",
        size_bytes=669_279,
    ),
}


# --------------------------------------------------------------------------------------------------
# Data directory and lookups


def default_data_dir() -> Path:
    """``$XDG_CACHE_HOME/debate-eval/data``, or ``~/.cache/debate-eval/data`` when that is unset."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    cache = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return cache / "debate-eval" / "data"


def resolve_data_dir(cli_value: str | Path | None) -> Path:
    """The data folder: ``--data-dir`` if given, else ``$DEBATE_EVAL_DATA_DIR``, else the default.

    The folder is not required to exist.
    """
    if cli_value is not None and str(cli_value) != "":
        return Path(cli_value).expanduser()
    from_env = os.environ.get(DATA_DIR_ENV, "")
    if from_env:
        return Path(from_env).expanduser()
    return default_data_dir()


def get_dataset(name: str) -> DatasetSpec:
    """The spec of a dataset by name; an unknown name is a :class:`UserError` listing the valid ones."""
    try:
        return DATASETS[name]
    except (KeyError, TypeError):
        raise UserError(f"unknown dataset {name!r}; valid datasets: {', '.join(DATASETS)}") from None


def check_aspect(dataset: str, aspect: str) -> None:
    """Raise a :class:`UserError` unless ``aspect`` is one the project evaluates on ``dataset``."""
    spec = get_dataset(dataset)
    if aspect not in spec.aspects:
        raise UserError(f"unknown aspect {aspect!r} for dataset {dataset}; valid aspects: {', '.join(spec.aspects)}")


def git_blob_id(data: bytes) -> str:
    """The id ``git hash-object`` prints for a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def topical_chat_context_id(source: str) -> str:
    """A stable id for a Topical-Chat dialogue context, derived from its text alone."""
    return "tc-" + hashlib.sha1(source.encode("utf-8")).hexdigest()[:10]


# --------------------------------------------------------------------------------------------------
# Loading


def load_items(dataset: str, data_dir: Path) -> list[Item]:
    """Load and validate one dataset from ``data_dir`` (laid out as ``DatasetSpec.relative_path``)."""
    spec = get_dataset(dataset)
    path = Path(data_dir) / spec.relative_path
    if not path.is_file():
        raise UserError(
            f"{path}: dataset file {spec.name} not found; run `debate-eval data download` to fetch it, "
            f"or pass --data-dir / set {DATA_DIR_ENV} to a folder that has {spec.relative_path}"
        )
    return _LOADERS[spec.name](path)


def load_summeval(path: Path) -> list[Item]:
    """Load and validate a SummEval file (G-Eval/UniEval format) into items grouped by ``doc_id``."""
    spec = DATASETS["summeval"]
    rows = _read_rows(path)
    items: list[Item] = []
    seen: dict[tuple[str, str], int] = {}
    for index, raw in enumerate(rows):
        row = _Row(path, index, raw)
        doc_id = row.text("doc_id")
        system_id = row.text("system_id")
        document = row.text("source")
        summary = row.text("system_output")
        row.optional_string("reference")
        scores = row.scores(spec)
        _check_unique(row, seen, (doc_id, system_id), ("doc_id", "system_id"))
        items.append(
            Item(
                item_id=f"{doc_id}/{system_id}",
                dataset=spec.name,
                group_id=doc_id,
                system_id=system_id,
                inputs={"Document": document, "Summary": summary},
                human_scores=scores,
                row_index=index,
            )
        )
    return items


def load_topical_chat(path: Path) -> list[Item]:
    """Load and validate a Topical-Chat file (UniEval format); contexts are grouped by their text."""
    spec = DATASETS["topical_chat"]
    rows = _read_rows(path)
    items: list[Item] = []
    seen: dict[tuple[str, str], int] = {}
    sources: dict[str, str] = {}
    for index, raw in enumerate(rows):
        row = _Row(path, index, raw)
        dialogue = row.text("source")
        system_id = row.text("system_id")
        response = row.text("system_output")
        fact = row.text("context")
        scores = row.scores(spec)
        context_id = topical_chat_context_id(dialogue)
        if sources.setdefault(context_id, dialogue) != dialogue:
            raise row.error("source", f"two different dialogues share the context id {context_id}")
        _check_unique(row, seen, (context_id, system_id), ("source", "system_id"))
        items.append(
            Item(
                item_id=f"{context_id}/{system_id}",
                dataset=spec.name,
                group_id=context_id,
                system_id=system_id,
                inputs={"Dialogue": dialogue, "Fact": fact, "Response": response},
                human_scores=scores,
                row_index=index,
            )
        )
    return items


_LOADERS: dict[str, Callable[[Path], list[Item]]] = {
    "summeval": load_summeval,
    "topical_chat": load_topical_chat,
}


def select_items(items: Sequence[Item], *, limit: int | None = None, docs: int | None = None) -> list[Item]:
    """A subset of ``items`` in file order.

    ``docs=K`` keeps the first K groups (in order of first appearance) with all their items; ``limit=N``
    then keeps the first N items. Both must be positive integers when given.
    """
    _check_positive("--limit", limit)
    _check_positive("--docs", docs)
    selected = list(items)
    if docs is not None:
        groups = list(dict.fromkeys(item.group_id for item in selected))[:docs]
        wanted = set(groups)
        selected = [item for item in selected if item.group_id in wanted]
    if limit is not None:
        selected = selected[:limit]
    return selected


def _check_positive(option: str, value: int | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UserError(f"{option} must be a positive whole number, got {value!r}")


# --------------------------------------------------------------------------------------------------
# Validation helpers


def _read_rows(path: Path) -> list[Any]:
    """The top-level JSON list of ``path``; any decoding problem is a :class:`UserError`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read the file: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not valid UTF-8 at byte offset {exc.start} ({exc.reason})") from None
    try:
        rows = json.loads(text)
    except json.JSONDecodeError as exc:
        truncated = exc.pos >= len(text.rstrip()) or exc.msg.startswith("Unterminated string")
        hint = " (the file looks truncated)" if truncated else ""
        raise UserError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{hint}") from None
    if not isinstance(rows, list):
        raise UserError(f"{path}: expected a JSON list of rows at the top level, got {_describe(rows)}")
    if not rows:
        raise UserError(f"{path}: the file has no rows (an empty JSON list)")
    return rows


class _Row:
    """One JSON row being validated; every error it raises names the file, the row and the field."""

    def __init__(self, path: Path, index: int, raw: Any) -> None:
        self.path = path
        self.index = index
        if not isinstance(raw, dict):
            raise UserError(f"{path}: row {index}: expected an object, got {_describe(raw)}")
        self.raw: dict[str, Any] = raw

    def error(self, field_name: str, message: str) -> UserError:
        """A :class:`UserError` about one field of this row."""
        return UserError(f"{self.path}: row {self.index}: field {json.dumps(field_name)}: {message}")

    def _get(self, name: str) -> Any:
        if name not in self.raw:
            present = ", ".join(sorted(self.raw)) or "none"
            raise self.error(name, f"missing (the row has: {present})")
        return self.raw[name]

    def text(self, name: str) -> str:
        """A required string field that is not empty or whitespace-only."""
        value = self._get(name)
        if not isinstance(value, str):
            raise self.error(name, f"expected a string, got {_describe(value)}")
        if not value.strip():
            raise self.error(name, "empty text" if not value else "whitespace-only text")
        return value

    def optional_string(self, name: str) -> None:
        """A field that may be absent but must be a string when present."""
        if name in self.raw and not isinstance(self.raw[name], str):
            raise self.error(name, f"expected a string, got {_describe(self.raw[name])}")

    def scores(self, spec: DatasetSpec) -> dict[str, float]:
        """All scores as floats: every entry a finite number, the spec's aspects present and on scale."""
        scores = self._get("scores")
        if not isinstance(scores, dict):
            raise self.error("scores", f"expected an object, got {_describe(scores)}")
        result = {key: self._number(f"scores.{key}", value) for key, value in scores.items()}
        for aspect, (low, high) in spec.aspects.items():
            if aspect not in result:
                raise self.error(f"scores.{aspect}", f"missing (the scores have: {', '.join(result) or 'none'})")
            value = result[aspect]
            if not low - _SCALE_TOLERANCE <= value <= high + _SCALE_TOLERANCE:
                raise self.error(f"scores.{aspect}", f"{value:g} is outside the {aspect} scale {low:g}-{high:g}")
        return result

    def _number(self, name: str, value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.error(name, f"expected a number, got {_describe(value)}")
        if not math.isfinite(value):
            raise self.error(name, f"expected a finite number, got {value}")
        return float(value)


def _check_unique(row: _Row, seen: dict[tuple[str, str], int], key: tuple[str, str], fields: tuple[str, str]) -> None:
    first = seen.setdefault(key, row.index)
    if first != row.index:
        names = ", ".join(json.dumps(name) for name in fields)
        raise UserError(
            f"{row.path}: row {row.index}: fields {names}: duplicate item {key[0]}/{key[1]} (first seen at row {first})"
        )


def _describe(value: Any) -> str:
    """A short JSON-style description of a value for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        shown = value if len(value) <= _SHOWN_TEXT_CHARS else value[:_SHOWN_TEXT_CHARS] + "…"
        return json.dumps(shown, ensure_ascii=False)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return repr(value)
