"""The compressed copies of SummEval and Topical-Chat that ship inside the package (see ``packaged/NOTICE``).

A packaged copy is ``packaged/<file name>.xz``; it is decompressed with the standard library and its bytes
are checked against the upstream git blob id before anything is read, so a damaged copy is one clear
error line, never a silently different benchmark.
"""

from __future__ import annotations

import lzma
from functools import cache
from importlib import resources

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.registry import DatasetSpec, git_blob_id

PACKAGE = "debate_eval.tasks.data"
FOLDER = "packaged"


def packaged_name(spec: DatasetSpec) -> str:
    """The packaged file's name, e.g. ``summeval.json.xz``."""
    return f"{spec.file_name}.xz"


def packaged_label(spec: DatasetSpec) -> str:
    """How messages name the packaged copy, e.g. ``packaged copy debate_eval/tasks/data/packaged/...``."""
    return f"packaged copy {PACKAGE.replace('.', '/')}/{FOLDER}/{packaged_name(spec)}"


def has_packaged_copy(spec: DatasetSpec) -> bool:
    """Whether ``spec`` ships and its compressed file is present in the installed package."""
    return spec.shipped and (resources.files(PACKAGE) / FOLDER / packaged_name(spec)).is_file()


@cache
def packaged_bytes(spec: DatasetSpec) -> bytes:
    """The decompressed, verified bytes of the packaged copy of ``spec`` (read once a process).

    Raises :class:`UserError` (one line) when the set does not ship, the copy is missing, cannot be
    decompressed, or its git blob id differs from upstream's.
    """
    label = packaged_label(spec)
    if not spec.shipped:
        raise UserError(f"dataset {spec.name} does not ship with the package; run `debate-eval data download`")
    try:
        compressed = (resources.files(PACKAGE) / FOLDER / packaged_name(spec)).read_bytes()
    except OSError:
        raise UserError(
            f"{label} of {spec.name} is missing from the installed package; reinstall debate-eval or run "
            "`debate-eval data download`"
        ) from None
    return decompress_verified(compressed, name=spec.name, blob_id=spec.git_blob_id, label=label)


def decompress_verified(compressed: bytes, *, name: str, blob_id: str, label: str) -> bytes:
    """Decompress xz bytes and check the result's git blob id; any problem is one :class:`UserError` line."""
    fix = "reinstall debate-eval, or run `debate-eval data download` to read a verified copy from upstream"
    try:
        data = lzma.decompress(compressed)
    except (lzma.LZMAError, EOFError) as exc:
        raise UserError(f"{label} of {name} is corrupted (cannot decompress: {exc}); {fix}") from None
    actual = git_blob_id(data)
    if actual != blob_id:
        raise UserError(f"{label} of {name} is corrupted: git blob id {actual}, expected {blob_id}; {fix}")
    return data
