"""The response cache on disk: AutoGen's ``DiskCacheStore`` over a ``diskcache.Cache`` (an SQLite file,
``cache.db``, in ``$DEBATE_EVAL_CACHE_DIR`` or ``~/.cache/debate-eval/llm-cache``).

A damaged cache file (``sqlite3.DatabaseError``: "file is not a database", "database disk image is malformed")
never ends a run with a traceback:

- found when the cache is opened (before any model call): one line naming the file, suggesting ``--no-cache``
  (run without it) or ``--reset-cache`` (move it aside and start an empty one);
- found in the middle of a run: one warning line, and the run goes on without the cache (a read is a miss, a
  write is skipped).

``--reset-cache`` moves the cache folder aside (``llm-cache.reset-YYYYmmdd-HHMMSS``), damaged or not, and says
where: nothing is ever deleted. It does so once per process, so the cells of an ablation (or the languages of a
robustness run) share the new cache. A run that is using the folder at that moment keeps writing to the moved
one.
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from autogen_core import CacheStore

from debate_eval.agents.errors import UserError

CACHE_FILE = "cache.db"  # diskcache's SQLite file
_RESET: set[Path] = set()  # folders this process has already moved aside


def damage_text(directory: Path, error: sqlite3.DatabaseError) -> str:
    """What is wrong with the cache in ``directory``, in a few words with the file's name."""
    what = str(error).strip() or type(error).__name__
    return f"{directory / CACHE_FILE}: the response cache is {'busy' if 'locked' in what else 'damaged'} ({what})"


def reset_response_cache(directory: Path) -> Path | None:
    """Move the cache folder aside (never delete it); where it went, or None when there was none."""
    if not directory.exists():
        return None
    stamped = f"{directory.name}.reset-{time.strftime('%Y%m%d-%H%M%S')}"
    target, suffix = directory.with_name(stamped), 1
    while target.exists():
        suffix += 1
        target = directory.with_name(f"{stamped}-{suffix}")
    try:
        directory.rename(target)
    except OSError as exc:
        raise UserError(f"{directory}: cannot move the response cache aside ({exc.strerror}); use --no-cache") from None
    return target


def open_response_cache(directory: Path, *, reset: bool = False) -> CacheStore[Any]:
    """The response cache in ``directory`` (created if needed); with ``reset``, the old one moved aside first.

    A damaged cache is a one-line ``UserError`` naming the file (see the module docstring).
    """
    import diskcache
    from autogen_ext.cache_store.diskcache import DiskCacheStore

    if reset and directory.resolve() not in _RESET:
        _RESET.add(directory.resolve())
        moved = reset_response_cache(directory)
        if moved is not None:
            print(f"debate-eval: note: the response cache {directory} was moved aside to {moved}", file=sys.stderr)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        cache = diskcache.Cache(str(directory))
        cache.get("debate-eval:probe")  # reads the index, so a damaged file shows here, before any model call
    except OSError as exc:
        raise UserError(f"{directory}: cannot open the response cache: {exc.strerror}") from None
    except sqlite3.DatabaseError as exc:
        raise UserError(
            f"{damage_text(directory, exc)}; rerun with --no-cache to run without it, or with --reset-cache to "
            "move it aside and start an empty one"
        ) from None
    return GuardedStore(DiskCacheStore(cache), directory)


class GuardedStore(CacheStore[Any]):
    """A cache store that a damaged file cannot stop: on an SQLite error a read is a miss and a write is
    skipped, with one warning line for the run."""

    def __init__(self, inner: CacheStore[Any], directory: Path) -> None:
        self.inner = inner
        self.directory = directory
        self.failed = False

    def _warn(self, error: sqlite3.DatabaseError) -> None:
        if not self.failed:
            self.failed = True
            print(
                f"debate-eval: warning: {damage_text(self.directory, error)}; going on without it (rerun with "
                "--reset-cache to move it aside)",
                file=sys.stderr,
            )

    def get(self, key: str, default: Any = None) -> Any:
        """The cached value, or ``default`` (also when the file cannot be read)."""
        if self.failed:
            return default
        try:
            return self.inner.get(key, default)
        except sqlite3.DatabaseError as exc:
            self._warn(exc)
            return default

    def set(self, key: str, value: Any) -> None:
        """Store ``value`` (skipped when the file cannot be written)."""
        if self.failed:
            return
        try:
            self.inner.set(key, value)
        except sqlite3.DatabaseError as exc:
            self._warn(exc)
