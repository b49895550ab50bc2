"""Data given as an object rather than a .jsonl/.csv/.json file: a list of dicts, a pandas ``DataFrame``, a
Hugging Face ``datasets.Dataset``, a ``.parquet`` file, or ``hf:NAME[:CONFIG][:SPLIT]`` (also spelt
``hf://NAME[:CONFIG][:SPLIT]``; NAME is a Hub name in the local Hugging Face cache, or a folder written by
``Dataset.save_to_disk`` or holding data files).

Such data is validated exactly as an own file (``own_rows.validate_rows``: the same ``--fields`` mapping
and the same one-line errors, the row counted from 1, naming ``DataFrame``, ``list of dicts`` or the
``hf:`` spec instead of a file), then written once as JSON lines into the run directory (``data.jsonl``),
which the run then reads as the user's own file: resume, ``show``, ``rescore`` and ``report`` work on it as
on any run, and its git blob id is part of the run's identity.

pandas reads Parquet (with pyarrow, which the ``[hf]`` extra brings); ``datasets`` is the ``[hf]`` extra.
No network is used: a Hub set must already be in the local cache.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.rows import describe

DATA_FILE = "data.jsonl"  # the run directory's copy of data given as an object
HF_PREFIXES = ("hf://", "hf:")
HF_EXTRA = "pip install 'debate-eval[hf]'"


def is_hf_spec(value: object) -> bool:
    """Whether ``value`` is an ``hf:`` / ``hf://`` data spec."""
    return isinstance(value, str) and value.startswith(HF_PREFIXES)


def is_parquet(value: object) -> bool:
    """Whether ``value`` names a ``.parquet`` file."""
    return isinstance(value, (str, os.PathLike)) and os.fspath(value).lower().endswith(".parquet")


def needs_copy(value: object) -> bool:
    """Whether ``value`` is data the run reads from a copy in its directory (not a name or an own file)."""
    return not isinstance(value, (str, os.PathLike)) or is_hf_spec(value) or is_parquet(value)


def parse_hf_spec(spec: str) -> tuple[str, str | None, str | None]:
    """``hf:NAME[:CONFIG][:SPLIT]`` -> (NAME, CONFIG, SPLIT); an empty part is None."""
    body = spec.removeprefix("hf://") if spec.startswith("hf://") else spec.removeprefix("hf:")
    parts = body.split(":")
    if not parts[0] or len(parts) > 3:
        raise UserError(f"{spec}: expected hf:NAME, hf:NAME:CONFIG or hf:NAME:CONFIG:SPLIT")
    name, config, split = (parts + [None, None])[:3]  # type: ignore[list-item]
    return name, config or None, split or None


def table_rows(data: Any) -> tuple[list[dict[str, Any]], list[str], str]:
    """The rows, column names and label (what messages name) of ``data``: a list of dicts, a DataFrame, a
    ``datasets.Dataset``, a ``.parquet`` path or an ``hf:`` spec."""
    if is_hf_spec(data):
        return _rows_of_dataset(load_hf(str(data)), str(data))
    if is_parquet(data):
        return _rows_of_frame(_read_parquet(Path(os.fspath(data))), os.fspath(data))
    kind = type(data)
    if kind.__module__.startswith("pandas") and kind.__name__ == "DataFrame":
        return _rows_of_frame(data, "DataFrame")
    if kind.__module__.startswith("datasets") and kind.__name__ == "Dataset":
        return _rows_of_dataset(data, "datasets.Dataset")
    if kind.__module__.startswith("datasets") and kind.__name__ in ("DatasetDict", "IterableDatasetDict"):
        splits = ", ".join(data)
        raise UserError(f"datasets.DatasetDict: give one split, e.g. data[{next(iter(data), 'train')!r}] ({splits})")
    if isinstance(data, Sequence) and not isinstance(data, (str, bytes)):
        label = "list of dicts"
        for index, row in enumerate(data):
            if not isinstance(row, Mapping):
                raise UserError(f"{label}: row {index + 1} (counted from 1): expected a dict, got {describe(row)}")
        rows = [{str(key): _plain(value) for key, value in row.items()} for row in data]
        return rows, list(dict.fromkeys(key for row in rows for key in row)), label
    raise UserError(
        f"data: expected a dataset name, a file path, a list of dicts, a pandas DataFrame or a datasets.Dataset, "
        f"got {kind.__name__}"
    )


def _rows_of_frame(frame: Any, label: str) -> tuple[list[dict[str, Any]], list[str], str]:
    columns = [str(column) for column in frame.columns]
    if len(set(columns)) != len(columns):
        raise UserError(f"{label}: two columns have the same name ({', '.join(columns)})")
    rows = [
        {column: _plain(value) for column, value in zip(columns, values, strict=True)}
        for values in frame.itertuples(index=False, name=None)
    ]
    return rows, columns, label


def _rows_of_dataset(dataset: Any, label: str) -> tuple[list[dict[str, Any]], list[str], str]:
    columns = [str(column) for column in dataset.column_names]
    return [{key: _plain(value) for key, value in row.items()} for row in dataset], columns, label


def _plain(value: Any) -> Any:
    """A JSON-ready value: numpy scalars as Python numbers, NaN/NaT/None as missing (None)."""
    if value is None:
        return None
    item = getattr(value, "item", None)
    if callable(item) and type(value).__module__ == "numpy" and getattr(value, "ndim", 0) == 0:
        value = item()  # a numpy scalar; an array (a list in a cell) becomes a list, named by the validator
    if isinstance(value, float) and math.isnan(value):
        return None
    if type(value).__name__ in ("NaTType", "NAType"):
        return None
    if isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return _plain(tolist())
    return str(value)


def _read_parquet(path: Path) -> Any:
    if not path.is_file():
        raise UserError(f"{path}: file not found")
    import pandas

    try:
        return pandas.read_parquet(path)
    except ImportError:
        raise UserError(f"{path}: reading Parquet needs pyarrow: {HF_EXTRA}") from None
    except (OSError, ValueError) as error:
        raise UserError(f"{path}: not a readable Parquet file ({str(error).splitlines()[0]})") from None


def load_hf(spec: str) -> Any:
    """The ``datasets.Dataset`` an ``hf:`` spec names, from disk only (a folder from ``save_to_disk``, a
    folder of data files, or a Hub set in the local Hugging Face cache); one ``UserError`` line otherwise."""
    name, config, split = parse_hf_spec(spec)
    os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # never the network: the local cache or nothing (read
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # when datasets is first imported)
    try:
        import datasets
    except ImportError:
        raise UserError(f"{spec}: Hugging Face data needs the datasets package: {HF_EXTRA}") from None
    folder = Path(name).expanduser()
    saved = folder.is_dir() and any((folder / f).is_file() for f in ("dataset_info.json", "dataset_dict.json"))
    try:
        if saved:
            loaded = datasets.load_from_disk(str(folder))
        else:
            cache = os.environ.get("HF_DATASETS_CACHE") or None  # read now (datasets reads it once, on import)
            loaded = datasets.load_dataset(
                str(folder) if folder.is_dir() else name, config, split=split, cache_dir=cache
            )
    except Exception as error:  # datasets raises many kinds (FileNotFoundError, ConnectionError, its own)
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        if folder.is_dir():
            raise UserError(f"{spec}: cannot read it as a Hugging Face dataset ({reason})") from None
        raise UserError(
            f"{spec}: not in the local Hugging Face cache ({type(error).__name__}: {reason[:200]}); there is no "
            "network here: load it once where there is (datasets.load_dataset), or give a folder saved with "
            "save_to_disk"
        ) from None
    if isinstance(loaded, Mapping):  # a DatasetDict: the split, or the only one
        if split is None and len(loaded) == 1:
            split = next(iter(loaded))
        if split not in loaded:
            raise UserError(
                f"{spec}: give a split: hf:{name}:{config or ''}:SPLIT with SPLIT one of {', '.join(loaded)}"
            )
        loaded = loaded[split]
    return loaded


def write_rows(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    """Write ``rows`` as JSON lines to ``path``; a different file already there is refused (a run directory's
    data never changes under its results)."""
    text = "".join(json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n" for row in rows)
    data = text.encode("utf-8")
    if path.is_file():
        if path.read_bytes() == data:
            return
        raise UserError(
            f"{path} holds other data: this run directory belongs to a run on other rows; give another out "
            "(or delete the directory to start again)"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
