"""Resume of a run whose items are all finished: wall time and peak RSS at several sizes (flat memory).

For each size N the script writes an own-data JSONL file of N rows, runs ``debate-eval run`` on its first 8
rows (G-Eval, scripted provider) to get the run directory's ``config.json`` and a real record, then writes
N records (that record with each row's id) into ``results.jsonl`` and times the same command over all N rows
(nothing left to do: the resume reads the file and writes ``summary.json``), in a fresh process measured by
``/usr/bin/time -v``, twice: the first resume finds no resume index (``results.index.json``) and reads and checks
every line, then writes the index; the second finds the index matching the file and decodes no line. Prints a
Markdown table.

    python scripts/bench_resume.py --sizes 10000 100000 [--work DIR]

``--worker-lines N`` also times, in this process, what the parent of ``--workers``/``--ray`` spends on each
worker line over the first N lines of the smallest size's file (CPU time): the line decoded into a record
with its transcript, redacted and encoded again (what the parent did before it appended raw lines), against
the line decoded once without its transcript (``workers.line_record``, what it does now before
``ResultsStore.append_raw``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def command(data: Path, out: Path, limit: int | None) -> list[str]:
    """The ``debate-eval run`` command of the benchmark."""
    argv = [sys.executable, "-m", "debate_eval.tasks.cli.main", "run", "--dataset", str(data)]
    argv += ["--fields", "source=doc,output=summ,human=rating", "--aspect", "quality", "--criteria", "Faithful?"]
    argv += ["--scale", "1-5", "--method", "geval", "--provider", "scripted", "--no-progress", "--out", str(out)]
    return argv + (["--limit", str(limit)] if limit else [])


def prepare(work: Path, size: int) -> tuple[Path, Path]:
    """The data file and a run directory holding ``size`` finished records."""
    data, out = work / f"rows-{size}.jsonl", work / f"run-{size}"
    with data.open("w", encoding="utf-8") as handle:
        for i in range(size):
            row = {"doc": f"Article {i}: the council met on Monday and approved the budget.", "summ": f"Summary {i}."}
            handle.write(json.dumps({**row, "rating": 1 + i % 5}) + "\n")
    subprocess.run(command(data, out, 8), check=True, capture_output=True)
    template = json.loads((out / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])
    with (out / "results.jsonl").open("w", encoding="utf-8") as handle:
        for i in range(size):
            item = f"row-{i + 1}"
            handle.write(json.dumps({**template, "item_id": item, "group_id": item}, ensure_ascii=False) + "\n")
    return data, out


def measure(data: Path, out: Path) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak RSS (MB) and the summary line of the resume."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command(data, out, None)], capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr[-2000:])
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    first = next((line for line in done.stdout.splitlines() if "already done" in line), "")
    cpu = sum(float(m) for m in re.findall(r"(?:User|System) time \(seconds\): ([\d.]+)", done.stderr))
    return wall, cpu, int(rss.group(1)) / 1024 if rss else float("nan"), first


def worker_lines(path: Path, count: int) -> None:
    """Print the parent's CPU time per worker line, re-encoding (before) against decoding once (now)."""
    from debate_eval.agents.redaction import redact_record
    from debate_eval.tasks.engine.backends.workers import line_record
    from debate_eval.tasks.engine.record import Record

    def encoded_again(raw: bytes) -> bytes:
        line, _ = redact_record(Record.from_json(json.loads(raw)).to_json())
        return (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8")

    lines = path.read_bytes().splitlines(keepends=True)[:count]
    for name, step in (("decoded, redacted and encoded again", encoded_again), ("decoded once", line_record)) * 2:
        started = time.process_time()
        for raw in lines:
            step(raw)
        spent = (time.process_time() - started) / len(lines) * 1e6
        print(f"worker line {name}: {spent:.0f} us CPU a line ({len(lines):,} lines)")


def main() -> None:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10000, 100000])
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--worker-lines", type=int, default=0, help="time the parent's work per worker line")
    args = parser.parse_args()
    os.environ.setdefault("DEBATE_EVAL_DATA_DIR", str(Path.cwd() / "data"))
    with tempfile.TemporaryDirectory(prefix="bench-resume-") as temp:
        work = args.work or Path(temp)
        work.mkdir(parents=True, exist_ok=True)
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        print("| items | results.jsonl | resume, no index: wall, CPU, peak RSS | resume, index kept | first line |")
        print("|---:|---:|---:|---:|---|")
        for size in args.sizes:
            data, out = prepare(work, size)
            megabytes = (out / "results.jsonl").stat().st_size / 1e6
            wall, cpu, rss, first = measure(data, out)
            kept_wall, kept_cpu, kept_rss, _ = measure(data, out)
            print(
                f"| {size:,} | {megabytes:.0f} MB | {wall:.2f} s, {cpu:.2f} s, {rss:.0f} MB | {kept_wall:.2f} s, "
                f"{kept_cpu:.2f} s, {kept_rss:.0f} MB | {first} |",
                flush=True,
            )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        if args.worker_lines:
            worker_lines(work / f"run-{min(args.sizes)}" / "results.jsonl", args.worker_lines)


if __name__ == "__main__":
    main()
