"""The first run: the README's main job on the embedded default model, timed end to end, with its phases.

Runs the README's command (``debate-eval run --dataset summeval --aspect coherence --limit 4``, or with
``--method geval``) as a new user would - a fresh process, an empty response cache, a fresh run directory,
no API key or base URL in the environment - and reports:

- the outcome: items scored, model calls, prompt and completion tokens (``summary.json``);
- the cost: wall time and CPU time of the command and its children (the llama.cpp server included), with
  the load averages before and after (``os.getloadavg``: other work on the machine slows it down);
- the phases: start-up (process start to the run's first line: imports, configuration, the embedded server's
  start and the endpoint check; the model load alone, from the server's log), and per role the server's own
  prompt-processing and generation times (llama.cpp's ``print_timing`` lines in the run's
  ``embedded-server.log``, matched to the transcript's calls by their token counts), the prompt tokens it
  processed and those its cache served.

Usage (from the repository root; ``--cli`` runs another checkout's command, e.g. the version before a change)::

    python scripts/bench_first_run.py                      # the README's main job
    python scripts/bench_first_run.py --method geval       # its G-Eval form
    python scripts/bench_first_run.py --answer-format free --json free.json
    python scripts/bench_first_run.py --env DEBATE_EVAL_EMBEDDED_THREADS=2   # a server setting against another
    python scripts/bench_first_run.py --cli "/path/to/old/.venv/bin/python -m debate_eval.tasks.cli.main"

Prints a Markdown section (paste it into benchmarks/first_run.md); ``--json PATH`` also writes the figures.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

TIMING = re.compile(
    r"^(?P<t>\d+\.\d+\.\d+\.\d+) .*task (?P<task>\d+) \|\s+(?P<what>prompt eval|eval) time =\s+(?P<ms>[\d.]+) ms /"
    r"\s+(?P<tokens>\d+) tokens"
)
RELEASE = re.compile(r"task (?P<task>\d+) \| stop processing: n_tokens = (?P<n>\d+)")
LISTENING = re.compile(r"^(?P<t>\d+\.\d+\.\d+\.\d+) .*listening on")
THREADS = re.compile(r"n_threads = (?P<n>\d+)")
THREAD_CHOICE = re.compile(r"^debate-eval: \d+ llama\.cpp thread\(s\), from (?P<how>.*)$")
ENV_PREFIXES = ("OPENAI_", "DEBATE_EVAL_", "AZURE_OPENAI_", "ANTHROPIC_", "GEMINI_")


@dataclass
class Task:
    """One request as llama.cpp's server logged it."""

    task: int
    prompt_ms: float = 0.0
    prompt_tokens: int = 0  # tokens processed (not served from its cache)
    gen_ms: float = 0.0
    gen_tokens: int = 0
    total_tokens: int = 0  # prompt + generated, at release


@dataclass
class RoleFigures:
    """One role's calls and the server's time for them."""

    calls: int = 0
    prompt_tokens: int = 0  # billed: processed + served from the cache
    processed_tokens: int = 0
    completion_tokens: int = 0
    prompt_s: float = 0.0
    generation_s: float = 0.0


@dataclass
class Measurement:
    """Everything one run of the benchmark measured."""

    command: str
    started_utc: str
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    cpus: int
    wall_s: float
    cpu_s: float  # user + system of the command and its children
    first_line_s: float | None  # process start to the run's first line on stderr (endpoints ready)
    server_load_s: float | None  # the llama.cpp server's model load, from its log
    threads: int | None = None  # llama.cpp's threads, from its log
    threads_from: str | None = None  # why that many (the run's line in the log; None before it wrote one)
    items: int = 0
    scored: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    answers: dict[str, Any] | None = None  # config.json's answer formats (None: free answers)
    roles: dict[str, RoleFigures] = field(default_factory=dict)
    unmatched_tasks: int = 0
    exit_code: int = 0


def parse_server_log(path: Path) -> tuple[list[Task], float | None, int | None, str | None]:
    """The server's requests in launch order, its load time (seconds from its first log line), its threads and
    why that many (the run's own line at the top of the log)."""
    tasks: dict[int, Task] = {}
    load_s = None
    threads = None
    why = None
    if not path.is_file():
        return [], None, None, None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        choice = THREAD_CHOICE.match(line)
        if choice and why is None:
            why = choice.group("how")
        match = THREADS.search(line)
        if match and threads is None:
            threads = int(match.group("n"))
        match = TIMING.search(line)
        if match:
            task = tasks.setdefault(int(match.group("task")), Task(int(match.group("task"))))
            if match.group("what") == "prompt eval":
                task.prompt_ms, task.prompt_tokens = float(match.group("ms")), int(match.group("tokens"))
            else:
                task.gen_ms, task.gen_tokens = float(match.group("ms")), int(match.group("tokens"))
            continue
        match = RELEASE.search(line)
        if match and int(match.group("task")) in tasks:
            tasks[int(match.group("task"))].total_tokens = int(match.group("n"))
            continue
        match = LISTENING.search(line)
        if match and load_s is None:
            load_s = log_seconds(match.group("t"))
    return [tasks[k] for k in sorted(tasks)], load_s, threads, why


def log_seconds(stamp: str) -> float:
    """llama.cpp's ``M.SS.mmm.uuu`` log time in seconds."""
    minutes, seconds, millis, micros = (int(part) for part in stamp.split("."))
    return minutes * 60 + seconds + millis / 1000 + micros / 1e6


def transcript_calls(results: Path) -> list[tuple[str, int, int]]:
    """(role, prompt tokens, completion tokens) of every model call in the run's transcripts, cached ones left
    out (they never reached the server)."""
    calls = []
    for line in results.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for entry in record.get("transcript") or []:
            usage = entry.get("usage")
            if usage and not entry.get("cached"):
                calls.append((entry["role"], int(usage["prompt_tokens"]), int(usage["completion_tokens"])))
    return calls


def attribute(tasks: list[Task], calls: list[tuple[str, int, int]]) -> tuple[dict[str, RoleFigures], int]:
    """Per role figures: each logged request matched to the transcript call with the same completion tokens
    and the nearest total (prompt + completion); requests with no such call (the endpoint check) are counted
    apart."""
    roles: dict[str, RoleFigures] = defaultdict(RoleFigures)
    free = list(calls)
    unmatched = 0
    for task in tasks:
        candidates = [c for c in free if abs(c[2] - task.gen_tokens) <= 1]
        if not candidates:
            unmatched += 1
            continue
        call = min(candidates, key=lambda c: abs(c[1] + c[2] - task.total_tokens))
        if abs(call[1] + call[2] - task.total_tokens) > 8:
            unmatched += 1
            continue
        free.remove(call)
        figures = roles[call[0]]
        figures.calls += 1
        figures.prompt_tokens += call[1]
        figures.processed_tokens += task.prompt_tokens
        figures.completion_tokens += call[2]
        figures.prompt_s += task.prompt_ms / 1000
        figures.generation_s += task.gen_ms / 1000
    return dict(roles), unmatched


def run_command(command: list[str], env: dict[str, str], log: Path) -> tuple[int, float, float, float | None]:
    """Run ``command``; its exit code, wall time, CPU time (children included) and the time of its first
    stderr line. Its output is kept in ``log``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    first_line: list[float] = []
    with log.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.PIPE, text=True)
        assert process.stderr is not None

        def copy() -> None:
            assert process.stderr is not None
            for line in process.stderr:
                if not first_line:
                    first_line.append(time.perf_counter() - started)
                sink.write(line)
                sink.flush()

        reader = threading.Thread(target=copy, daemon=True)
        reader.start()
        code = process.wait()
        reader.join(10)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return code, wall, cpu, first_line[0] if first_line else None


def measure(args: argparse.Namespace, work: Path) -> Measurement:
    """One run of the README's main job in ``work``."""
    out, cache = work / "run", work / "cache"
    cli = shlex.split(args.cli) if args.cli else [shutil.which("debate-eval") or "debate-eval"]
    job = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(args.limit)]
    if args.method != "debate":
        job += ["--method", args.method]
    if args.answer_format:
        job += ["--answer-format", args.answer_format]
    job += ["--out", str(out), *args.extra]
    env = {k: v for k, v in os.environ.items() if not k.startswith(ENV_PREFIXES)}
    env["DEBATE_EVAL_CACHE_DIR"] = str(cache)  # an empty response cache, as on a first run
    env["HOME"] = str(work)  # no ~/.cache data or .env of the developer's
    if os.environ.get("DEBATE_EVAL_DATA_DIR") and args.keep_data_dir:
        env["DEBATE_EVAL_DATA_DIR"] = os.environ["DEBATE_EVAL_DATA_DIR"]
    for setting in args.env:  # e.g. DEBATE_EVAL_EMBEDDED_THREADS=2, to compare a server setting
        name, _, value = setting.partition("=")
        env[name] = value
    load_before = os.getloadavg()
    started = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    code, wall, cpu, first_line = run_command([*cli, *job], env, work / "output.txt")
    load_after = os.getloadavg()
    tasks, load_s, threads, why = parse_server_log(out / "embedded-server.log")
    figures = Measurement(
        command=" ".join([*args.env, "debate-eval", *job[: job.index("--out")]]),
        started_utc=started,
        load_before=tuple(round(x, 2) for x in load_before),  # type: ignore[arg-type]
        load_after=tuple(round(x, 2) for x in load_after),  # type: ignore[arg-type]
        cpus=os.cpu_count() or 0,
        wall_s=round(wall, 1),
        cpu_s=round(cpu, 1),
        first_line_s=round(first_line, 2) if first_line is not None else None,
        server_load_s=round(load_s, 2) if load_s is not None else None,
        threads=threads,
        threads_from=why,
        exit_code=code,
    )
    summary_path = out / "summary.json"
    if summary_path.is_file():
        summary = json.loads(summary_path.read_text(encoding="utf-8"))
        usage = summary.get("usage") or {}
        figures.items = summary.get("items", 0)
        figures.scored = summary.get("parsed", 0)
        figures.llm_calls = summary.get("llm_calls", 0)
        roles = usage.get("roles", usage) if isinstance(usage, dict) else {}
        figures.prompt_tokens = sum(int(r.get("prompt_tokens", 0)) for r in roles.values() if isinstance(r, dict))
        figures.completion_tokens = sum(
            int(r.get("completion_tokens", 0)) for r in roles.values() if isinstance(r, dict)
        )
    config_path = out / "config.json"
    if config_path.is_file():
        figures.answers = json.loads(config_path.read_text(encoding="utf-8"))["result_config"].get("answers")
    if (out / "results.jsonl").is_file():
        figures.roles, figures.unmatched_tasks = attribute(tasks, transcript_calls(out / "results.jsonl"))
    return figures


def markdown(m: Measurement, title: str) -> str:
    """The measurement as a Markdown section."""
    load = "/".join(f"{x:.2f}" for x in m.load_before)
    load_after = "/".join(f"{x:.2f}" for x in m.load_after)
    answers = (
        "free (as the papers)"
        if not m.answers
        else f"{m.answers['requested']}: " + ", ".join(f"{role} {mode}" for role, mode in m.answers["modes"].items())
    )
    first_line = (
        f"first line on stderr after {m.first_line_s} s (imports, configuration, server start, endpoint check)"
        if m.first_line_s is not None
        else "no line on stderr before the end"
    )
    lines = [
        f"### {title}",
        "",
        f"- Command: `{m.command}` (exit {m.exit_code}); {m.started_utc}; {m.cpus} CPUs; load average "
        f"(1/5/15 min) {load} before, {load_after} after",
        f"- Answers: {answers}",
        f"- Outcome: {m.scored}/{m.items} items scored; {m.llm_calls} model calls; {m.prompt_tokens:,} prompt + "
        f"{m.completion_tokens:,} completion tokens",
        f"- Time: **{m.wall_s:.1f} s wall**, {m.cpu_s:.1f} s CPU (the command and the llama.cpp server)",
        f"- Start-up: {first_line}; model load {m.server_load_s} s (server log); {m.threads} llama.cpp thread(s)"
        + (f", from {m.threads_from}" if m.threads_from else ""),
        "",
        "| role | calls | prompt tokens | processed (not from the cache) | completion tokens | prompt processing s"
        " | generation s |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    total = RoleFigures()
    for role, r in sorted(m.roles.items()):
        lines.append(
            f"| {role} | {r.calls} | {r.prompt_tokens:,} | {r.processed_tokens:,} | {r.completion_tokens:,} | "
            f"{r.prompt_s:.1f} | {r.generation_s:.1f} |"
        )
        for name in ("calls", "prompt_tokens", "processed_tokens", "completion_tokens", "prompt_s", "generation_s"):
            setattr(total, name, getattr(total, name) + getattr(r, name))
    lines.append(
        f"| all | {total.calls} | {total.prompt_tokens:,} | {total.processed_tokens:,} | {total.completion_tokens:,}"
        f" | {total.prompt_s:.1f} | {total.generation_s:.1f} |"
    )
    lines += [
        "",
        "Server times are llama.cpp's own per request (two slots work at once, so their sum can exceed the wall "
        f"time); {m.unmatched_tasks} logged request(s) not in the transcripts (the endpoint check).",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", default="debate", help="debate (the README's main job) or geval")
    parser.add_argument("--limit", type=int, default=4)
    parser.add_argument("--answer-format", help="pass --answer-format (default: the command's own default)")
    parser.add_argument("--cli", help="the command to run instead of debate-eval (another checkout's)")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set this variable for the command (repeatable), e.g. DEBATE_EVAL_EMBEDDED_THREADS=2",
    )
    parser.add_argument("--title", help="the Markdown section's title")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--keep", help="keep the run directory and output here (default: a temporary folder)")
    parser.add_argument(
        "--keep-data-dir",
        action="store_true",
        help="pass $DEBATE_EVAL_DATA_DIR on (SummEval ships with the package, so a fresh clone needs none)",
    )
    parser.add_argument("extra", nargs="*", help="more arguments for the command (after --)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-first-run-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        figures = measure(args, work)
    title = args.title or f"{args.method}, {figures.started_utc}"
    print(markdown(figures, title))
    if args.json:
        data = asdict(figures)
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0 if figures.exit_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
