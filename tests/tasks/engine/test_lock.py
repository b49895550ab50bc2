"""The run-directory lock and the atomic rewrite of results.jsonl."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.lock import LOCK_FILE, RunLock
from debate_eval.tasks.engine.results import ResultsStore


def test_a_second_holder_is_refused_with_the_owner_named(tmp_path: Path) -> None:
    with RunLock(tmp_path):
        owner = json.loads((tmp_path / LOCK_FILE).read_text())
        assert owner["pid"] == os.getpid() and owner["host"] == socket.gethostname()
        with pytest.raises(UserError) as error:
            RunLock(tmp_path).acquire()
        assert f"pid {os.getpid()} on host {socket.gethostname()}" in str(error.value)
        assert "\n" not in str(error.value)
    assert not (tmp_path / LOCK_FILE).exists()
    with RunLock(tmp_path) as again:
        assert again.took_over is None


def test_the_command_the_lock_keeps_holds_no_credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock left behind by a killed run stays in the folder: the command it names is masked."""
    url = "https://user:PROXYPASSWORD42@gateway.example/v1?api-key=QUERYKEY4242"
    monkeypatch.setattr(sys, "argv", ["debate-eval", "run", "--base-url", url, "--model", "m"])
    with RunLock(tmp_path):
        text = (tmp_path / LOCK_FILE).read_text(encoding="utf-8")
    assert "PROXYPASSWORD42" not in text and "QUERYKEY4242" not in text
    assert json.loads(text)["command"][3] == "https://user:[redacted]@gateway.example/v1?api-key=[redacted]"


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_the_lock_of_a_killed_run_is_stale_and_taken_over(tmp_path: Path) -> None:
    code = (
        "import sys, time; from pathlib import Path; from debate_eval.tasks.engine.lock import RunLock; "
        "RunLock(Path(sys.argv[1])).acquire(); print('locked', flush=True); time.sleep(60)"
    )
    child = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "locked"
        with pytest.raises(UserError):
            RunLock(tmp_path).acquire()  # alive: refused
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert (tmp_path / LOCK_FILE).exists()
    with RunLock(tmp_path) as lock:
        assert lock.took_over is not None and lock.took_over["pid"] == child.pid


def test_two_stores_on_one_directory_cannot_coexist(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path, {"config_hash": "h"}, "h")
    try:
        with pytest.raises(UserError, match="is in use by another debate-eval run"):
            ResultsStore(tmp_path, {"config_hash": "h"}, "h")
    finally:
        store.close()
    ResultsStore(tmp_path, {"config_hash": "h"}, "h").close()


def test_retrying_rewrites_atomically_and_keeps_every_other_line_byte_for_byte(tmp_path: Path) -> None:
    def line(item: str, error: str | None) -> str:
        record = {"item_id": item, "dataset": "summeval", "aspect": "coherence", "config_hash": "h", "error": error}
        return json.dumps(record, ensure_ascii=False, indent=None, separators=(",", ":")) + "\n"  # not our style

    lines = [line("a", None), line("b", "APITimeoutError: x"), line("c – ü", None), line("d", "boom")]
    (tmp_path / "results.jsonl").write_text("".join(lines), encoding="utf-8")
    store = ResultsStore(tmp_path, {"config_hash": "h"}, "h")
    try:
        assert store.done_ids() == {"a", "c – ü"}
        store.prepare_retries(["b", "d"])
        assert (tmp_path / "results.jsonl").read_text(encoding="utf-8") == lines[0] + lines[2]
        assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_FILE, "config.json", "results.jsonl"]
        store.append({"item_id": "b", "dataset": "summeval", "aspect": "coherence", "config_hash": "h"})
    finally:
        store.close()
    assert [json.loads(x)["item_id"] for x in (tmp_path / "results.jsonl").read_text().splitlines()] == [
        "a",
        "c – ü",
        "b",
    ]


def test_live_owner_names_a_held_lock_only_and_writes_nothing(tmp_path: Path) -> None:
    from debate_eval.tasks.engine.lock import live_owner

    assert live_owner(tmp_path) is None  # no lock file
    with RunLock(tmp_path):
        owner = live_owner(tmp_path)
        assert owner is not None and owner["pid"] == os.getpid()
        with pytest.raises(UserError, match="in use by another debate-eval run"):
            RunLock(tmp_path).acquire()  # the holder still holds it: the look took nothing
    (tmp_path / LOCK_FILE).write_text('{"pid": 1, "host": "elsewhere"}\n')  # left by a run that ended
    assert live_owner(tmp_path) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_FILE]
