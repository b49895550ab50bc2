"""Benchmark of ``debate_eval.Judge``: per-item CPU overhead, throughput against ``evaluate``, and a shared rate
budget under 1,000 concurrent calls.

The endpoint is the scripted OpenAI-compatible one (``tests/support/rate_limited_server.py``) in a
process of its own, so its work does not count as the client's CPU. Measured:

1. **Per-item CPU overhead** (target <= 5 ms): ``Judge.score`` called one item at a time (G-Eval: one model
   call an item; DEBATE n = 2: five), the client process's CPU time per item, minus the CPU time of the same
   number of bare model calls made through the judge's own client stack (``ClientPool.shared``: HTTP client,
   retries, rate limiter, answer checks), with the same prompts. For context: ``evaluate()`` on a one-row
   table, per call (wall time: run directory, lock, config hash and endpoint check each time).
2. **Throughput** (target: ``Judge`` within 1.2x of ``evaluate``): 1,000 items at concurrency 64 through
   ``judge.score_many(rows, concurrency=64)`` and through ``evaluate(rows, concurrency=64)`` on the same
   1,000 rows (G-Eval, no cache, no endpoint check), alternated, wall time each.
3. **Shared rate budget** (targets: >= 0.90 of the limit, <= 2 % answered 429, no item lost): 1,000 concurrent
   ``score_async`` calls (``asyncio.gather``) against the endpoint with a request limit (``--rpm``) and
   uniform latency; the budget is learnt from the headers (none by hand). The share is the one
   ``bench_rate_limits.py`` reports: (answered - the endpoint's starting bucket) / (limit per second x seconds
   from its first request to its last).

``--cpu-only`` measures part 1 only and prints it; ``--profile N`` then prints a cProfile of N DEBATE items
(own time by package, then by function), taken in the judge's event-loop thread.

The report goes between this script's markers in ``--out`` (default ``benchmarks/judge_api.md``).

Usage (from the repository root)::

    python scripts/bench_judge_api.py
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_report import replace_section  # sibling script
from endpoint_process import SERVER_MODULE, EndpointProcess  # sibling script

SECTION = "judge_api"
CRITERIA = "Is the summary faithful to the article?"
SOURCE = "The council met on Monday and approved the budget for the new library, which opens in May."
TARGET_CPU_MS = 5.0
TARGET_RATIO = 1.2
TARGET_SHARE = 0.90
TARGET_429 = 0.02


def judge_options(base_url: str) -> dict[str, Any]:
    """A judge on the endpoint: no cache, no endpoint check (both runs below make the same calls)."""
    return {"criteria": CRITERIA, "base_url": base_url, "model": "gpt-4o", "no_cache": True, "no_preflight": True}


BLOCK = 20  # items a block: judged items and bare calls alternate block by block (the same load for both)


def cpu_overhead(base_url: str, method: str, items: int, work: Path) -> dict[str, Any]:
    """CPU per ``Judge.score`` item, and per bare call of the same prompts through the judge's client stack;
    blocks of ``BLOCK`` judged items alternate with blocks of as many bare calls as they made, and the figures
    are the medians over the blocks (on a shared machine the load changes within a minute)."""
    from autogen_core.models import UserMessage

    import debate_eval
    from debate_eval._judge import _blocking

    judge_cpu, bare_cpu, judgments, wall = [], [], [], 0.0
    with debate_eval.Judge(method=method, **judge_options(base_url)) as judge:
        judge.score("Warm-up summary.", source=SOURCE)  # the pool, the method's first team
        client = judge._session.pool.shared("scorer")  # the judge's open session

        async def bare(prompt: str) -> None:
            await client.create([UserMessage(content=prompt, source="user")])

        _blocking(bare("Warm-up prompt."))
        for first in range(0, items, BLOCK):
            size = min(BLOCK, items - first)
            started_cpu, started = time.process_time(), time.perf_counter()
            block = [judge.score(f"Summary number {i}.", source=SOURCE) for i in range(first, first + size)]
            judge_cpu.append((time.process_time() - started_cpu) / size)
            wall += time.perf_counter() - started
            judgments += block
            calls = sum(1 for j in block for m in j.messages if m.usage) // size  # the model's answers
            prompts = [j.messages[0].content for j in block]
            started_cpu = time.process_time()
            for i in range(size * calls):
                _blocking(bare(f"{prompts[i % size]} ({first + i})"))
            bare_cpu.append((time.process_time() - started_cpu) / size)
    rows = [{"source": SOURCE, "output": f"Summary number {i}."} for i in range(items)]
    started_cpu = time.process_time()
    debate_eval.evaluate(
        rows, aspect="coherence", method=method, scale="1-5", concurrency=1, out=work / f"cpu-{method}",
        progress="none", **judge_options(base_url),
    )  # fmt: skip
    evaluate_cpu = time.process_time() - started_cpu
    return {
        "method": method,
        "items": items,
        "calls_per_item": sum(1 for j in judgments for m in j.messages if m.usage) // items,
        "cpu_ms": 1000 * statistics.median(judge_cpu),
        "bare_ms": 1000 * statistics.median(bare_cpu),
        "overhead_ms": 1000 * statistics.median(j - b for j, b in zip(judge_cpu, bare_cpu, strict=True)),
        "evaluate_ms": 1000 * evaluate_cpu / items,
        "wall_ms": 1000 * wall / items,
        "ok": sum(j.ok for j in judgments),
    }


PACKAGES = ("autogen_core", "autogen_agentchat", "autogen_ext", "openai", "httpx2", "httpcore2", "h11", "anyio",
            "pydantic", "opentelemetry", "asyncio", "uuid", "debate_eval", "agents/", "debates/", "tasks/")  # fmt: skip


def profile_debate(base_url: str, items: int) -> str:
    """cProfile of ``items`` DEBATE items scored one at a time, in the judge's event-loop thread (where the
    team and the calls run): own time by package, then the top functions by own time."""
    import cProfile
    import io
    import pstats

    import debate_eval
    from debate_eval._judge import _blocking

    profiler = cProfile.Profile()

    async def switch(on: bool) -> None:  # cProfile profiles the thread that enables it
        profiler.enable() if on else profiler.disable()

    with debate_eval.Judge(method="debate", **judge_options(base_url)) as judge:
        judge.score("Warm-up summary.", source=SOURCE)
        _blocking(switch(True))
        for i in range(items):
            judge.score(f"Summary number {i}.", source=SOURCE)
        _blocking(switch(False))
    stats = pstats.Stats(profiler)
    own: dict[str, float] = {}
    for (path, _line, _function), (_calls, _primitive, tottime, _cumtime, _callers) in stats.stats.items():  # type: ignore[attr-defined]
        where = "builtins" if path == "~" else next((name for name in PACKAGES if name in path), "other")
        own[where] = own.get(where, 0.0) + tottime
    total = sum(own.values())
    lines = [f"own time by package ({items} DEBATE items, {total:.2f} s profiled):"]
    lines += [
        f"  {name:18} {100 * seconds / total:5.1f} %" for name, seconds in sorted(own.items(), key=lambda kv: -kv[1])
    ]
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(25)
    return "\n".join(lines) + "\n" + text.getvalue()


def evaluate_one_row(base_url: str, calls: int, work: Path) -> float:
    """Wall seconds per ``evaluate()`` of a one-row table (G-Eval), the way a library user scored one output."""
    import debate_eval

    options = judge_options(base_url)
    options.pop("no_preflight")  # as a user calls it: the endpoint check runs every time
    started = time.perf_counter()
    for i in range(calls):
        rows = [{"source": SOURCE, "output": f"One-row summary {i}."}]
        debate_eval.evaluate(rows, aspect="coherence", method="geval", scale="1-5", out=work / f"one-{i}", **options)
    return (time.perf_counter() - started) / calls


def throughput(base_url: str, items: int, concurrency: int, repeats: int, work: Path) -> dict[str, Any]:
    """Wall seconds of ``score_many`` and of ``evaluate`` on the same rows, alternated ``repeats`` times."""
    import debate_eval

    judge_s, evaluate_s = [], []
    for repeat in range(repeats):
        rows = [{"source": SOURCE, "output": f"Summary {repeat}-{i}."} for i in range(items)]
        with debate_eval.Judge(method="geval", concurrency=concurrency, **judge_options(base_url)) as judge:
            started = time.perf_counter()
            judged = judge.score_many(rows, concurrency=concurrency)
            judge_s.append(time.perf_counter() - started)
        assert sum(j.ok for j in judged) == items, "an item failed"
        rows = [{"source": SOURCE, "output": f"Summary {repeat}-{i}."} for i in range(items)]
        started = time.perf_counter()
        run = debate_eval.evaluate(
            rows, aspect="coherence", method="geval", scale="1-5", concurrency=concurrency,
            out=work / f"evaluate-{repeat}", **judge_options(base_url),
        )  # fmt: skip
        evaluate_s.append(time.perf_counter() - started)
        assert len(run) == items
    return {"judge_s": judge_s, "evaluate_s": evaluate_s}


def rate_limited(rpm: float, latency: str, items: int) -> dict[str, Any]:
    """1,000 concurrent ``score_async`` calls against the rate-limited endpoint; its own counts."""
    import debate_eval

    with EndpointProcess(["--rpm", f"{rpm:g}", "--latency", latency, "--max-lifetime", "3600"]) as endpoint:
        base_url = endpoint.base_url

        async def everything() -> list[Any]:
            async with debate_eval.Judge(method="geval", **judge_options(base_url)) as judge:
                calls = [judge.score_async(f"Summary {i}.", source=SOURCE, id=str(i)) for i in range(items)]
                return await asyncio.gather(*calls, return_exceptions=True)

        started = time.perf_counter()
        results = asyncio.run(everything())
        wall = time.perf_counter() - started
        stats = endpoint.stats()
    answers = stats["answers"]
    span = max(1e-9, answers[-1][0] - answers[0][0])
    allowed = rpm / 60 * span
    share = (stats["answered"] - rpm) / allowed if stats["answered"] > rpm else None
    judged = [r for r in results if isinstance(r, debate_eval.Judgment)]
    return {
        "rpm": rpm,
        "items": items,
        "ok": sum(j.ok for j in judged),
        "failed": items - len(judged) + sum(j.error is not None for j in judged),
        "requests": stats["requests"],
        "answered": stats["answered"],
        "rate_limited": stats["rate_limited"],
        "share": share,
        "span_s": span,
        "wall_s": wall,
    }


def report(args: argparse.Namespace, cpu: list[dict[str, Any]], one_row_s: float, flow: dict[str, Any],
           limited: dict[str, Any]) -> str:  # fmt: skip
    """The Markdown section."""
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    judge_median, evaluate_median = statistics.median(flow["judge_s"]), statistics.median(flow["evaluate_s"])
    ratio = judge_median / evaluate_median
    geval = next(row for row in cpu if row["method"] == "geval")
    debate = next(row for row in cpu if row["method"] == "debate")
    share = limited["share"]
    lines = [
        "## `debate_eval.Judge` (`scripts/bench_judge_api.py`)",
        "",
        "```bash",
        shlex.join(["python", "scripts/bench_judge_api.py", *args.argv]),
        "```",
        "",
        f"- Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC. Machine: {platform.platform()}, "
        f"{os.cpu_count()} CPUs shared with other jobs (load average at the end: {load}); wall times would be "
        "lower on an idle machine, CPU times much less so.",
        f"- Endpoint: `{SERVER_MODULE}` in its own process (scripted replies; parts 1 and 2 with no limit and no "
        f"latency, part 3 with `--rpm {limited['rpm']:g}` and latency uniform {args.latency} s).",
        "",
        "### 1. Per-item CPU overhead of `Judge.score` over its model calls",
        "",
        "| method | items | model calls an item | client CPU ms an item | bare calls' CPU ms | **overhead ms** | "
        "wall ms an item | `evaluate` CPU ms an item |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in cpu:
        lines.append(
            f"| {row['method']} | {row['items']} | {row['calls_per_item']} | {row['cpu_ms']:.2f} | "
            f"{row['bare_ms']:.2f} | **{row['overhead_ms']:.2f}** | {row['wall_ms']:.2f} | {row['evaluate_ms']:.2f} |"
        )
    lines += [
        "",
        "Bare calls: the same prompts sent through the judge's own client stack (`ClientPool.shared`), as many "
        f"calls as the items made; blocks of {BLOCK} judged items alternate with their blocks of bare calls, and "
        "the CPU figures are medians over the blocks. The overhead is the rest: building the task, the method "
        "(its AutoGen agents and team, parsing), the record and the `Judgment`. The last column: `evaluate` on "
        "the same rows as one run (concurrency 1), its client CPU per item, the method's own cost included, for "
        "comparison. "
        "For context too, `evaluate()` on a one-row table took "
        f"{one_row_s * 1000:.0f} ms of wall time per call (G-Eval, {args.one_row} calls: a run directory, lock, "
        "config hash and endpoint check each).",
        "",
        f"### 2. {args.items:,} items at concurrency {args.concurrency}: `Judge.score_many` vs `evaluate`",
        "",
        "| repeat | `Judge.score_many` s | `evaluate` s | ratio |",
        "|---:|---:|---:|---:|",
    ]
    for index, (judge_s, evaluate_s) in enumerate(zip(flow["judge_s"], flow["evaluate_s"], strict=True), start=1):
        lines.append(f"| {index} | {judge_s:.2f} | {evaluate_s:.2f} | {judge_s / evaluate_s:.2f} |")
    lines += [
        f"| median | {judge_median:.2f} | {evaluate_median:.2f} | **{ratio:.2f}** |",
        "",
        f"G-Eval (one call an item), the same {args.items:,} rows each time, no cache and no endpoint check in "
        "either; `evaluate` also writes its run directory.",
        "",
        f"### 3. {limited['items']:,} concurrent `score_async` calls against a limit of {limited['rpm']:g} "
        "requests a minute",
        "",
        "| items | judged | failed | requests | 429s (share) | share of the limit | endpoint busy s | wall s |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {limited['items']} | {limited['ok']} | {limited['failed']} | {limited['requests']} | "
        f"{limited['rate_limited']} ({limited['rate_limited'] / limited['requests']:.1%}) | "
        f"**{'not binding' if share is None else f'{share:.3f}'}** | {limited['span_s']:.1f} | "
        f"{limited['wall_s']:.1f} |",
        "",
        "One judge, G-Eval, every call started at once (`asyncio.gather`); the budget learnt from the "
        "endpoint's headers through the process-wide limiter. Share of the limit: (answered − the endpoint's "
        "starting bucket) ÷ (limit per second × seconds from its first request to its last), as in "
        "`benchmarks/rate_limits.md`.",
        "",
        "### Targets",
        "",
        f"- Per-item CPU overhead (G-Eval) <= {TARGET_CPU_MS:g} ms: {geval['overhead_ms']:.2f} ms, "
        f"{'met' if geval['overhead_ms'] <= TARGET_CPU_MS else '**not met**'}. DEBATE (five calls an item): "
        f"{debate['overhead_ms']:.2f} ms an item, {debate['overhead_ms'] / debate['calls_per_item']:.2f} ms a call, "
        f"{'within' if debate['overhead_ms'] <= TARGET_CPU_MS else '**over**'} {TARGET_CPU_MS:g} ms an item: the "
        "method's own agents and team (the judge's whole CPU per item is "
        f"{debate['cpu_ms']:.1f} ms against {debate['evaluate_ms']:.1f} ms in `evaluate` for the same items).",
        f"- `score_many` within {TARGET_RATIO:g}x of `evaluate`: {ratio:.2f}x, "
        f"{'met' if ratio <= TARGET_RATIO else '**not met**'}.",
        f"- >= {TARGET_SHARE:.2f} of the limit: {'not binding' if share is None else f'{share:.3f}'}, "
        f"{'met' if share is not None and share >= TARGET_SHARE else '**not met**'}; <= {TARGET_429:.0%} answered "
        f"429: {limited['rate_limited'] / limited['requests']:.1%}, "
        f"{'met' if limited['rate_limited'] / limited['requests'] <= TARGET_429 else '**not met**'}; no item lost: "
        f"{'met' if limited['ok'] == limited['items'] else '**not met**'}.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the three measurements and write the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpu-items", type=int, default=200, help="items scored one at a time, per method")
    parser.add_argument("--one-row", type=int, default=10, help="evaluate() calls on a one-row table")
    parser.add_argument("--items", type=int, default=1000, help="items of the throughput comparison")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3, help="alternated runs of each in the comparison")
    parser.add_argument("--limited-items", type=int, default=1000, help="concurrent calls at the limit")
    parser.add_argument("--rpm", type=float, default=600.0, help="the endpoint's request limit a minute")
    parser.add_argument("--latency", default="0.5-2", help="the limited endpoint's latency, LOW-HIGH seconds")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/judge_api.md"))
    parser.add_argument("--cpu-only", action="store_true", help="measure part 1 only and print it (no report written)")
    parser.add_argument("--profile", type=int, default=0, help="then profile this many DEBATE items and print it")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-key")
    with tempfile.TemporaryDirectory(prefix="bench-judge-") as folder:
        work = Path(folder)
        os.environ["DEBATE_EVAL_CACHE_DIR"] = str(work / "cache")
        with EndpointProcess(["--latency", "0", "--max-lifetime", "3600"]) as endpoint:
            cpu = [cpu_overhead(endpoint.base_url, method, args.cpu_items, work) for method in ("geval", "debate")]
            print(f"cpu: {cpu}", file=sys.stderr)
            if args.cpu_only:
                for row in cpu:
                    print(f"{row['method']}: overhead {row['overhead_ms']:.2f} ms an item (client CPU "
                          f"{row['cpu_ms']:.2f}, bare calls {row['bare_ms']:.2f}); load {os.getloadavg()}")  # fmt: skip
                if args.profile:
                    print(profile_debate(endpoint.base_url, args.profile))
                return 0
            one_row_s = evaluate_one_row(endpoint.base_url, args.one_row, work)
            flow = throughput(endpoint.base_url, args.items, args.concurrency, args.repeats, work)
            print(f"throughput: {flow}", file=sys.stderr)
        limited = rate_limited(args.rpm, args.latency, args.limited_items)
        print(f"rate limited: {limited}", file=sys.stderr)
    text = report(args, cpu, one_row_s, flow, limited)
    replace_section(args.out, SECTION, text, title="Benchmark: debate_eval.Judge")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
