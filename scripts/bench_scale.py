"""Scale benchmark: a G-Eval run (one call an item) over own-data JSONL of N items on scripted endpoints in
processes of their own, at --concurrency 64; then resume (all done), meta-eval, report and show on it; workers 1
vs 2, shards merged and a Ray run. Every command runs in a process of its own under /usr/bin/time (wall
seconds, peak RSS of the largest process). Writes benchmarks/scale.md (``--out``).

    python scripts/bench_scale.py --items 10000,40000 --compare-items 10000 --out benchmarks/scale.md

``--only meta-eval --run-dir DIR`` builds the run of ``--items`` items in DIR (kept; reused when it is there)
and times ``meta-eval`` on it alone, printing one row and writing no file: the same DIR measured by another
checkout's Python (``/path/to/other/.venv/bin/python scripts/bench_scale.py ...``) gives a before/after pair.

    python scripts/bench_scale.py --items 40000 --only meta-eval --run-dir /tmp/scale-40k

The workers, shards and Ray rows run on ``--workers-endpoint``: ``light`` (default; ``scripts/bench_endpoint.py``,
the same G-Eval answers at a fraction of the scripted server's CPU, so that the endpoints, on the same cores,
take little of what the workers need) or ``scripted``. Their CPU is split into the parent's, its workers' and
the endpoints' (seconds, and milliseconds per endpoint call). ``--workers-only --rounds N`` runs ``--workers 1``,
``--workers 2`` and two shards at once (no parent) N times in turn, each row with the load average before it;
on the light endpoint each row also gives its calls a second while calling (from the endpoints' first call of
the row to their last: the processes' start-up and data check, before the first call, are left out):

    python scripts/bench_scale.py --items "" --compare-items 10000 --workers-only --no-ray --rounds 3
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CLI = [sys.executable, "-m", "debate_eval.tasks.cli.main"]
ENDPOINTS = {  # what --workers-endpoint chooses
    "scripted": [sys.executable, str(Path(__file__).resolve().parent / "scripted_endpoint.py")],
    "light": [sys.executable, str(Path(__file__).resolve().parent / "bench_endpoint.py")],
}
ENDPOINT_TEXT = {
    "scripted": "the package's scripted server (threaded `http.server`)",
    "light": "`scripts/bench_endpoint.py` (asyncio, the same G-Eval answers with a score hashed from the item)",
}


class Servers:
    """``count`` endpoints of ``kind`` (``ENDPOINTS``), each a process of its own (stopped when their standard
    input closes)."""

    def __init__(self, count: int, kind: str = "scripted") -> None:
        self.kind = kind
        self.processes = [
            subprocess.Popen(ENDPOINTS[kind], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            for _ in range(count)
        ]
        self.urls = [p.stdout.readline().strip() for p in self.processes if p.stdout is not None]

    def cpu(self) -> float:
        """CPU seconds the endpoint processes have used so far."""
        return sum(sum(cpu_of(p.pid)) for p in self.processes)

    def requests(self) -> int:
        """Requests the endpoints have answered so far (their ``GET /scripted/stats``)."""
        total = 0
        for url in self.urls:
            with urllib.request.urlopen(url.removesuffix("/v1") + "/scripted/stats", timeout=30) as response:
                total += int(json.loads(response.read())["requests"])
        return total

    def window(self) -> tuple[float, float] | None:
        """When the first and the last call since the previous ``window`` came (the light endpoint's ``GET
        /bench/window``, over all endpoints; None when none was answered, or with the scripted server)."""
        if self.kind != "light":
            return None
        firsts, lasts = [], []
        for url in self.urls:
            with urllib.request.urlopen(url.removesuffix("/v1") + "/bench/window", timeout=30) as response:
                seen = json.loads(response.read())
            if seen["first"] is not None:
                firsts.append(seen["first"])
                lasts.append(seen["last"])
        return (min(firsts), max(lasts)) if firsts else None

    def close(self) -> None:
        for process in self.processes:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=30)


def timed(command: Sequence[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Run ``command`` under /usr/bin/time: wall seconds, peak RSS (MB) of its largest process, stdout."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        started = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", report.name, *command],
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        wall = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"failed ({done.returncode}): {' '.join(command)}\n{done.stderr[-2000:]}")
        rss_kb = float(report.read().strip().splitlines()[-1])
    return wall, rss_kb / 1024, done.stdout


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> tuple[float, float]:
    """CPU seconds (user + system) of process ``pid`` itself and of its children it has waited for
    (``/proc/PID/stat``: utime + stime, cutime + cstime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    utime, stime, cutime, cstime = (int(x) for x in fields[11:15])
    return (utime + stime) / CLOCK_TICKS, (cutime + cstime) / CLOCK_TICKS


def machine_busy() -> float:
    """CPU seconds the machine has spent busy, all processes (``/proc/stat``: all but idle and iowait)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(fields[:8]) - fields[3] - fields[4]) / CLOCK_TICKS


@dataclass
class Split:
    """Where a command's CPU went: ``parent`` (the command's own process), ``workers`` (the processes it
    started and waited for: the ``--workers`` processes), ``endpoints`` (the endpoint processes during the
    command), in CPU seconds; ``requests``: the calls the endpoints answered during it."""

    wall: float
    rss_mb: float
    parent: float
    workers: float
    endpoints: float
    requests: int
    others: float = 0.0  # the machine's busy CPU during the command that none of these used (other work)
    calling_s: float | None = None  # from the endpoints' first call of the command to their last (light only)

    def calls_per_s(self) -> float | None:
        """Calls a second while the command was calling: its calls over ``calling_s`` (its processes'
        start-up, data check and the end of the run are outside it)."""
        return self.requests / self.calling_s if self.calling_s and self.requests > 1 else None

    def per_call_ms(self, seconds: float) -> str:
        """``seconds`` of CPU per endpoint call, in milliseconds."""
        return f"{1000 * seconds / self.requests:.2f}" if self.requests else "-"


def timed_split(commands: Sequence[Sequence[str]], env: dict[str, str], servers: Servers) -> Split:
    """Run ``commands`` at once, each in a process of its own (not under /usr/bin/time: each is waited for
    here with ``os.wait4``, whose resource usage covers the process and the children it waited for, as
    ``/usr/bin/time`` reports), and split their CPU: the children's share is each command's ``cutime +
    cstime`` as last read (every 20 ms) before it ended, which holds its ``--workers`` processes once it has
    waited for them; the parent's is the rest of ``wait4``'s total. ``wall``: until the last one ended;
    ``rss_mb``: the largest. The endpoints' CPU and requests are read before and after."""
    endpoints_before, requests_before = servers.cpu(), servers.requests()
    servers.window()  # a new window: the calls of these commands only
    busy_before = machine_busy()
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        logs = [stack.enter_context(tempfile.TemporaryFile()) for _ in commands]
        processes = [
            subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log)
            for command, log in zip(commands, logs, strict=True)
        ]
        children = [0.0] * len(processes)
        ended = threading.Event()

        def sample() -> None:
            while not ended.wait(0.02):
                for k, process in enumerate(processes):
                    if process.returncode is None:
                        with contextlib.suppress(OSError, ValueError, IndexError):
                            children[k] = cpu_of(process.pid)[1]

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        total = rss_kb = 0.0
        failed: list[str] = []
        for process, log, command in zip(processes, logs, commands, strict=True):
            _, status, usage = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(status)
            total += usage.ru_utime + usage.ru_stime
            rss_kb = max(rss_kb, usage.ru_maxrss)
            if process.returncode != 0:
                log.seek(0)
                failed.append(f"failed ({process.returncode}): {' '.join(command)}\n{log.read().decode()[-2000:]}")
        wall = time.perf_counter() - started
        ended.set()
        sampler.join()
    busy = machine_busy() - busy_before
    if failed:
        raise SystemExit("\n".join(failed))
    endpoints = servers.cpu() - endpoints_before
    window = servers.window()
    return Split(
        wall=wall,
        rss_mb=rss_kb / 1024,
        parent=total - sum(children),
        workers=sum(children),
        endpoints=endpoints,
        requests=servers.requests() - requests_before,
        others=max(0.0, busy - total - endpoints),
        calling_s=None if window is None else window[1] - window[0],
    )


def cpu_row(how: str, split: Split) -> str:
    """A row of the CPU table: seconds of each part, and per endpoint call."""
    client = split.parent + split.workers
    ratio = f"{split.endpoints / client:.2f}" if client else "-"
    return (
        f"| {how} | {split.requests:,} | {split.parent:.1f} s | {split.workers:.1f} s | {split.endpoints:.1f} s | "
        f"{split.per_call_ms(split.parent)} | {split.per_call_ms(split.workers)} | {split.per_call_ms(client)} | "
        f"{split.per_call_ms(split.endpoints)} | {ratio} |"
    )


CPU_HEAD = """| how | endpoint calls | CPU parent | CPU workers | CPU endpoints | parent ms/call | workers ms/call \
| client ms/call (c) | endpoint ms/call (e) | e/c |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"""


def phase(items: int, name: str, command: Sequence[str], env: dict[str, str]) -> tuple[float, float, str]:
    """``timed(command)``, with a line on stdout as soon as it ends (a long row's phases are known one by one,
    with the load average then)."""
    wall, rss, out = timed(command, env)
    load = os.getloadavg()
    print(f"{items:,} items, {name}: {wall:.1f} s, {rss:.0f} MB (load {load[0]:.1f} {load[1]:.1f})", flush=True)
    return wall, rss, out


def write_data(path: Path, items: int) -> None:
    """Own data: id, source, output, human (a rating, so meta-eval has something to correlate)."""
    with path.open("w", encoding="utf-8") as handle:
        for i in range(items):
            row = {
                "id": f"item-{i}",
                "source": f"Source document {i}. " + "The committee met and decided several things. " * 4,
                "output": f"Summary {i}: the committee decided " + "things " * (i % 7 + 1),
                "human": 1 + i % 5,
            }
            handle.write(json.dumps(row) + "\n")


def run_command(data: Path, out: Path, urls: Sequence[str], concurrency: int, *extra: str) -> list[str]:
    return [
        *CLI,
        "run",
        "--dataset",
        str(data),
        "--criteria",
        "Is the summary coherent?",
        "--scale",
        "1-5",
        "--aspect",
        "coherence",
        "--method",
        "geval",
        "--base-url",
        ",".join(urls),
        "--model",
        "scripted",
        "--concurrency",
        str(concurrency),
        "--no-cache",
        "--no-preflight",
        "--progress",
        "none",
        "--out",
        str(out),
        *extra,
    ]


def mb(path: Path) -> float:
    return path.stat().st_size / 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", default="10000,40000", help="item counts of the main table")
    parser.add_argument("--compare-items", type=int, default=10000, help="items of the workers/shards/Ray rows")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--servers", type=int, default=2, help="scripted endpoint processes (--base-url A,B)")
    parser.add_argument(
        "--workers-endpoint",
        choices=sorted(ENDPOINTS),
        default="light",
        help="the endpoints of the workers, shards and Ray rows (the items rows use the scripted server)",
    )
    parser.add_argument("--no-ray", action="store_true", help="leave out the Ray row")
    parser.add_argument("--no-compare", action="store_true", help="leave out the workers/shards/Ray rows")
    parser.add_argument("--out", default="benchmarks/scale.md")
    parser.add_argument(
        "--workers-only",
        action="store_true",
        help="only --workers 1, --workers 2 and 2 shards run at once, --rounds times (printed, no file; --items '')",
    )
    parser.add_argument("--rounds", type=int, default=1, help="with --workers-only: rounds of the three rows")
    parser.add_argument("--only", choices=["meta-eval"], help="time this command alone (one row printed, no file)")
    parser.add_argument("--run-dir", type=Path, help="with --only: the run's folder, built when absent and kept")
    args = parser.parse_args(argv)
    if args.only:
        return only_meta_eval(args)
    command = "python scripts/bench_scale.py " + " ".join(argv if argv is not None else sys.argv[1:])
    work = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    env = {
        **os.environ,
        "DEBATE_EVAL_CACHE_DIR": str(work / "cache"),
        "TEMPORARILY_DISABLE_PROTOBUF_VERSION_CHECK": "true",
    }
    load_before = os.getloadavg()
    counts = [int(x) for x in args.items.split(",") if x]
    servers = Servers(args.servers) if counts else None
    compare_servers: Servers | None = None
    rows: list[str] = []
    compare: list[str] = []
    cpu_rows: list[str] = []
    try:
        for items in counts:
            assert servers is not None
            data = work / f"data-{items}.jsonl"
            write_data(data, items)
            out = work / f"run-{items}"
            wall, rss, _ = phase(items, "run", run_command(data, out, servers.urls, args.concurrency), env)
            resume_wall, resume_rss, _ = phase(
                items, "resume", run_command(data, out, servers.urls, args.concurrency), env
            )
            meta_wall, meta_rss, _ = phase(
                items, "meta-eval", [*CLI, "meta-eval", str(out), "--json", "--min-coverage", "0"], env
            )
            page = work / f"report-{items}.html"
            report_wall, report_rss, _ = phase(items, "report", [*CLI, "report", str(out), "--out", str(page)], env)
            show_wall, show_rss, _ = phase(items, "show", [*CLI, "show", str(out)], env)
            size = mb(out / "results.jsonl")
            rows.append(
                f"| {items:,} | {wall:.0f} s | {items / wall:.0f} | {rss:.0f} MB | {size:.0f} MB | "
                f"{resume_wall:.1f} s, {resume_rss:.0f} MB | {meta_wall:.1f} s, {meta_rss:.0f} MB | "
                f"{report_wall:.1f} s, {mb(page):.1f} MB page, {report_rss:.0f} MB | "
                f"{show_wall:.1f} s, {show_rss:.0f} MB |"
            )
            print(rows[-1], flush=True)
            shutil.rmtree(out)
        items = args.compare_items
        data = work / f"data-{items}.jsonl"
        if not data.exists() and not args.no_compare:
            write_data(data, items)
        if not args.no_compare:
            if servers is not None and args.workers_endpoint == "scripted":
                compare_servers = servers
            else:
                compare_servers = Servers(args.servers, args.workers_endpoint)
        if args.workers_only:
            assert compare_servers is not None
            workers_rounds(args, data, env, work, compare_servers)
            return 0
        one = None
        for workers in () if args.no_compare else (1, 2):
            out = work / f"workers-{workers}"
            assert compare_servers is not None
            command_w = run_command(data, out, compare_servers.urls, args.concurrency, "--workers", str(workers))
            split = timed_split([command_w], env, compare_servers)
            rate = items / split.wall
            one = one or rate
            compare.append(
                f"| `--workers {workers}` | {items:,} | {split.wall:.1f} s | {rate:.0f} | {rate / one:.2f}x | "
                f"{split.rss_mb:.0f} MB |"
            )
            cpu_rows.append(cpu_row(f"`--workers {workers}`", split))
            print(compare[-1], flush=True)
            print(cpu_rows[-1], flush=True)
            shutil.rmtree(out)
        if args.no_compare:
            return 0 if write(args, command, rows, compare, cpu_rows, load_before) else 1
        shard_dirs = [work / f"shard-{k}" for k in range(2)]
        started = time.perf_counter()
        processes = [
            subprocess.Popen(
                run_command(data, d, compare_servers.urls, args.concurrency, "--shard", f"{k}/2"),
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for k, d in enumerate(shard_dirs)
        ]
        if any(p.wait() for p in processes):
            raise SystemExit("a shard failed")
        shards_wall = time.perf_counter() - started
        merged = work / "merged"
        merge_wall, merge_rss, _ = timed([*CLI, "merge", str(merged), *map(str, shard_dirs)], env)
        lines = sum(1 for _ in (merged / "results.jsonl").open("rb"))
        compare.append(
            f"| 2 shards (`--shard 0/2`, `1/2`, two processes) + `merge` | {items:,} | {shards_wall:.1f} s + merge "
            f"{merge_wall:.1f} s ({merge_rss:.0f} MB) | {items / shards_wall:.0f} | {items / shards_wall / one:.2f}x | "
            f"merged: {lines:,} lines |"
        )
        print(compare[-1], flush=True)
        if not args.no_ray:
            out = work / "ray"
            ray_command = run_command(data, out, compare_servers.urls, args.concurrency, "--ray", "--workers", "2")
            wall, rss, _ = timed(ray_command, env)
            lines = sum(1 for _ in (out / "results.jsonl").open("rb"))
            compare.append(
                f"| `--ray --workers 2` (a local Ray instance started by the run) | {items:,} | {wall:.1f} s | "
                f"{items / wall:.0f} | {items / wall / one:.2f}x | {rss:.0f} MB (driver); {lines:,} lines |"
            )
            print(compare[-1], flush=True)
    finally:
        for endpoints in {id(x): x for x in (servers, compare_servers) if x is not None}.values():
            endpoints.close()
        shutil.rmtree(work, ignore_errors=True)
    write(args, command, rows, compare, cpu_rows, load_before)
    return 0


ROUNDS_HEAD = """| round | how | load before | wall | items/s | vs `--workers 1` | calls/s while calling \
| vs `--workers 1` | CPU parent | CPU workers | CPU endpoints | CPU of other work | client ms/call (c) \
| endpoint ms/call (e) | e/c |
|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"""


def workers_rounds(args: argparse.Namespace, data: Path, env: dict[str, str], work: Path, servers: Servers) -> None:
    """``--workers-only``: ``--rounds`` rounds of three rows one after the other (``--workers 1``,
    ``--workers 2``, and two shards run at once: two processes of the single-process runner, no parent, no
    merge), each row with the load average before it, its wall and CPU split, and the CPU the machine spent on
    other work meanwhile (``/proc/stat``: busy time less this command's and the endpoints'); printed as a
    Markdown table."""
    items = args.compare_items
    rows = [ROUNDS_HEAD]
    print(f"endpoints: {endpoint_text(args)}", flush=True)
    print(ROUNDS_HEAD, flush=True)
    for round_ in range(1, args.rounds + 1):
        one: float | None = None
        one_calling: float | None = None
        for how in ("`--workers 1`", "`--workers 2`", "2 shards at once"):
            out = work / f"round-{round_}-{len(rows)}"
            if how == "2 shards at once":
                commands = [
                    run_command(data, out / str(k), servers.urls, args.concurrency, "--shard", f"{k}/2")
                    for k in range(2)
                ]
            else:
                commands = [run_command(data, out, servers.urls, args.concurrency, "--workers", how[-2])]
            load = os.getloadavg()[0]
            split = timed_split(commands, env, servers)
            rate = items / split.wall
            one = one or rate
            calling = split.calls_per_s()
            one_calling = one_calling or calling
            calling_text = "- | -" if calling is None else f"{calling:.0f} | {calling / (one_calling or calling):.2f}x"
            client = split.parent + split.workers
            rows.append(
                f"| {round_} | {how} | {load:.2f} | {split.wall:.1f} s | {rate:.0f} | {rate / one:.2f}x | "
                f"{calling_text} | "
                f"{split.parent:.1f} s | {split.workers:.1f} s | {split.endpoints:.1f} s | {split.others:.1f} s | "
                f"{split.per_call_ms(client)} | {split.per_call_ms(split.endpoints)} | "
                f"{split.endpoints / client:.2f} |"
            )
            print(rows[-1], flush=True)
            shutil.rmtree(out)
    print(f"load average after: {os.getloadavg()[0]:.2f}", flush=True)


def only_meta_eval(args: argparse.Namespace) -> int:
    """Build (or reuse) the run of ``--items`` items in ``--run-dir`` and time ``meta-eval`` on it alone."""
    if args.run_dir is None:
        raise SystemExit("--only needs --run-dir DIR (the run is kept there for a second measurement)")
    [items] = [int(x) for x in args.items.split(",") if x]
    env = {**os.environ, "DEBATE_EVAL_CACHE_DIR": str(args.run_dir.parent / f"{args.run_dir.name}-cache")}
    if not (args.run_dir / "results.jsonl").is_file():
        data = args.run_dir.parent / f"{args.run_dir.name}-data.jsonl"
        write_data(data, items)
        servers = Servers(args.servers)
        try:
            wall, rss, _ = timed(run_command(data, args.run_dir, servers.urls, args.concurrency), env)
        finally:
            servers.close()
        print(f"built {args.run_dir}: {items:,} items in {wall:.0f} s, {rss:.0f} MB", flush=True)
    load = os.getloadavg()[0]
    meta_wall, meta_rss, _ = timed([*CLI, "meta-eval", str(args.run_dir), "--json", "--min-coverage", "0"], env)
    print(
        f"| {items:,} | {mb(args.run_dir / 'results.jsonl'):.0f} MB | {meta_wall:.1f} s, {meta_rss:.0f} MB | "
        f"{load:.1f} → {os.getloadavg()[0]:.1f} |"
    )
    return 0


def endpoint_text(args: argparse.Namespace) -> str:
    """Which endpoints the workers, shards and Ray rows used."""
    return f"{args.servers} processes of {ENDPOINT_TEXT[args.workers_endpoint]}"


def write(
    args: argparse.Namespace,
    command: str,
    rows: list[str],
    compare: list[str],
    cpu_rows: list[str],
    load_before: tuple,
) -> bool:
    """Write the Markdown report."""
    load_after = os.getloadavg()
    text = f"""# Scale: items, memory, workers, shards, Ray

Command: `{command}` (at {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC).
Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; load average
{load_before[0]:.1f} before and {load_after[0]:.1f} after (the cores are shared with other work: the figures
are as measured under that load). G-Eval (one call an item) over own-data JSONL, `--concurrency
{args.concurrency}`, no response cache, {args.servers} scripted endpoints, each a process of its own
(`--base-url A,B`). Peak RSS: the largest process of the command (`/usr/bin/time -f %M`).

## Items

| items | run wall | items/s | peak RSS | results.jsonl | resume (all done) | meta-eval | report | show |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
{chr(10).join(rows)}

Before (the issue's figures, measured on main at `ae996ea`, quoted as they were measured there):

| items | run wall | items/s | peak RSS | results.jsonl | resume (all done) | meta-eval | report | show |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| 5,000 | 36 s | 151 | 207 MB | 15 MB | 2.9 s | 1.7 s | 3.8 s, 4.4 MB page | 0.5 s |
| 40,000 | 278 s | 151 | 874 MB | 117 MB | 18.9 s, 915 MB | 5.8 s, 803 MB | 21 s, 35 MB page, 1.07 GB | 4.6 s, 725 MB |

## Workers, shards, Ray

Endpoints of these rows: {endpoint_text(args)}.

| how | items | wall | items/s | vs one worker | memory / lines |
|---|---:|---:|---:|---:|---|
{chr(10).join(compare)}

Where the CPU of the workers rows went (CPU seconds, user + system; the parent's and its workers' from
`os.wait4` and the parent's reaped children, the endpoints' from `/proc`):

{CPU_HEAD}
{chr(10).join(cpu_rows)}
"""
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"written: {args.out}")
    return True


if __name__ == "__main__":
    sys.exit(main())
