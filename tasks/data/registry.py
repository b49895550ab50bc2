"""The dataset registry: what the project knows about each meta-evaluation set, and where its file is read from.

Each dataset is one module (``summeval.py``, ``fed.py``, ...) that builds a :class:`DatasetSpec` and registers
it with :func:`register_dataset`. A spec says what the set is (inputs, aspects and their human scales, kind,
task type, meta-evaluation level, licence), where its file comes from (upstream URL and git blob id), whether
a compressed copy ships inside the package, and how to load it (its ``loader``).

**Where a file is read from**, first that has it: ``--data-dir``, ``$DEBATE_EVAL_DATA_DIR``, the download
folder (``~/.cache/debate-eval/data``), then the packaged copy (SummEval and Topical-Chat only; see
:mod:`debate_eval.tasks.data.packaged`). Variants: ``xdial_fed_turn-german`` is ``xdial_fed_turn`` with
``language=german``; a path ending in ``.jsonl``, ``.csv`` or ``.json`` is the user's own file
(:mod:`debate_eval.tasks.data.own_file`).
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.agents.lazy_modules import LazyModules

DATA_DIR_ENV = "DEBATE_EVAL_DATA_DIR"

#: The modules that register the built-in datasets (imported on first use of the registry).
BUILTIN_MODULES = (
    "summeval",
    "topical_chat",
    "fed",
    "xdial_fed",
    "faireval",
    "pandalm",
    "autoj",
    "judgebench",
)
_BUILTINS = LazyModules(f"debate_eval.tasks.data.{module}" for module in BUILTIN_MODULES)

SINGLE = "single"
PAIRWISE = "pairwise"
#: Meta-evaluation levels: correlations per group, then averaged (SummEval's documents, Topical-Chat's
#: contexts), or once over all items of the set (FED, as the dialogue-evaluation literature does).
GROUP_LEVEL = "group"
ITEM_LEVEL = "item"
#: The human labels of a pairwise item.
PAIRWISE_LABELS = ("first", "second", "tie")


@dataclass(frozen=True)
class Item:
    """One item to judge: its inputs (untrusted text) and its human scores or pairwise label.

    ``group_id`` is the group of a group-level meta-evaluation; items of an item-level set each have their
    own group (their ``item_id``). ``row_index`` is the 0-based position in the file (messages count rows
    from 1). A pairwise item has ``task_type="pairwise"``, inputs ``question``, ``input``, ``output_a``,
    ``output_b`` and ``human_label`` in ``first``/``second``/``tie``; its ``human_scores`` are empty.
    ``system_id`` names the system that produced the output (empty when unknown); a pairwise item may name the
    systems of both outputs in ``system_pair``.
    """

    item_id: str
    dataset: str
    group_id: str
    system_id: str
    inputs: Mapping[str, str] = field(hash=False)
    human_scores: Mapping[str, float] = field(hash=False)
    row_index: int
    task_type: str = SINGLE
    human_label: str | None = None
    #: A pairwise item's two systems (output_a's, output_b's), when the data names them.
    system_pair: tuple[str, str] | None = None
    #: Several annotators' ratings of the item (annotator -> rating), when the data gives them (own files'
    #: ``annotators=`` field); ``human_scores`` holds their mean unless the data names one rating column.
    annotator_scores: Mapping[str, float] = field(default_factory=dict, hash=False)
    #: The model family of the output's system (own files' ``system_family=`` field), when the data gives it.
    system_family: str | None = None


Loader = Callable[..., list[Item]]
V = TypeVar("V")


def _no_loader(path: Path, **options: Any) -> list[Item]:
    raise UserError(f"{path}: this dataset has no loader")


@dataclass(frozen=True)
class DatasetSpec:
    """Everything the project knows about one dataset.

    ``relative_path`` is where the file sits under a data folder; ``aspects`` maps each aspect to its human
    scale (low, high); ``inputs`` are the item's input names in the order a judge sees them, the last one being
    the text judged (pairwise: ``output_b``); ``options`` are the loader's keyword arguments (``language`` for
    xDial); ``shipped`` says a compressed copy is in the package.
    """

    name: str
    relative_path: str
    aspects: Mapping[str, tuple[float, float] | None] = field(hash=False)  # None: a pairwise set's preference
    kind: str  # "summarization", "dialogue" or "instruction" (selects the Tie-breaker's wording)
    loader: Loader = field(default=_no_loader, hash=False, compare=False, repr=False)
    description: str = ""
    inputs: tuple[str, ...] = ()
    task_type: str = SINGLE
    level: str = GROUP_LEVEL
    upstream_url: str = ""
    git_blob_id: str = ""
    size_bytes: int = 0
    licence: str = ""
    attribution: str = ""
    shipped: bool = False
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    variants: tuple[str, ...] = ()  # allowed values of the one option a ``NAME-VARIANT`` name sets
    variant_option: str = ""
    default_variant: str = ""

    @property
    def file_name(self) -> str:
        """The file's base name, e.g. ``summeval.json``."""
        return Path(self.relative_path).name

    @property
    def base_name(self) -> str:
        """The registered name without a variant (``xdial_fed_turn-german`` -> ``xdial_fed_turn``)."""
        return self.name.split("-", 1)[0] if self.variants else self.name

    def load(self, path: Path, data: bytes | None = None) -> list[Item]:
        """Load and validate the file at ``path``; ``data`` are its bytes when already read (packaged copy)."""
        return self.loader(path, spec=self, data=data, **dict(self.options))


_REGISTRY: dict[str, DatasetSpec] = {}
_OWN_FILES: dict[str, DatasetSpec] = {}  # the user's own files, by the name (path) they were given as
OWN_FILE_SUFFIXES = tuple(
    kind + compression
    for kind in (".jsonl", ".csv", ".json")
    for compression in ("", ".gz", ".xz", ".zst", ".bz2", ".zip")  # the last three are refused by name
)


def register_dataset(spec: DatasetSpec) -> DatasetSpec:
    """Add ``spec`` to the registry (a second spec of the same name is a programming error)."""
    if spec.name in _REGISTRY and _REGISTRY[spec.name] is not spec:
        raise ValueError(f"dataset {spec.name!r} is registered twice")
    if "-" in spec.name:
        raise ValueError(f"dataset name {spec.name!r} must not contain '-' (it separates a variant)")
    _REGISTRY[spec.name] = spec
    return spec


def register_own_file_spec(spec: DatasetSpec) -> DatasetSpec:
    """Make the user's own file (named by its path) known to :func:`get_dataset` in this process."""
    _OWN_FILES[spec.name] = spec
    return spec


def looks_like_own_file(name: str) -> bool:
    """Whether a ``--dataset`` value names a file of the user's (by its suffix) rather than a registered set
    (``NAME:PATH``, a registered set's format in another file, is not one)."""
    return isinstance(name, str) and name.lower().endswith(OWN_FILE_SUFFIXES) and not names_set_file(name)


def names_set_file(name: str) -> bool:
    """Whether ``name`` is ``NAME:PATH``: a file in the format of the registered dataset ``NAME`` (another
    JudgeBench pairs file as ``judgebench:PATH``)."""
    base, sep, path = name.partition(":") if isinstance(name, str) else ("", "", "")
    if not sep or not path:
        return False
    _BUILTINS.load()
    return base in _REGISTRY


def set_file_spec(name: str) -> DatasetSpec:
    """The spec of ``NAME:PATH`` (see :func:`names_set_file`): ``NAME``'s, read from ``PATH``, under the name
    ``NAME:PATH`` (its records say which file they judged); the file must exist."""
    base, _, given = name.partition(":")
    path = Path(given).expanduser()
    if not path.is_file():
        raise UserError(f"dataset {name}: {path} is not a file (NAME:PATH reads a {base} file from PATH)")
    spec = _REGISTRY[base]
    return replace(spec, name=name, relative_path=str(path.resolve()), git_blob_id="", size_bytes=0, shipped=False)


def all_datasets() -> dict[str, DatasetSpec]:
    """The registered datasets by name, in registration order (the built-ins first)."""
    _BUILTINS.load()
    modules = _BUILTINS.names

    def rank(spec: DatasetSpec) -> int:
        module = getattr(spec.loader, "__module__", "")
        return modules.index(module) if module in modules else len(modules)

    return {spec.name: spec for spec in sorted(_REGISTRY.values(), key=rank)}


_LOADED: OrderedDict[tuple[object, ...], list[Item]] = OrderedDict()
KEPT_FILES = 4  # the items of this many files are kept (SummEval's 1,600 took about 50 ms to read and check)


def file_version(path: Path) -> tuple[int, ...]:
    """What tells one version of a file from another for the kept items: its size, time and inode."""
    stat = path.stat()
    return (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def loaded_items(
    spec: DatasetSpec, source: str, version: tuple[int, ...], load: Callable[[], list[Item]]
) -> list[Item]:
    """``load()``'s items, or the ones kept from reading the same ``version`` of the same ``source`` with the
    same loader and options; a new list each time (the items themselves are frozen). Registering an own file
    validates it through here, so the run that follows reads and checks the file once."""
    key = (spec.name, spec.loader, repr(sorted(dict(spec.options).items())), source, version)
    return list(kept(_LOADED, key, load))


def kept(cache: OrderedDict[tuple[object, ...], V], key: tuple[object, ...], load: Callable[[], V]) -> V:
    """``cache[key]``, made by ``load()`` when absent; ``cache`` keeps the ``KEPT_FILES`` most recently used
    (what reading a file gave: its items, or an own file's check)."""
    value = cache.get(key)
    if value is None:
        value = cache[key] = load()
        while len(cache) > KEPT_FILES:
            cache.popitem(last=False)
    cache.move_to_end(key)
    return value


class _Datasets(Mapping[str, DatasetSpec]):
    """A live read-only view of the registry (``DATASETS["summeval"]``)."""

    def __getitem__(self, name: str) -> DatasetSpec:
        return all_datasets()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(all_datasets())

    def __len__(self) -> int:
        return len(all_datasets())


DATASETS: Mapping[str, DatasetSpec] = _Datasets()


def get_dataset(name: str) -> DatasetSpec:
    """The spec of a dataset by name.

    ``NAME-VARIANT`` selects a variant (``xdial_fed_turn-german``); ``NAME:PATH`` reads another file in
    ``NAME``'s format (``judgebench:PATH``); a registered own file is found by the name it was registered under.
    An unknown name is a :class:`UserError` listing the valid ones.
    """
    specs = all_datasets()
    if not isinstance(name, str):
        raise UserError(f"unknown dataset {name!r}; valid datasets: {', '.join(specs)}")
    if name in specs:
        return specs[name]
    if names_set_file(name):
        return set_file_spec(name)
    if name in _OWN_FILES:
        return _OWN_FILES[name]
    if looks_like_own_file(name):
        raise UserError(
            f"dataset {name} is a file of your own: it is read with `run --dataset {name} --fields ...` "
            "(this command does not know its columns)"
        )
    base, sep, variant = name.partition("-")
    spec = specs.get(base) if sep else None
    if spec is not None and spec.variants:
        if variant not in spec.variants:
            raise UserError(
                f"unknown {spec.variant_option} {variant!r} for dataset {base}; valid: {', '.join(spec.variants)}"
            )
        return with_variant(spec, variant)
    if Path(name).expanduser().is_dir():
        raise UserError(folder_given(Path(name).expanduser()))
    raise UserError(
        f"unknown dataset {name!r}; valid datasets: {', '.join(specs)} "
        "(or the path of your own .jsonl, .csv or .json file)"
    )


def folder_given(path: Path) -> str:
    """The error for a folder given as ``--dataset``: it wants a file (those of the folder that could be one)."""
    try:
        files = sorted(child.name for child in path.iterdir() if looks_like_own_file(child.name) and child.is_file())
    except OSError:
        files = []
    shown = f"; the data files in it: {', '.join(files[:5])}{' ...' if len(files) > 5 else ''}" if files else ""
    return (
        f"{path}: is a folder, not a data file (--dataset takes a dataset name or your own .jsonl/.csv/.json file; "
        f"a folder of registered datasets is --data-dir){shown}"
    )


def with_variant(spec: DatasetSpec, variant: str) -> DatasetSpec:
    """``spec`` with its variant option set: the default variant keeps the plain name."""
    name = spec.base_name if variant == spec.default_variant else f"{spec.base_name}-{variant}"
    return replace(spec, name=name, options={**spec.options, spec.variant_option: variant})


def check_aspect(dataset: str, aspect: str) -> None:
    """Raise a :class:`UserError` unless ``aspect`` is one the project evaluates on ``dataset``."""
    spec = get_dataset(dataset)
    if aspect not in spec.aspects:
        raise UserError(f"unknown aspect {aspect!r} for dataset {dataset}; valid aspects: {', '.join(spec.aspects)}")


def git_blob_id(data: bytes) -> str:
    """The id ``git hash-object`` prints for a file with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def file_blob_id(path: Path) -> str:
    """``git_blob_id`` of the file at ``path``, read a block at a time (never held whole)."""
    with Path(path).open("rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        digest = hashlib.sha1(b"blob %d\0" % size)
        read = 0
        while block := handle.read(1 << 20):
            digest.update(block)
            read += len(block)
    if read != size:
        raise UserError(f"{path}: the file changed while it was read; run the command again")
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------------
# Where files are read from


def default_data_dir() -> Path:
    """``$XDG_CACHE_HOME/debate-eval/data``, or ``~/.cache/debate-eval/data`` when that is unset."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    cache = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
    return cache / "debate-eval" / "data"


def resolve_data_dir(cli_value: str | Path | None) -> Path:
    """The data folder: ``--data-dir`` if given, else ``$DEBATE_EVAL_DATA_DIR``, else the download folder.

    The folder is not required to exist.
    """
    if cli_value is not None and str(cli_value) != "":
        return Path(cli_value).expanduser()
    from_env = os.environ.get(DATA_DIR_ENV, "")
    if from_env:
        return Path(from_env).expanduser()
    return default_data_dir()


def data_dir_candidates(data_dir: str | Path | None = None) -> list[Path]:
    """The folders searched, in order: ``data_dir`` (``--data-dir``), ``$DEBATE_EVAL_DATA_DIR``, the
    download folder; duplicates removed. A given folder that does not exist is a :class:`UserError`."""
    candidates = []
    if data_dir is not None and str(data_dir) != "":
        candidates.append((Path(data_dir).expanduser(), "--data-dir"))
    if os.environ.get(DATA_DIR_ENV, ""):
        candidates.append((Path(os.environ[DATA_DIR_ENV]).expanduser(), f"${DATA_DIR_ENV}"))
    default = default_data_dir()
    for folder, origin in candidates:  # a folder the user named must exist (a typo is not silently skipped)
        if folder != default and not folder.is_dir():
            raise UserError(f"{folder}: data folder not found (given by {origin})")
    return list(dict.fromkeys([folder for folder, _ in candidates] + [default]))
