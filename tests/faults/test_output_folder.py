"""Output folders that cannot take the results: read-only and full.

A read-only folder is made immutable (``chattr +i``, which binds root too) or, for other users,
``chmod 555``; a full disk is a 64 KiB tmpfs where mounting is allowed, else an injected ``ENOSPC`` on the
results file's writes.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from faultkit import Outcome, assert_clean, run_args

from debate_eval.tasks.engine import results

MANY = 12  # items of the full-disk case: more than 64 KiB of results


@contextlib.contextmanager
def read_only(path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Make ``path`` (a folder or a file) unwritable for this process, however it can be done here."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield "chmod"
        finally:
            path.chmod(mode)
        return
    if shutil.which("chattr") and subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0:
        try:
            yield "chattr"
        finally:
            subprocess.run(["chattr", "-i", str(path)], check=True)
        return
    real_open = os.open  # root without CAP_LINUX_IMMUTABLE: refuse writes below ``path`` in this process

    def refusing_open(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        target = Path(os.fsdecode(file))
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and (target == path or path in target.parents):
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)
    yield "injected"


def test_a_read_only_output_folder_is_refused_up_front(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = server_factory()
    out = fault_env / "run"
    out.mkdir()
    with read_only(out, monkeypatch):
        outcome = cli(run_args(server, out))
    assert_clean(outcome, code=2, message=f"{out}: the output directory is not writable (", results=0, server=server)
    assert server.count == 0  # refused before any model call


def test_a_folder_that_turned_read_only_keeps_its_results(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = server_factory()
    out = fault_env / "run"
    assert cli(run_args(server, out, limit=3)).code == 0
    with read_only(out / "results.jsonl", monkeypatch):
        outcome = cli(run_args(server, out))  # resume the other items into a results file that is read-only
    message = f"{out / 'results.jsonl'}: cannot write the results file ("
    assert_clean(outcome, code=2, message=message, results=3, server=server)
    with read_only(out, monkeypatch):
        outcome = cli(run_args(server, out))
    assert_clean(outcome, code=2, message="the output directory is not writable", results=3, server=server)


@contextlib.contextmanager
def full_disk(folder: Path, monkeypatch: pytest.MonkeyPatch, after_results: int) -> Iterator[Callable[[], None]]:
    """``folder`` on a 64 KiB tmpfs (room for config.json and a few results), or, where mounting is not
    allowed, ``ENOSPC`` injected into the results file's writes after ``after_results`` lines. Yields a function
    that makes room again."""
    folder.mkdir()
    mounted = (
        os.geteuid() == 0
        and shutil.which("mount")
        and subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)], capture_output=True
        ).returncode
        == 0
    )
    if mounted:
        try:
            yield lambda: subprocess.run(["mount", "-o", "remount,size=4m", str(folder)], check=True)
        finally:
            subprocess.run(["umount", str(folder)], check=True)
        return
    written = {"lines": 0, "full": True}
    real_write = results._write_all

    def write_all(fd: int, data: bytes) -> None:
        if written["full"] and written["lines"] >= after_results:
            os.write(fd, data[: len(data) // 2])  # a partial line, as a real full disk leaves it
            raise OSError(errno.ENOSPC, "No space left on device")
        real_write(fd, data)
        written["lines"] += 1

    monkeypatch.setattr(results, "_write_all", write_all)
    yield lambda: written.update(full=False)


def test_a_full_disk_stops_cleanly_keeps_every_written_result_and_a_rerun_finishes(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = server_factory()
    out = fault_env / "run"
    with full_disk(out, monkeypatch, after_results=2) as make_room:
        args = run_args(server, out, "--concurrency", "1", limit=MANY)
        outcome = cli(args)
        kept = outcome.records()  # every line is whole JSON
        assert 0 < len(kept) < MANY
        message = (
            f"{out / 'results.jsonl'}: cannot write a result (No space left on device); the run stopped; "
            f"the {len(kept)} results already written ({len(kept)} finished, 0 failed) are kept: free space"
        )
        assert_clean(outcome, code=2, message=message, results=len(kept), server=server)
        assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp") or p.name.startswith(".debate-eval")]
        make_room()
        rerun = cli(args)
        assert_clean(rerun, code=0, message=None, results=MANY, server=server)
        assert json.loads((out / "summary.json").read_text())["finished"] == MANY
