"""An exclusive lock on a run directory, so two runs never write one ``results.jsonl``.

The lock is ``.debate-eval.lock`` in the run directory: a JSON line naming the owner (pid, host, command,
start time) held under an ``fcntl.flock``. The kernel drops a flock when its process ends, however it ends
(``kill -9`` included), so a lock file left behind by a dead run is stale by construction: the next run takes
it over and says so. A live owner makes a second run refuse with one line naming that owner.

Where ``flock`` is not available (not POSIX), the owner's pid is checked instead (on the same host only).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import redact_words

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

LOCK_FILE = ".debate-eval.lock"


def owner_text(owner: dict[str, Any]) -> str:
    """``pid 123 on host h, started 2026-01-01 10:00:00 UTC`` (what a refused run prints)."""
    started = owner.get("started")
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(started)) if isinstance(started, int | float) else "?"
    return f"pid {owner.get('pid', '?')} on host {owner.get('host', '?')}, started {when}"


def _read_owner(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _pid_alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _runs_here(owner: dict[str, Any]) -> bool:
    """Whether a lock's ``owner`` is a live process of this host (how a lock is judged without flock)."""
    return owner.get("host") == socket.gethostname() and _pid_alive(owner.get("pid"))


def live_owner(directory: Path) -> dict[str, Any] | None:
    """The owner of ``directory``'s run lock while its run still runs (None: no run holds it), found without
    writing to the folder (it may be read-only): the lock file's flock asked for, shared, and given back."""
    try:
        fd = os.open(directory / LOCK_FILE, os.O_RDONLY)
    except OSError:
        return None
    try:
        if fcntl is None:  # pragma: no cover - no flock: trust a live pid on this host
            owner = _read_owner(directory / LOCK_FILE)
            return owner if _runs_here(owner) else None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read_owner(directory / LOCK_FILE)
        return None
    finally:
        os.close(fd)  # and the shared flock with it


class RunLock:
    """Use as a context manager, or ``acquire()`` / ``release()``."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / LOCK_FILE
        self._fd: int | None = None
        self.took_over: dict[str, Any] | None = None  # the stale owner whose lock this run took over

    def acquire(self) -> RunLock:
        """Take the lock, or raise a one-line ``UserError`` naming the owner (``OSError``: cannot write)."""
        for _ in range(20):  # another run may unlink the file between our open and our flock: try again
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                if not self._lock(fd):
                    owner = _read_owner(self.path)
                    raise UserError(
                        f"{self.directory} is in use by another debate-eval run ({owner_text(owner)}); wait for it "
                        f"to finish or use another --out (if no such run exists, delete {self.path})"
                    )
                if os.path.exists(self.path) and os.stat(self.path).st_ino == os.fstat(fd).st_ino:
                    previous = _read_owner(self.path)
                    if previous:
                        self.took_over = previous
                    owner = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, (json.dumps({**owner, "command": redact_words(sys.argv[:8])}) + "\n").encode(), 0)
                    self._fd = fd
                    return self
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # the file we locked was removed by its releasing owner: lock the new one
        raise UserError(f"{self.path}: could not take the run lock (it keeps changing); try again")

    def _lock(self, fd: int) -> bool:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True
        return not _runs_here(_read_owner(self.path))  # pragma: no cover - no flock: trust a live pid on this host

    def release(self) -> None:
        """Remove the lock file and drop the lock (idempotent; never raises)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # before unlocking: a waiting run then re-opens the path and gets a new file
        with contextlib.suppress(OSError):
            os.close(fd)

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
