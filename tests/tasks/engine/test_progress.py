"""The progress display (tasks/engine/progress.py): which mode for which stream, the plain lines for logs (one
per finished item, at most one per interval, the last always), retry lines, extra fields, and silence."""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from debate_eval.agents.models.providers.scripted_server import Fault, ScriptedOpenAIServer
from debate_eval.tasks.engine.progress import BAR, LINES, NONE, Progress, duration, resolve_mode
from debate_eval.tasks.engine.record import Record


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@dataclass
class Counts:
    failed: int = 0
    parsed: int = 0
    unparsed: int = 0


@dataclass
class Stats:
    retries: Counter[str] = field(default_factory=Counter)


@dataclass
class Event:
    text: str

    def line(self) -> str:
        return self.text


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


RECORD = Record(
    item_id="1",
    dataset="summeval",
    aspect="coherence",
    usage={"scorer": {"prompt_tokens": 100, "completion_tokens": 20}},
    llm_calls=3,
)


def test_modes() -> None:
    assert resolve_mode(None, Tty()) == BAR and resolve_mode("auto", Tty()) == BAR
    assert resolve_mode(None, io.StringIO()) == LINES  # a file, a pipe: plain lines
    assert resolve_mode(False, Tty()) == NONE and resolve_mode("lines", Tty()) == LINES
    with pytest.raises(ValueError, match="unknown progress mode"):
        resolve_mode("dots", io.StringIO())


def test_lines_one_per_item_at_most_one_per_interval_the_last_always() -> None:
    stream, clock, stats = io.StringIO(), Clock(), Stats()
    progress = Progress(4, mode="lines", stream=stream, stats=stats, interval_s=10, clock=clock)
    progress.start("summeval/coherence [debate]: 4 items selected, 0 already done")
    clock.now += 20
    progress.update(RECORD, Counts(parsed=1))  # first: shown at once
    clock.now += 2
    stats.retries["timeout"] += 1
    progress.retry(Event("debate-eval: retry 1 of 6 in 1.0 s after no complete answer within 120 s"))
    progress.update(RECORD, Counts(parsed=1, unparsed=1))  # 2 s later: held back (no event loop to flush it)
    clock.now += 10
    progress.update(RECORD, Counts(parsed=2, unparsed=1))  # the interval is over: shown
    clock.now += 1
    progress.update(RECORD, Counts(failed=1, parsed=2, unparsed=1))  # the last item: always shown
    progress.close()
    lines = stream.getvalue().splitlines()
    assert lines == [
        "summeval/coherence [debate]: 4 items selected, 0 already done",
        "debate-eval: 1/4 items (0 failed, 1 parsed) | 3 calls, 120 tokens, 0 retries | 20 s elapsed",
        "debate-eval: retry 1 of 6 in 1.0 s after no complete answer within 120 s",
        "debate-eval: 3/4 items (0 failed, 2 parsed) | 9 calls, 360 tokens, 1 retries | 32 s elapsed, ETA 6 s",
        "debate-eval: 4/4 items (1 failed, 2 parsed) | 12 calls, 480 tokens, 1 retries | 33 s elapsed",
    ]


def test_a_held_back_update_is_shown_when_its_interval_ends() -> None:
    async def scenario() -> list[str]:
        stream = io.StringIO()
        progress = Progress(3, mode="lines", stream=stream, interval_s=0.05)
        progress.update(RECORD, Counts(parsed=1))
        progress.update(RECORD, Counts(parsed=2))  # held back...
        await asyncio.sleep(0.2)  # ...and shown when the interval is over, with no further item
        lines = stream.getvalue().splitlines()
        progress.close()
        return lines

    lines = asyncio.run(scenario())
    assert [line.split(" items")[0] for line in lines] == ["debate-eval: 1/3", "debate-eval: 2/3"]


def test_extra_fields_end_the_line() -> None:
    stream = io.StringIO()
    progress = Progress(2, mode="lines", stream=stream)
    progress.add_field("budget", lambda: "1,200 tok/min left")
    progress.add_field("absent", lambda: None)
    progress.update(RECORD, Counts(parsed=1))
    assert stream.getvalue().rstrip().endswith("| budget=1,200 tok/min left")


def test_quiet_none_and_the_bar_prints_the_start_and_retries_above_it() -> None:
    silent = io.StringIO()
    progress = Progress(1, mode="quiet", stream=silent)
    progress.start("start")
    progress.retry(Event("retry"))
    progress.update(RECORD, Counts(parsed=1))
    progress.close()
    assert silent.getvalue() == ""
    retries_only = io.StringIO()
    progress = Progress(1, mode="none", stream=retries_only)
    progress.start("start")
    progress.retry(Event("retry 1 of 6"))
    progress.update(RECORD, Counts(parsed=1))
    progress.close()
    assert retries_only.getvalue() == "debate-eval: retry 1 of 6\n"
    terminal = Tty()
    bar = Progress(1, stream=terminal)
    assert bar.mode == BAR
    bar.start("summeval/coherence [debate]: 1 items selected, 0 already done")
    bar.retry(Event("retry 1 of 6 after HTTP 503"))
    bar.update(RECORD, Counts(parsed=1))
    bar.close()
    shown = terminal.getvalue()
    assert "1 items selected" in shown and "debate-eval: retry 1 of 6 after HTTP 503" in shown and "1/1" in shown


def test_durations() -> None:
    assert [duration(s) for s in (0.4, 59, 61, 3600 + 120)] == ["0 s", "59 s", "1 min 1 s", "1 h 2 min"]


def test_a_run_logged_to_a_file_shows_its_start_items_and_retries(isolated_env: Path) -> None:
    """The first-run acceptance case: ``debate-eval run ... > log 2>&1`` (no terminal) writes the start line first,
    a line per finished item (at most one per 10 s: here the first and the last) and a line per retry with
    its cause."""
    log = isolated_env / "run.log"
    env = {**os.environ, "DEBATE_EVAL_RETRY_BACKOFF": "0.01"}
    with ScriptedOpenAIServer(faults=[Fault(status=503, message="overloaded")]) as server:
        args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "3", "--method", "geval"]
        args += [
            "--base-url",
            server.base_url,
            "--model",
            "scripted",
            "--out",
            str(isolated_env / "out"),
            "--no-preflight",
        ]
        with log.open("w", encoding="utf-8") as sink:
            code = subprocess.run(
                [sys.executable, "-m", "debate_eval.tasks.cli.main", *args],
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=env,
                timeout=300,
                check=False,
            ).returncode
    lines = log.read_text(encoding="utf-8").splitlines()
    assert code == 0, lines
    assert lines[0] == "summeval/coherence [geval]: 3 items selected, 0 already done"
    retries = [line for line in lines if line.startswith("debate-eval: retry 1 of 6")]
    assert len(retries) == 1 and "HTTP 503" in retries[0], lines
    items = [line for line in lines if re.match(r"debate-eval: \d/3 items", line)]
    assert items[0].startswith("debate-eval: 1/3 items (0 failed, 1 parsed)") and len(items) >= 2, lines
    assert items[-1].startswith("debate-eval: 3/3 items (0 failed, 3 parsed) | 3 calls") and "1 retries" in items[-1]
    assert lines.index(items[-1]) < lines.index("summeval/coherence [geval]: 3 items selected, 0 already done", 1)
