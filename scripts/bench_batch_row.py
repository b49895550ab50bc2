"""The ``--batch`` row of scripts/bench_throughput.py: DEBATE debates through the Batch API routes.

Starts ``ScriptedBatchServer`` (tests/support/batch_server.py) on 127.0.0.1 in a child process,
completing each batch ``batch_delay_ms`` after its creation, and runs ``debate_eval.tasks.engine.runner.run``
with ``RunOptions(batch=...)`` on the first ``debates`` SummEval coherence items: every item in flight, one
batch per sequential step. Checks every record and the server's counts; returns wall time and batches.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from debate_eval.agents.models.batch import BatchOptions
from debate_eval.agents.models.providers.scripted_server import STATS_PATH
from debate_eval.tasks.engine.results import read_jsonl
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
from debate_eval.tasks.engine.runner import run

BATCH_SERVER = Path(__file__).resolve().parents[1] / "tests" / "support" / "batch_server.py"  # a fake endpoint


@dataclass
class BatchRow:
    """One ``--batch`` measurement."""

    debates: int
    batch_delay_s: float
    wall_s: float
    batches: int
    lines: int
    polls: int


def _stats(base_url: str) -> dict:
    with urllib.request.urlopen(base_url + STATS_PATH, timeout=10) as response:
        return json.load(response)


async def measure_batch(
    make_config: object, debates: int, rounds: int, data_dir: Path, batch_delay_ms: float
) -> BatchRow:
    """Run ``debates`` debates with ``--batch`` against the scripted batch endpoint in a child process."""
    command = [sys.executable, str(BATCH_SERVER), "--batch-delay-ms", str(batch_delay_ms)]
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        if not base_url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"the scripted batch server did not start (it printed {base_url!r})")
        with tempfile.TemporaryDirectory() as tmp:
            config: RunConfig = make_config(base_url, rounds)  # type: ignore[operator]
            options = RunOptions(
                out_dir=Path(tmp) / "run", data_dir=data_dir, limit=debates, use_cache=False, progress=False,
                preflight=False, batch=BatchOptions(poll_s=0.05),
            )  # fmt: skip
            started = time.perf_counter()
            await run(config, options, stream=open(os.devnull, "w"))  # noqa: SIM115
            wall = time.perf_counter() - started
            records = read_jsonl(options.out_dir / "results.jsonl")
            stats = _stats(base_url)
        calls = 2 * rounds + 1
        bad = [r["item_id"] for r in records if r.get("error") or r.get("llm_calls") != calls]
        if len(records) != debates or bad or not 0 < stats["lines"] <= debates * calls or stats["requests"]:
            raise SystemExit(f"batch check failed: {len(records)} records, bad {bad[:3]}, server {stats}")
        return BatchRow(debates, batch_delay_ms / 1000, wall, stats["batches"], stats["lines"],
                        sum(stats["polls"].values()))  # fmt: skip
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=30)


def batch_lines(row: BatchRow, rounds: int) -> list[str]:
    """Markdown lines of the ``--batch`` row."""
    return [
        "",
        "## --batch",
        "",
        f"{row.debates} debates (n = {rounds}) with `RunOptions(batch=BatchOptions(poll_s=0.05))` against "
        f"`ScriptedBatchServer` in its own process, which completes a batch {row.batch_delay_s * 1000:.0f} ms "
        "after its creation (a real provider takes minutes to hours: the wall time here is the framework's "
        "own overhead plus one delay per batch).",
        "",
        "| debates | batches | expected 2n+1 | model calls | request lines | status polls | wall s |",
        "|---:|---:|---:|---:|---:|---:|---:|",
        f"| {row.debates} | {row.batches} | {2 * rounds + 1} | {row.debates * (2 * rounds + 1)} | {row.lines} | "
        f"{row.polls} | {row.wall_s:.2f} |",
        "",
        "Request lines can be fewer than model calls: identical requests of different items (SummEval has items "
        "with the same summary of the same article) go out once, keyed by the hash of their body.",
    ]
