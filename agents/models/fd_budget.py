"""Connections the open-file limit leaves room for, so a run never fails for want of a file descriptor.

Every request in flight holds a socket, and a socket is a file descriptor: with ``ulimit -n 256`` and
``--concurrency 256`` connections failed with "Too many open files" (EMFILE). ``fit_concurrency`` compares
the concurrency asked for with the descriptors left (the soft limit, less those open now, less a reserve
for the run's own files: results, lock, cache, logs, the embedded server's pipes) and lowers it, with one
line saying why; the run's HTTP connection pool is capped at the same number
(``NetworkOptions.max_connections``), so requests beyond it wait for a connection instead of failing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

RESERVED_FDS = 48  # the run's own files besides its sockets (results, lock, cache database, logs, pipes)


def open_file_limit() -> int | None:
    """The soft limit on open files (``ulimit -n``), or None when unlimited or unknown (no ``resource``)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


def open_fd_count() -> int:
    """File descriptors this process has open now (0 when the system does not say)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            return len(os.listdir(folder))
        except OSError:
            continue
    return 0


@dataclass(frozen=True)
class Fit:
    """The concurrency a run can have, and why it is lower than asked (``note`` is None when it is not)."""

    concurrency: int
    connections: int | None  # the connection pool's cap (None: the default)
    note: str | None = None


def fit_concurrency(requested: int, limit: int | None = None, open_now: int | None = None) -> Fit:
    """Fit ``requested`` debates in flight to the open-file limit (``limit``/``open_now``: the process's own
    by default). One connection per debate in flight is assumed (a debate's calls are sequential; methods
    with parallel calls, like Fennec's branches, wait for a pooled connection)."""
    limit = open_file_limit() if limit is None else limit
    if limit is None:
        return Fit(requested, None)
    open_now = open_fd_count() if open_now is None else open_now
    room = max(1, limit - open_now - RESERVED_FDS)
    if requested <= room:
        return Fit(requested, room)
    note = (
        f"the open-file limit (ulimit -n {limit}, {open_now} open now, {RESERVED_FDS} kept for the run's files) "
        f"leaves room for {room} connections: --concurrency lowered from {requested} to {room}; raise the "
        f"limit (e.g. ulimit -n {max(4096, requested + open_now + RESERVED_FDS)}) to run more at once"
    )
    return Fit(room, room, note)
