"""Start-up cost of the command line: CPU time, peak memory and imports of ``debate-eval --help`` and
``debate-eval run --help`` (and of ``import debate_eval``), measured in the current environment.

    python scripts/bench_startup.py [--repeat 7] [--out benchmarks/startup.md]

Each command runs ``--repeat`` times as ``python -m debate_eval.tasks.cli.main ...``; the CPU time (user +
system) and peak RSS come from ``os.wait4`` of each child; the imports from one more run under
``python -X importtime`` (modules imported, the sum of their own import times, and which heavy libraries were
loaded). A figure, not a test: the machine's load moves it (the tests only check which libraries --help loads).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
from pathlib import Path

COMMANDS = {
    "debate-eval --help": ["-m", "debate_eval.tasks.cli.main", "--help"],
    "debate-eval run --help": ["-m", "debate_eval.tasks.cli.main", "run", "--help"],
    "import debate_eval": ["-c", "import debate_eval"],
}
HEAVY = ("scipy", "autogen_core", "autogen_agentchat", "autogen_ext", "openai", "matplotlib", "pandas", "numpy")
IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|( *)(\S+)")


def measure(args: list[str]) -> tuple[float, int]:
    """CPU seconds (user + system) and peak RSS (MB) of one run of ``python ARGS``."""
    child = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode not in (0,):
        raise SystemExit(f"python {' '.join(args)} exited with {child.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def imports(args: list[str]) -> tuple[int, float, list[str]]:
    """Modules imported, the sum of their own import times (s), and the heavy libraries among them."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, check=True)
    names, total = [], 0
    for line in done.stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match:
            total += int(match.group(1))
            names.append(match.group(3))
    heavy = sorted({name.split(".")[0] for name in names} & set(HEAVY))
    return len(names), total / 1e6, heavy


def main(argv: list[str] | None = None) -> int:
    """Measure every command and print (or write) the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (default 7)")
    parser.add_argument("--out", type=Path, help="append the table to this Markdown file")
    args = parser.parse_args(argv)
    rows = [
        "| command | CPU s, median (min-max) | peak RSS MB | modules | import s | heavy libraries |",
        "|---|---|---|---|---|---|",
    ]
    for label, command in COMMANDS.items():
        runs = [measure(command) for _ in range(args.repeat)]
        cpu = [c for c, _ in runs]
        count, seconds, heavy = imports(command)
        rows.append(
            f"| `{label}` | {statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) | "
            f"{max(m for _, m in runs)} | {count} | {seconds:.2f} | {', '.join(heavy) or 'none'} |"
        )
    where = f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}"
    text = "\n".join([*rows, "", where]) + "\n"
    print(text, end="")
    if args.out:
        with args.out.open("a", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
