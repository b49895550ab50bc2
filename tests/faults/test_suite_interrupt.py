"""Ctrl-C stops a test session on the first SIGINT, as pytest does by default, also while a test runs the
command line in-process (``main([...])``, as the suite's tests do): the run stops, says so, and the
interrupt goes on to the session instead of becoming the test's exit status while the session goes on.

A tiny pytest session runs in a process of its own: its first test starts a run against a fault server that
holds every request (until the session ends); once the server holds one, the session gets SIGINT. The
second test must not run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from faultkit import FAKE_KEY, Action

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

SESSION = textwrap.dedent(
    """
    import os
    from pathlib import Path

    from debate_eval.tasks.cli.main import main


    def test_a_run_in_process(tmp_path):
        main([
            "run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--method", "geval",
            "--base-url", os.environ["HELD_URL"], "--model", "scripted", "--out", str(tmp_path / "out"),
            "--no-progress", "--no-cache", "--timeout", "600",
        ])


    def test_after_it():
        Path(os.environ["MARKER"]).write_text("ran")
    """
)


def test_one_sigint_stops_the_session(tmp_path: Path, server_factory: Any) -> None:
    held = server_factory(script=lambda number, request: Action(hang_s=120), lifetime_s=300)
    (tmp_path / "test_session.py").write_text(SESSION, encoding="utf-8")
    marker = tmp_path / "marker"
    env = {**os.environ, "HELD_URL": held.base_url, "MARKER": str(marker), "OPENAI_API_KEY": FAKE_KEY}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_session.py"]
    session = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while not held.count and session.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert held.count, "the run under test never reached the server"
        session.send_signal(signal.SIGINT)
        output, _ = session.communicate(timeout=120)
    finally:
        if session.poll() is None:
            session.kill()
    text = output.decode(errors="replace")
    assert session.returncode == pytest.ExitCode.INTERRUPTED, text  # the session stopped (pytest's 2)
    assert not marker.exists(), text  # the next test did not run
