"""The parent of --workers / --ray appends each worker line as the worker wrote it (byte for byte, never decoded
and encoded again), indexes and counts it, and a resume finds those items done."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from debate_eval.tasks.engine import build
from debate_eval.tasks.engine.backends.workers import DONE, RECORDS, Backend, run_workers
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.run_config import RunOptions
from debate_eval.tasks.engine.runner import run

ITEMS = 6


def request(out: Path) -> RunRequest:
    return RunRequest.from_mapping(
        {
            "dataset": "summeval",
            "aspect": "coherence",
            "limit": ITEMS,
            "method": "geval",
            "provider": "scripted",
            "out": str(out),
            "no_cache": True,
            "progress": "none",
        }
    )


class LinesBackend(Backend):
    """Shards that 'write' the given lines: every line at the first look, then done."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines
        self.started: list[int] = []

    def start(self, k: int, options: RunOptions, done: set[str]) -> None:
        self.started.append(k)

    def events(self) -> Iterator[tuple[int, str, Any]]:
        for k in self.started:
            if k == 0:
                yield k, RECORDS, list(self.lines)
            yield k, DONE, None
        self.started = []


def test_worker_lines_are_appended_as_written(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config, options = build.build_run(request(isolated_env / "single"))
    asyncio.run(run(config, options))
    written = (isolated_env / "single" / "results.jsonl").read_bytes().splitlines(keepends=True)
    assert len(written) == ITEMS
    # the same records laid out as no encoder of this package writes them: any re-encoding would show
    lines = [json.dumps(json.loads(raw), indent=None, separators=(" ,", ":  ")).encode() + b"\n" for raw in written]
    lines[-1] = lines[-1].rstrip(b"\n")  # a last line as a tail hands it over (the newline is added)
    encoded: list[str] = []
    to_json = Record.to_json

    def counting_to_json(self: Record) -> dict[str, Any]:
        encoded.append(self.key)
        return to_json(self)

    monkeypatch.setattr(Record, "to_json", counting_to_json)
    out = isolated_env / "workers"
    config, options = build.build_run(request(out))
    summary = asyncio.run(run_workers(config, options, backend=LinesBackend(lines), shards=2))
    assert encoded == []
    assert (out / "results.jsonl").read_bytes() == b"".join(lines) + b"\n"
    assert summary.now.finished == summary.total.finished == ITEMS
    assert summary.total.accounting.llm_calls + summary.total.accounting.cached_calls == ITEMS
    resumed = asyncio.run(run_workers(config, options, backend=LinesBackend([]), shards=2))
    assert resumed.already_done == ITEMS and resumed.total.finished == ITEMS
