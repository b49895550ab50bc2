"""Rate-limit benchmark: how much of a provider's binding limit `debate-eval run` uses, with 0 failed items.

Starts the rate-limited scripted endpoint (``tests/support/rate_limited_server.py``) in a process of
its own: latency uniform in ``--latency`` seconds, a request limit and a token limit per minute as buckets
that refill continuously and start full (as a provider's do for an idle key), OpenAI-style headers, 429 with
``retry-after`` past the limit. Then runs, as a user would::

    debate-eval run --dataset summeval --aspect coherence --limit 200 --max-rounds 2 --concurrency 64 \\
      --base-url URL --model gpt-4o --no-cache --no-preflight --no-progress

once with a binding request limit (``--rpm``, the token limit out of reach) and once with a binding token limit
(``--tpm``). The run is given no budget by hand: it learns the limits from the headers. The endpoint's Critic
never agrees, so each item makes 5 calls (1,000 in all).

Measured, per scenario (the endpoint's own log of answered requests and the run's summary.json):

- **share of the binding limit**: calls (or tokens) answered beyond the endpoint's starting bucket, over what
  its refill allowed from the first request to the last (``binding_share``): 1.0 is a client that uses the
  full bucket at once and every refilled unit after it; a limit that starts full lets a run go faster than
  ``calls / limit``, so the plain calls-per-minute share is above 1 and says little. Target >= 0.90.
- the plain share too (answered per minute over the limit, the starting burst included);
- wall time against the physical limit ``calls / limit`` (the issue's), and against the tighter bound
  ``(calls - bucket at start) / limit`` a perfect client reaches from a full bucket;
- 429s received (target <= 2% of requests) and failed items (target 0);
- the client's CPU time and the machine's load (on a loaded machine the shares stay meaningful: they measure
  waiting on the endpoint, not CPU).

With ``--cold-start`` it measures the first window instead (section ``rate_limits_cold_start``): G-Eval
(one call an item) at ``--concurrency 64`` with the endpoint check on (its answer's headers set the first
wave's budget), against (a) Azure-style fixed windows, 120 RPM enforced as 20 requests per 10 s window and
whole at the window's end, (b) the same windows with headers that say ``limit-requests: 120`` (the per-minute
quota) while ``remaining-requests`` counts the current window (Azure's shape), and (c) a per-minute token
bucket, each sending OpenAI's ``x-ratelimit-*`` headers on every answer. The 429 share counts every request,
the endpoint check and the first window included; the share of the binding limit is the same measure as above.

The report goes between this script's markers in ``--out`` (default ``benchmarks/rate_limits.md``), which
``scripts/bench_vs_authors.py`` shares.

Usage (from the repository root)::

    DEBATE_EVAL_DATA_DIR=/path/to/data python scripts/bench_rate_limits.py
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import load_text, replace_section, section_head  # sibling script
from endpoint_process import SERVER_MODULE, EndpointProcess  # sibling script

SECTION = "rate_limits"
TARGET_SHARE = 0.90
TARGET_429 = 0.02


@dataclass
class Scenario:
    """One binding limit: its name, the endpoint's limits per minute, and which one binds."""

    name: str
    rpm: float
    tpm: float
    binding: str  # "requests" or "tokens"


def start_endpoint(scenario: Scenario, latency: str, seed: int) -> EndpointProcess:
    """The rate-limited endpoint with the scenario's limits, in a child process."""
    flags = ["--rpm", f"{scenario.rpm:g}", "--tpm", f"{scenario.tpm:g}", "--latency", latency]
    return EndpointProcess([*flags, "--seed", str(seed), "--max-lifetime", "3600"])


def binding_share(stats: dict[str, Any], scenario: Scenario) -> tuple[float | None, float, float]:
    """(share of the binding limit, share over the whole run, seconds from the first to the last request).
    The share is None when the run never got past the starting bucket (too few items: the limit never bound).

    The endpoint's bucket starts full: from the first request to the last, at most ``limit`` (the starting
    bucket) plus ``rate x seconds`` (the refill) can be answered. The share is what was answered beyond the
    starting bucket over what the refill allowed: 1.0 for a client that uses the whole bucket at once and then
    every refilled unit, less for one that leaves budget unused (or runs out of work at the end). The whole-run
    share is answered / (rate x seconds), the starting burst included (above 1 when the burst counts much).
    """
    answers = stats["answers"]
    limit = scenario.rpm if scenario.binding == "requests" else scenario.tpm
    total = stats["answered"] if scenario.binding == "requests" else stats["tokens_charged"]
    seconds = max(1e-9, answers[-1][0] - answers[0][0])
    allowed = limit / 60 * seconds
    share = (total - limit) / allowed if total > limit else None
    return share, total / allowed, seconds


def share_text(share: float | None) -> str:
    """The share for a table or a line, or why there is none."""
    return "not binding" if share is None else f"{share:.3f}"


@dataclass
class ColdStart:
    """A cold-start scenario: the endpoint's flags, its binding limit per window, and the window."""

    name: str
    flags: list[str]
    binding: str
    limit: float  # per window
    window_s: float
    fixed: bool = False  # fixed windows (else a continuously refilled bucket)


def windows_share(stats: dict[str, Any], scenario: ColdStart) -> float | None:
    """The share of the binding limit the run used.

    A per-minute bucket: what was answered beyond the starting bucket over what its refill allowed from the
    first request to the last (``binding_share``). Fixed windows: what was answered in the windows the run
    used, up to the one before its last, over their budget (``limit`` each): in the last window the run had
    only what was left of its work to send."""
    answers = stats["answers"]
    if not scenario.fixed:
        total = stats["answered"] if scenario.binding == "requests" else stats["tokens_charged"]
        seconds = max(1e-9, answers[-1][0] - answers[0][0])
        allowed = scenario.limit / scenario.window_s * seconds
        return (total - scenario.limit) / allowed if total > scenario.limit else None
    windows = [int((clock - stats["started_s"]) // scenario.window_s) for clock, _ in answers]
    full = [w for w in windows if w < windows[-1]]
    used = len(set(range(windows[0], windows[-1])))
    return len(full) / (scenario.limit * used) if used else None


def first_window(stats: dict[str, Any], scenario: ColdStart) -> list[float]:
    """The answers of the run's first window: the endpoint's window of its first request (fixed windows), or
    the ``window_s`` from its first request (a bucket)."""
    answers = [clock for clock, _ in stats["answers"]]
    if scenario.fixed:
        index = [int((clock - stats["started_s"]) // scenario.window_s) for clock in answers]
        return [clock for clock, window in zip(answers, index, strict=True) if window == index[0]]
    return [clock for clock in answers if clock - answers[0] < scenario.window_s]


def run_cold_start(args: argparse.Namespace, scenario: ColdStart, work: Path) -> dict[str, Any]:
    """One G-Eval run with the endpoint check against a fresh endpoint; the figures of the row."""
    flags = [*scenario.flags, "--latency", args.latency, "--seed", str(args.seed), "--max-lifetime", "3600"]
    endpoint = EndpointProcess(flags)
    out = work / scenario.name.replace(" ", "_")
    command = ["debate-eval", "run", "--dataset", "summeval", "--aspect", "coherence", "--method", "geval"]
    command += ["--limit", str(args.cold_items), "--concurrency", str(args.concurrency)]
    command += ["--base-url", endpoint.base_url, "--model", "gpt-4o", "--no-cache", "--no-progress"]
    command += ["--out", str(out)]
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-key", "DEBATE_EVAL_CACHE_DIR": str(work / "cache")}
    started = time.perf_counter()
    try:
        completed = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        stats = endpoint.stats()
    finally:
        endpoint.close()
    if completed.returncode not in (0, 1):
        raise RuntimeError(f"debate-eval run failed ({completed.returncode}): {completed.stderr[-2000:]}")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    first = first_window(stats, scenario)
    return {
        "scenario": scenario,
        "command": shlex.join(command[:-2] + ["--out", "OUT"]).replace(endpoint.base_url, "URL"),
        "endpoint": f"python -m {SERVER_MODULE} {shlex.join(flags)}",
        "wall_s": wall,
        "items": summary["this_invocation"]["attempted"],
        "failed": summary["this_invocation"]["failed"],
        "requests": stats["requests"],
        "answered": stats["answered"],
        "rate_limited": stats["rate_limited"],
        "first_window": len(first),
        "share": windows_share(stats, scenario),
    }


def cold_start_report(args: argparse.Namespace, command: str, rows: Sequence[dict[str, Any]], load: str) -> str:
    """The Markdown section of the cold-start runs."""
    lines = [
        *section_head("Cold start: the first window (`scripts/bench_rate_limits.py --cold-start`)", command, load),
        f"- Run: {args.cold_items} SummEval coherence items, G-Eval (one call an item), `--concurrency "
        f"{args.concurrency}`, the endpoint check on (its answer's headers are the first wave's budget), no "
        f"budget by hand, no cache; latency uniform {args.latency} s; OpenAI-style headers on every answer.",
        "- Commands (URL: the endpoint's, OUT: a fresh folder):",
        "",
    ]
    for row in rows:
        lines.append(f"  - {row['scenario'].name}: endpoint `{row['endpoint']}`; run `{row['command']}`")
    lines += [
        "",
        "| endpoint | limit | items | failed | requests (check included) | 429s (share) | answered in the first "
        "window | share of the limit | wall s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        scenario = row["scenario"]
        unit = "requests" if scenario.binding == "requests" else "tokens"
        lines.append(
            f"| {scenario.name} | {scenario.limit:,.0f} {unit} per {scenario.window_s:g} s | {row['items']} | "
            f"{row['failed']} | {row['requests']} | {row['rate_limited']} "
            f"({row['rate_limited'] / row['requests']:.1%}) | {row['first_window']} | "
            f"**{share_text(row['share'])}** | {row['wall_s']:.1f} |"
        )
    lines += [
        "",
        "Targets: <= 2% of requests answered 429, first window included; >= 0.90 of the limit.",
        "",
    ]
    for row in rows:
        checks = [
            (f"<= {TARGET_429:.0%} answered 429", row["rate_limited"] / row["requests"] <= TARGET_429),
            (f">= {TARGET_SHARE:.2f} of the limit", row["share"] is not None and row["share"] >= TARGET_SHARE),
            ("0 failed items", row["failed"] == 0),
        ]
        lines.append(
            f"- {row['scenario'].name}: " + "; ".join(f"{w}: {'met' if ok else '**not met**'}" for w, ok in checks)
        )
    lines += [
        "",
        "The share of the limit: for the token bucket, (answered − the starting bucket) ÷ (limit per second × "
        "endpoint busy s, from its first request to its last), as in the section above; for fixed windows, the "
        "requests answered in the windows from the first the run used to the one before its last, over those "
        "windows' budget (in its last window a run has only what is left of its work). Answered in the first "
        "window: requests the endpoint answered in the window of the run's first request (fixed windows: the "
        "endpoint's; the bucket: one minute from it), the check included.",
    ]
    return "\n".join(lines) + "\n"


def run_scenario(args: argparse.Namespace, scenario: Scenario, work: Path) -> dict[str, Any]:
    """One run against a fresh endpoint; the figures of the row."""
    endpoint = start_endpoint(scenario, args.latency, args.seed)
    out = work / scenario.name
    command = ["debate-eval", "run", "--dataset", "summeval", "--aspect", "coherence", "--limit", str(args.items)]
    command += ["--max-rounds", "2", "--concurrency", str(args.concurrency), "--base-url", endpoint.base_url]
    command += ["--model", "gpt-4o", "--no-cache", "--no-preflight", "--no-progress", "--out", str(out)]
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-key", "DEBATE_EVAL_CACHE_DIR": str(work / "cache")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        completed = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        stats = endpoint.stats()
    finally:
        endpoint.close()
    if completed.returncode not in (0, 1):
        raise RuntimeError(f"debate-eval run failed ({completed.returncode}): {completed.stderr[-2000:]}")
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    (limiter,) = summary["this_invocation"]["rate_limits"]
    share, whole, span_s = binding_share(stats, scenario)
    limit = scenario.rpm if scenario.binding == "requests" else scenario.tpm
    demand = stats["answered"] if scenario.binding == "requests" else stats["tokens_charged"]
    return {
        "scenario": scenario,
        "command": shlex.join(command[:-2] + ["--out", "OUT"]).replace(endpoint.base_url, "URL"),
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "items": summary["this_invocation"]["attempted"],
        "failed": summary["this_invocation"]["failed"],
        "requests": stats["requests"],
        "answered": stats["answered"],
        "rate_limited": stats["rate_limited"],
        "tokens": stats["tokens_charged"],
        "calls_per_min": stats["answered"] / wall * 60,
        "tokens_per_min": stats["tokens_charged"] / wall * 60,
        "share": share,
        "share_whole": whole,
        "span_s": span_s,
        "physical_s": demand / limit * 60,
        "tight_s": max(0.0, demand - limit) / limit * 60,
        "limiter": limiter,
    }


def report(args: argparse.Namespace, command: str, rows: Sequence[dict[str, Any]], load: str) -> str:
    """The Markdown section."""
    lines = [
        *section_head(
            "Binding rate limits (`scripts/bench_rate_limits.py`)",
            command,
            load,
            "The shares measure waiting on the endpoint, so they hold on a loaded machine; wall and CPU times would "
            "be lower on an idle one.",
        ),
        f"- Endpoint: `{SERVER_MODULE}` in its own process, latency uniform {args.latency} s, limits per "
        "minute as continuously refilled buckets that start full, OpenAI-style headers, 429 + retry-after.",
        f"- Run: {args.items} SummEval coherence items, DEBATE n = 2 (the endpoint's Critic never agrees: 5 calls "
        f"an item), `--concurrency {args.concurrency}`, no budget by hand (learnt from the headers), no cache.",
        "- Each run's command (URL: the endpoint's, OUT: a fresh folder):",
        "",
    ]
    lines += [f"  - {row['scenario'].name}: `{row['command']}`" for row in rows]
    lines += [
        "",
        "| binding limit | limit/min | items | failed | requests | 429s (share) | calls/min | tokens/min | "
        "share of the limit | plain share | endpoint busy s | wall s | calls ÷ limit s | (calls − start bucket) "
        "÷ limit s | client CPU s | window start → end |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        scenario, limiter = row["scenario"], row["limiter"]
        limit = scenario.rpm if scenario.binding == "requests" else scenario.tpm
        lines.append(
            f"| {scenario.name} | {limit:,.0f} | {row['items']} | {row['failed']} | {row['requests']} | "
            f"{row['rate_limited']} ({row['rate_limited'] / row['requests']:.1%}) | {row['calls_per_min']:.1f} | "
            f"{row['tokens_per_min']:,.0f} | **{share_text(row['share'])}** | {row['share_whole']:.3f} | "
            f"{row['span_s']:.1f} | {row['wall_s']:.1f} | {row['physical_s']:.1f} | {row['tight_s']:.1f} | "
            f"{row['cpu_s']:.1f} | "
            f"{limiter['start_in_flight']} → {limiter['end_in_flight']} |"
        )
    lines += ["", "Targets:", ""]
    for row in rows:
        name = row["scenario"].name
        checks = [
            (f">= {TARGET_SHARE:.2f} of the binding limit", row["share"] is not None and row["share"] >= TARGET_SHARE),
            ("0 failed items", row["failed"] == 0),
            (f"<= {TARGET_429:.0%} of requests answered 429", row["rate_limited"] / row["requests"] <= TARGET_429),
        ]
        lines.append(f"- {name}: " + "; ".join(f"{what}: {'met' if ok else '**not met**'}" for what, ok in checks))
    lines += [
        "",
        "The share of the limit is (answered − the endpoint's starting bucket) ÷ (limit per second × endpoint "
        "busy s, from its first request to its last): 1.0 is the physical limit of a bucket that starts full. "
        "The plain share (answered ÷ (limit per second × busy s)) counts the starting burst too. Wall time is "
        "the command's, process start included. The window of calls in flight starts at `--concurrency` and "
        "settles near what the limit sustains (rate x latency x 1.5).",
    ]
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--rpm", type=float, default=300, help="the binding request limit per minute")
    parser.add_argument("--tpm", type=float, default=300_000, help="the binding token limit per minute")
    parser.add_argument("--latency", default="0.5-3", help="seconds, LOW-HIGH")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=("rpm", "tpm"), help="run one scenario")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/rate_limits.md"))
    parser.add_argument("--cold-start", action="store_true", help="measure the first window instead (G-Eval)")
    parser.add_argument("--cold-items", type=int, default=120, help="G-Eval items of a cold-start run")
    parser.add_argument("--cold-tpm", type=float, default=60_000, help="the per-minute token bucket's limit")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    command = shlex.join(["python", "scripts/bench_rate_limits.py", *(sys.argv[1:] if argv is None else argv)])
    if args.cold_start:
        return cold_start_main(args, command)
    scenarios = [
        Scenario("requests (RPM)", rpm=args.rpm, tpm=1e9, binding="requests"),
        Scenario("tokens (TPM)", rpm=1e6, tpm=args.tpm, binding="tokens"),
    ]
    if args.only:
        scenarios = [s for s in scenarios if (s.binding == "requests") == (args.only == "rpm")]
    rows, load = run_all(
        "bench-rate-",
        [(scenario.name, lambda work, scenario=scenario: run_scenario(args, scenario, work)) for scenario in scenarios],
        lambda row: (
            f"share {share_text(row['share'])} (whole run {row['share_whole']:.3f}), {row['rate_limited']} 429s of "
            f"{row['requests']}, {row['failed']} failed, {row['wall_s']:.1f} s"
        ),
    )
    replace_section(args.out, SECTION, report(args, command, rows, load), title="Rate limits")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


def run_all(prefix: str, runs: list[tuple[str, Any]], describe: Any) -> tuple[list[dict[str, Any]], str]:
    """Run each ``(name, run(work_dir))`` in one temporary folder, printing ``name: describe(row)`` after each;
    returns the rows and the load average before and after, as the reports state it."""
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory(prefix=prefix) as work:
        for name, run in runs:
            row = run(Path(work))
            print(f"{name}: {describe(row)}", file=sys.stderr)
            rows.append(row)
    return rows, load_text(load_before, os.getloadavg())


def cold_start_main(args: argparse.Namespace, command: str) -> int:
    """``--cold-start``: both window styles, one section."""
    scenarios = [
        ColdStart(
            "Azure-style 10 s windows", ["--rpm", "20", "--window", "10", "--fixed-windows"], "requests", 20, 10, True
        ),
        ColdStart(
            "Azure-style 10 s windows, headers saying 120 a minute",
            ["--rpm", "20", "--window", "10", "--fixed-windows", "--advertised-rpm", "120"],
            "requests",
            20,
            10,
            True,
        ),
        ColdStart("per-minute token bucket", ["--tpm", f"{args.cold_tpm:g}"], "tokens", args.cold_tpm, 60),
    ]
    rows, load = run_all(
        "bench-cold-",
        [
            (scenario.name, lambda work, scenario=scenario: run_cold_start(args, scenario, work))
            for scenario in scenarios
        ],
        lambda row: (
            f"{row['rate_limited']} 429s of {row['requests']}, first window {row['first_window']}, share "
            f"{share_text(row['share'])}, {row['failed']} failed, {row['wall_s']:.1f} s"
        ),
    )
    section = cold_start_report(args, command, rows, load)
    replace_section(args.out, f"{SECTION}_cold_start", section, title="Rate limits")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
