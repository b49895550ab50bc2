"""The data layer's public face: load a dataset's items from wherever they are, and pick a subset.

The datasets themselves are registered modules (``summeval.py``, ``topical_chat.py``, ``fed.py``,
``xdial_fed.py``, ``faireval.py``, ``pandalm.py``, ``autoj.py``, and ``own_file.py`` for the user's own
file); :mod:`debate_eval.tasks.data.registry` holds their specs. Every loader is strict: a malformed row is
one :class:`UserError` line naming the file, the row (counted from 1) and the field.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
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
    get_dataset,
    git_blob_id,
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
        stat = path.stat()
        version = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
        return _loaded(spec, str(path.resolve()), version, lambda: spec.load(path))
    if has_packaged_copy(spec):
        label = Path(packaged_label(spec))
        return _loaded(spec, f"{label} {spec.git_blob_id}", (), lambda: spec.load(label, data=packaged_bytes(spec)))
    looked = ", ".join(str(folder / spec.relative_path) for folder in data_dir_candidates(data_dir))
    raise UserError(
        f"dataset {spec.name}: file {spec.relative_path} not found (looked in {looked}); run "
        f"`debate-eval data download --dataset {spec.base_name}` to fetch it, or pass --data-dir / set "
        f"{DATA_DIR_ENV} to a folder that has {spec.relative_path}"
    )


_LOADED: OrderedDict[tuple[object, ...], list[Item]] = OrderedDict()
KEPT_FILES = 4  # the items of this many files are kept (SummEval's 1,600 took about 50 ms to read and check)


def _loaded(spec: DatasetSpec, source: str, version: tuple[int, ...], load: Callable[[], list[Item]]) -> list[Item]:
    """``load()``'s items, or the ones kept from reading the same ``version`` of the same ``source`` with the
    same loader and options; a new list each time (the items themselves are frozen)."""
    key = (spec.name, spec.loader, repr(sorted(dict(spec.options).items())), source, version)
    items = _LOADED.get(key)
    if items is None:
        items = _LOADED[key] = load()
        while len(_LOADED) > KEPT_FILES:
            _LOADED.popitem(last=False)
    _LOADED.move_to_end(key)
    return list(items)


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
