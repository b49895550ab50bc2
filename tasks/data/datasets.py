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
from debate_eval.tasks.data.topical_chat import topical_chat_context_id

__all__ = [
    "DATASETS",
    "DATA_DIR_ENV",
    "DatasetSpec",
    "Item",
    "all_datasets",
    "check_aspect",
    "default_data_dir",
    "find_dataset_file",
    "get_dataset",
    "git_blob_id",
    "load_items",
    "register_dataset",
    "resolve_data_dir",
    "select_items",
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
