"""``debate-eval data download`` / ``data check``: fetch the datasets from upstream and verify them.

Only the standard library is used. Every file is checked against the git blob id that upstream's
repository reports for it, so a file that ``data check`` accepts is byte-identical to upstream's.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.datasets import (
    DATA_DIR_ENV,
    DATASETS,
    DatasetSpec,
    get_dataset,
    git_blob_id,
    resolve_data_dir,
)

Opener = Callable[..., Any]

DOWNLOADED = "downloaded, verified"
REPLACED = "replaced a file with the wrong contents, verified"
ALREADY_PRESENT = "already present, verified"


@dataclass(frozen=True)
class DownloadReport:
    """What :func:`iter_downloads` did for one dataset file."""

    name: str
    path: Path
    status: str
    blob_id: str
    size_bytes: int

    @property
    def line(self) -> str:
        """The one line the command prints for this file."""
        return f"{self.name}: {self.path}: {self.status} ({self.size_bytes:,} bytes, git blob {self.blob_id})"


def download_datasets(target_dir: Path, names: Sequence[str] | None = None, **options: Any) -> list[DownloadReport]:
    """The reports of :func:`iter_downloads` (``options``: its keyword arguments), once every file is done."""
    return list(iter_downloads(target_dir, names, **options))


def iter_downloads(
    target_dir: Path,
    names: Sequence[str] | None = None,
    *,
    force: bool = False,
    timeout: float = 60,
    opener: Opener = urllib.request.urlopen,
    specs: Mapping[str, DatasetSpec] | None = None,
) -> Iterator[DownloadReport]:
    """Fetch each dataset file into ``target_dir/<relative_path>`` and verify its git blob id, yielding each
    report as soon as its file is done.

    A file that is already there with the right blob id is kept (unless ``force``). Downloaded bytes
    are checked before anything is written, and written atomically. ``specs`` replaces
    :data:`DATASETS` (for tests); ``opener`` replaces :func:`urllib.request.urlopen`.
    """
    chosen = _choose_specs(names, specs)
    target_dir = Path(target_dir).expanduser()
    for spec in chosen:
        yield _fetch_one(spec, target_dir, force=force, timeout=timeout, opener=opener)


def _choose_specs(names: Sequence[str] | None, specs: Mapping[str, DatasetSpec] | None) -> list[DatasetSpec]:
    if specs is None:
        chosen = [get_dataset(name) for name in dict.fromkeys(names or DATASETS)]
        by_file: dict[str, DatasetSpec] = {}
        for spec in chosen:  # fed_turn and fed_dialogue share one file: fetch it once
            by_file.setdefault(spec.relative_path, spec)
        return list(by_file.values())
    unknown = [name for name in names or () if name not in specs]
    if unknown:
        raise UserError(f"unknown dataset {unknown[0]!r}; valid datasets: {', '.join(specs)}")
    return [specs[name] for name in dict.fromkeys(names or specs)]


def _fetch_one(spec: DatasetSpec, target_dir: Path, *, force: bool, timeout: float, opener: Opener) -> DownloadReport:
    path = target_dir / spec.relative_path
    try:
        existing = git_blob_id(path.read_bytes()) if path.exists() else None
    except OSError as exc:
        raise UserError(f"{path}: cannot read the existing file: {exc.strerror or exc}") from None
    if existing == spec.git_blob_id and not force:
        return DownloadReport(spec.name, path, ALREADY_PRESENT, existing, path.stat().st_size)
    data = _fetch_bytes(spec, target_dir, timeout=timeout, opener=opener)
    actual = git_blob_id(data)
    if actual != spec.git_blob_id:
        raise UserError(
            f"{spec.name}: the file downloaded from {spec.upstream_url} has git blob id {actual}, expected "
            f"{spec.git_blob_id} ({len(data):,} bytes, expected {spec.size_bytes:,}); it was not saved"
        )
    _write_atomically(path, data)
    status = REPLACED if existing is not None and existing != spec.git_blob_id else DOWNLOADED
    return DownloadReport(spec.name, path, status, actual, len(data))


def _fetch_bytes(spec: DatasetSpec, target_dir: Path, *, timeout: float, opener: Opener) -> bytes:
    """The body of ``spec.upstream_url``; any network or HTTP failure is a one-line :class:`UserError`."""
    host = urllib.parse.urlsplit(spec.upstream_url).hostname or spec.upstream_url
    try:
        with opener(spec.upstream_url, timeout=timeout) as response:
            return bytes(response.read())
    except urllib.error.HTTPError as exc:
        problem = f"{spec.upstream_url} answered HTTP {exc.code} {exc.reason}"
    except urllib.error.URLError as exc:
        problem = f"{host} could not be reached ({exc.reason})"
    except (OSError, http.client.HTTPException) as exc:
        problem = f"{host} could not be reached ({str(exc) or type(exc).__name__})"
    layout = ", ".join(dict.fromkeys(s.relative_path for s in DATASETS.values()))  # fed_turn, fed_dialogue: one file
    raise UserError(
        f"could not download {spec.name}: {problem}; copy the files by hand into {target_dir} with the "
        f"layout {layout}, or point --data-dir / {DATA_DIR_ENV} at a folder that has them"
    )


def _write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file next to ``path``, then rename it into place."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    except OSError as exc:
        raise UserError(f"{path.parent}: cannot create the file there: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise UserError(f"{path}: cannot write the file: {exc.strerror or exc}") from None


# --------------------------------------------------------------------------------------------------
# data check


@dataclass(frozen=True)
class CheckReport:
    """The outcome of checking one dataset file: ``line`` is the summary, or the problem when not ``ok``."""

    name: str
    ok: bool
    line: str


def check_datasets(data_dir: Path, names: Sequence[str] | None = None) -> list[CheckReport]:
    """Load and validate each dataset under ``data_dir`` and verify its upstream git blob id.

    Without ``names``: SummEval and Topical-Chat, plus every other set whose file is in ``data_dir``.
    """
    data_dir = Path(data_dir).expanduser()
    if not names:  # by default: the shipped sets, and the others that are there
        names = [n for n, s in DATASETS.items() if s.shipped or (data_dir / s.relative_path).is_file()]
    reports = []
    for spec in (get_dataset(name) for name in dict.fromkeys(names)):
        try:
            reports.append(CheckReport(spec.name, True, _check_one(spec, Path(data_dir).expanduser())))
        except UserError as exc:
            reports.append(CheckReport(spec.name, False, str(exc)))
    return reports


def _check_one(spec: DatasetSpec, data_dir: Path) -> str:
    path = data_dir / spec.relative_path
    if not path.is_file():
        shipped = " (a verified copy ships in the package and is used when no folder has it)" if spec.shipped else ""
        raise UserError(
            f"{path}: not found{shipped}; run `debate-eval data download --dataset {spec.name}` to fetch it"
        )
    items = spec.load(path)
    actual = git_blob_id(path.read_bytes())
    if actual != spec.git_blob_id:
        raise UserError(
            f"{path}: git blob id {actual} does not match upstream's {spec.git_blob_id} "
            f"({spec.upstream_url}); run `debate-eval data download --force` to replace it"
        )
    groups = len({item.group_id for item in items})
    return f"{spec.name}: {path}: {len(items)} items in {groups} groups; git blob {actual} matches upstream"


# --------------------------------------------------------------------------------------------------
# Command line


def add_subparser(subparsers: Any) -> None:
    """Register ``debate-eval data {download,check}``."""
    data = subparsers.add_parser(
        "data",
        help="download or check the meta-evaluation datasets (SummEval and Topical-Chat also ship inside)",
        description="'data download' fetches the datasets from upstream, verified by git blob id; 'data check' "
        "loads and validates the files and verifies their ids.",
    )
    commands = data.add_subparsers(dest="data_command", required=True, metavar="{download,check}")
    download = commands.add_parser(
        "download",
        help="fetch the datasets from upstream (refreshes the packaged ones; the only way to get the others)",
        description="Fetch the datasets from their upstream URLs and check each file's git blob id.",
    )
    download.add_argument(
        "--dir",
        "--data-dir",
        dest="dir",
        help=f"target folder (default: ${DATA_DIR_ENV} or ~/.cache/debate-eval/data)",
    )
    download.add_argument("--dataset", action="append", choices=list(DATASETS), help="only this dataset (repeatable)")
    download.add_argument("--force", action="store_true", help="download again even if already verified")
    download.set_defaults(handler=_download_command)
    check = commands.add_parser(
        "check",
        help="validate the dataset files and verify their git blob ids",
        description="Load and validate every dataset file found, and verify its git blob id.",
    )
    check.add_argument("--data-dir", help=f"data folder (default: ${DATA_DIR_ENV} or ~/.cache/debate-eval/data)")
    check.add_argument("--dataset", action="append", choices=list(DATASETS), help="only this dataset (repeatable)")
    check.set_defaults(handler=_check_command)


def _download_command(args: argparse.Namespace) -> int:
    for report in iter_downloads(resolve_data_dir(args.dir), args.dataset, force=args.force):
        print(report.line, flush=True)
    return 0


def _check_command(args: argparse.Namespace) -> int:
    reports = check_datasets(resolve_data_dir(args.data_dir), args.dataset)
    for report in reports:
        if report.ok:
            print(report.line)
    problems = [report.line for report in reports if not report.ok]
    if problems:
        raise UserError("; ".join(problems))
    return 0
