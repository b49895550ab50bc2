"""The data layer's public face: load a dataset's items from wherever they are, and pick a subset.

The datasets themselves are registered modules (``summeval.py``, ``topical_chat.py``, ``fed.py``,
``xdial_fed.py``, ``faireval.py``, ``pandalm.py``, ``autoj.py``, and ``own_file.py`` for the user's own
file); :mod:`debate_eval.tasks.data.registry` holds their specs. Every loader is strict: a malformed row is
one :class:`UserError` line naming the file, the row (counted from 1) and the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.own_file import own_file_source
from debate_eval.tasks.data.packaged import has_packaged_copy, packaged_bytes, packaged_label
from debate_eval.tasks.data.registry import (
    DATA_DIR_ENV,
    DATASETS,
    DatasetSpec,
    Item,
    all_datasets,
    check_aspect,
    data_dir_candidates,
    default_data_dir,
    file_version,
    get_dataset,
    git_blob_id,
    loaded_items,
    register_dataset,
    resolve_data_dir,
)
from debate_eval.tasks.data.sources import ItemSource, ListSource, select_positions
from debate_eval.tasks.data.topical_chat import topical_chat_context_id

__all__ = [
    "DATASETS",
    "DATA_DIR_ENV",
    "DatasetSpec",
    "Item",
    "ItemSource",
    "all_datasets",
    "check_aspect",
    "default_data_dir",
    "find_dataset_file",
    "get_dataset",
    "git_blob_id",
    "item_source",
    "load_items",
    "register_dataset",
    "resolve_data_dir",
    "select_items",
    "select_positions",
    "topical_chat_context_id",
]


def find_dataset_file(dataset: str, data_dir: str | Path | None = None) -> Path | None:
    """The file ``dataset`` is read from: the first of ``data_dir`` (``--data-dir``), ``$DEBATE_EVAL_DATA_DIR``
    and the download folder that has it; ``None`` when only the packaged copy (or nothing) is left."""
    spec = get_dataset(dataset)
    if Path(spec.relative_path).is_absolute():
        return Path(spec.relative_path)
    for folder in data_dir_candidates(data_dir):
        if (folder / spec.relative_path).is_file():
            return folder / spec.relative_path
    return None


def describe_source(dataset: str, data_dir: str | Path | None = None) -> str:
    """Where ``dataset`` would be read from now: a file path, ``packaged copy`` or ``not found``."""
    spec = get_dataset(dataset)
    if not spec.relative_path:
        return ""
    path = find_dataset_file(dataset, data_dir)
    return str(path) if path is not None else "packaged copy" if spec.shipped else "not found"


def load_items(dataset: str, data_dir: str | Path | None = None) -> list[Item]:
    """Load and validate one dataset, read from ``data_dir`` (``--data-dir``), ``$DEBATE_EVAL_DATA_DIR``, the
    download folder, or the packaged copy (SummEval and Topical-Chat), first that has it.

    A file found in a folder is used as it is (``data check`` verifies it); the packaged copy is verified
    against its git blob id. When no source has the file, the :class:`UserError` says where it looked. The
    items of the last few files read are kept for the next runs of the process (an audit's sub-runs, an
    ablation's cells, the Python API): a file is read again when its size, time or inode changed.
    """
    spec = get_dataset(dataset)
    path = find_dataset_file(dataset, data_dir)
    if path is not None:
        return loaded_items(spec, str(path.resolve()), file_version(path), lambda: spec.load(path))
    if has_packaged_copy(spec):
        label = Path(packaged_label(spec))
        source = f"{label} {spec.git_blob_id}"
        return loaded_items(spec, source, (), lambda: spec.load(label, data=packaged_bytes(spec)))
    looked = ", ".join(str(folder / spec.relative_path) for folder in data_dir_candidates(data_dir))
    raise UserError(
        f"dataset {spec.name}: file {spec.relative_path} not found (looked in {looked}); run "
        f"`debate-eval data download --dataset {spec.base_name}` to fetch it, or pass --data-dir / set "
        f"{DATA_DIR_ENV} to a folder that has {spec.relative_path}"
    )


def item_source(dataset: str, data_dir: str | Path | None = None) -> ItemSource:
    """``dataset``'s items as a run takes them (``sources.ItemSource``): an own ``.jsonl`` / ``.csv`` file
    registered (checked) in this process is read again row by row, holding no item it is not asked for; any
    other dataset is loaded whole by ``load_items``."""
    source = own_file_source(get_dataset(dataset))
    return source if source is not None else ListSource(load_items(dataset, data_dir))


def select_items(items: Sequence[Item], *, limit: int | None = None, docs: int | None = None) -> list[Item]:
    """The items of ``items`` that ``select_positions`` keeps, in file order: ``docs=K`` the first K groups with
    all their items, then ``limit=N`` the first N of those (both positive whole numbers when given)."""
    return [items[position] for position, _ in select_positions(ListSource(items), limit=limit, docs=docs)]
