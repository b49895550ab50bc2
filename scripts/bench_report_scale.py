"""Report and show benchmark: a G-Eval run of N items (own-data JSONL on scripted endpoints, as
``bench_scale.py`` builds it), then ``report``, ``show`` and ``show --item`` on it, each in a process of its own
under /usr/bin/time (wall seconds, peak RSS), with this checkout's code and, with ``--before PYTHON``, with
another interpreter's (a checkout of an earlier commit installed in a venv of its own). Writes a Markdown
table into its own section of ``--out`` (printed in any case).

    python scripts/bench_report_scale.py --items 40000 --before /tmp/before/.venv/bin/python
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import replace_section  # sibling script
from bench_scale import Servers, mb, run_command, timed, write_data  # sibling script

MODULE = ["-m", "debate_eval.tasks.cli.main"]
SECTION = "report and show"  # this script's section of the --out file (bench_report.replace_section)


def commands(run: Path, page: Path) -> dict[str, list[str]]:
    """The measured commands (the arguments after ``-m debate_eval.tasks.cli.main``)."""
    return {
        "report": ["report", str(run), "--out", str(page)],
        "show": ["show", str(run)],
        "show --item (the last item)": ["show", str(run), "--item", last_id(run)],
    }


def measure(pythons: dict[str, str], run: Path, work: Path, env: dict[str, str], repeat: int) -> list[str]:
    """The table rows: each command with each Python, ``repeat`` rounds with the codes taking turns (the
    machine's load moves: each row gives the median wall, every wall, and the largest peak RSS)."""
    walls: dict[tuple[str, str], list[float]] = {}
    peaks: dict[tuple[str, str], float] = {}
    outputs: dict[tuple[str, str], str] = {}
    for _ in range(repeat):
        for label, python in pythons.items():
            page = work / f"report-{label}.html"
            for name, arguments in commands(run, page).items():
                wall, rss, out = timed([python, *MODULE, *arguments], env)
                walls.setdefault((label, name), []).append(wall)
                peaks[(label, name)] = max(peaks.get((label, name), 0.0), rss)
                lines = f"{len(out.splitlines()):,} lines"
                outputs[(label, name)] = f"page {mb(page):.1f} MB" if name == "report" else lines
                print(f"{label} {name}: {wall:.1f} s, {rss:.0f} MB", flush=True)
    rows = []
    for name in commands(run, work / "page.html"):
        for label in pythons:
            seen = sorted(walls[(label, name)])
            every = ", ".join(f"{w:.1f}" for w in walls[(label, name)])
            rows.append(
                f"| {label} | `{name}` | {seen[len(seen) // 2]:.1f} s ({every}) | {peaks[(label, name)]:.0f} MB | "
                f"{outputs[(label, name)]} |"
            )
    return rows


def last_id(run: Path) -> str:
    """The item id of the results file's last line (what ``show --item`` finds after reading every line)."""
    import json

    with (run / "results.jsonl").open("rb") as handle:
        handle.seek(max(0, (run / "results.jsonl").stat().st_size - 1_000_000))
        return str(json.loads(handle.read().splitlines()[-1])["item_id"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=40000)
    parser.add_argument("--run", help="measure this run directory instead of building one")
    parser.add_argument("--keep", help="build the run into this folder and keep it (for --run later)")
    parser.add_argument("--before", help="another Python (an earlier checkout's venv) to measure the same run with")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every command (the codes take turns)")
    parser.add_argument("--out", help="Markdown file to write the table into (its own section; default: print only)")
    args = parser.parse_args(argv)
    command = "python scripts/bench_report_scale.py " + " ".join(argv if argv is not None else sys.argv[1:])
    work = Path(tempfile.mkdtemp(prefix="bench-report-"))
    env = {**os.environ, "DEBATE_EVAL_CACHE_DIR": str(work / "cache")}
    load_before = os.getloadavg()
    try:
        if args.run:
            run = Path(args.run)
        else:
            run = Path(args.keep) if args.keep else work / "run"
            data = work / "data.jsonl"
            write_data(data, args.items)
            servers = Servers(2)
            try:
                wall, rss, _ = timed(run_command(data, run, servers.urls, args.concurrency), env)
            finally:
                servers.close()
            print(f"run: {args.items:,} items, {wall:.0f} s, {rss:.0f} MB", flush=True)
        items = sum(1 for _ in (run / "results.jsonl").open("rb"))
        size = mb(run / "results.jsonl")
        pythons = {"before": args.before} if args.before else {}
        rows = measure({**pythons, "now": sys.executable}, run, work, env, args.repeat)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = os.getloadavg()
    text = (
        f"Command: `{command}` (at {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC); {items:,} items, "
        f"results.jsonl {size:.0f} MB. Machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; load average {load_before[0]:.1f} before, {load_after[0]:.1f} after.\n\n"
        "| code | command | wall: median (each round) | peak RSS (largest) | output |\n"
        "|---|---|---:|---:|---|\n" + "\n".join(rows) + "\n"
    )
    print(text)
    if args.out:
        replace_section(Path(args.out), SECTION, f"## report and show\n\n{text}", title="Scale")
    return 0


if __name__ == "__main__":
    sys.exit(main())
