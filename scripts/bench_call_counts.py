"""Function calls per model call: the judge's client stack, the raw ``openai`` client, a DEBATE item.

CPU times on a shared machine move with the load; the number of Python function calls a model call makes does
not. This script counts them with ``sys.setprofile`` in the judge's event-loop thread (every function entered,
a coroutine's every resumption included, and every call of a built-in), against the scripted endpoint
(``tests/support/rate_limited_server.py``) in a process of its own, and groups them by package:

- **stack**: one bare call through the judge's own client stack (``ClientPool.shared``: retries, rate
  limiter, answer check, the project's OpenAI client, the SDK, the HTTP client and its observers), the
  call ``scripts/bench_judge_api.py --cpu-only`` subtracts;
- **raw**: the same call through ``openai.AsyncOpenAI`` with its own HTTP client, as the raw side of
  ``scripts/bench_throughput.py`` makes it;
- **item**: one DEBATE item under ``Judge`` (n = 2: five model calls), divided by its five calls.

``--top N`` also lists the N functions of the project, the HTTP stack and the SDK with the most calls per
model call (stack and item), to compare two builds function by function. ``--only-items URL`` scores the
items against an endpoint started apart and counts nothing, for an instruction count under
``valgrind --tool=callgrind``, which does not depend on the machine's load either (``only_items``).

Usage (from the repository root)::

    python scripts/bench_call_counts.py --calls 50 --items 20
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_judge_api import SOURCE, judge_options  # sibling scripts
from endpoint_process import EndpointProcess

PROJECT = ("agents/models/", "agents/", "debates/", "tasks/")  # this repository's packages (models first)
SHOWN = ("agents/", "debates/", "tasks/", "openai", "httpx2", "httpcore2", "h11", "anyio")  # in --top


def group_of(where: str) -> str:
    """The package a code file belongs to: an installed package's name, one of ``PROJECT``, ``asyncio``,
    ``builtins`` (a call of a built-in) or ``other`` (the rest of the standard library)."""
    if where.startswith("<builtin>"):
        return "builtins"
    if "site-packages/" in where:
        return where.split("site-packages/")[-1].split("/")[0].removesuffix(".py")
    project = next((name for name in PROJECT if f"/{name}" in where), None)
    if project is not None and "/python3." not in where:
        return project
    return "asyncio" if "/asyncio/" in where else "other"


def short_name(where: str) -> str:
    """A code file's path from its package (``httpx2/_models.py``, ``agents/models/retry.py``)."""
    if "site-packages/" in where:
        return where.split("site-packages/")[-1]
    project = next((name for name in PROJECT[1:] if f"/{name}" in where), None)
    return where[where.rindex(f"/{project}") + 1 :] if project else where


class Counting:
    """A ``sys.setprofile`` function counting calls by (file, line, function); ``<builtin>`` for C calls."""

    def __init__(self) -> None:
        self.calls: Counter[tuple[str, int, str]] = Counter()

    def __call__(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            self.calls[(code.co_filename, code.co_firstlineno, code.co_name)] += 1
        elif event == "c_call":
            self.calls[("<builtin>", 0, getattr(arg, "__qualname__", str(arg)))] += 1


def count(run: Callable[[], Awaitable[object]], blocking: Callable[[Awaitable[Any]], Any]) -> Counter[Any]:
    """The calls ``run()`` makes in the loop's thread (``blocking`` runs a coroutine on it)."""
    counting = Counting()

    async def measured() -> None:
        sys.setprofile(counting)
        try:
            await run()
        finally:
            sys.setprofile(None)

    blocking(measured())
    return counting.calls


def by_group(calls: Counter[Any], per: int) -> dict[str, float]:
    """Calls per ``per`` grouped by package."""
    groups: Counter[str] = Counter()
    for (where, _line, _name), n in calls.items():
        groups[group_of(where)] += n
    return {name: n / per for name, n in groups.items()}


def measure(base_url: str, calls: int, items: int) -> dict[str, tuple[Counter[Any], int]]:
    """The calls of ``calls`` bare calls through the judge's stack and the raw client, and of ``items`` DEBATE
    items, each with the number of model calls they made."""
    import openai
    from autogen_core.models import UserMessage

    import debate_eval
    from debate_eval._loop import blocking

    prompt = "Rate the summary from 1 to 5. " * 20
    raw = openai.AsyncOpenAI(base_url=base_url, api_key="not-needed", max_retries=0)
    with debate_eval.Judge(method="debate", **judge_options(base_url)) as judge:
        judge.score("Warm-up summary.", source=SOURCE)
        client = judge._session.pool.shared("scorer")

        async def stack_calls() -> None:
            for i in range(calls):
                await client.create([UserMessage(content=f"{prompt} ({i})", source="user")])

        async def raw_calls() -> None:
            for i in range(calls):
                messages = [{"role": "user", "content": f"{prompt} ({i})"}]
                await raw.chat.completions.create(model="gpt-4o", messages=messages)  # type: ignore[arg-type]

        async def judged() -> None:
            for i in range(items):
                await judge._score(f"Summary number {i}.", source=SOURCE)

        blocking(stack_calls())  # warm-up
        blocking(raw_calls())
        counts = {
            "stack": (count(stack_calls, blocking), calls),
            "raw": (count(raw_calls, blocking), calls),
            "item": (count(judged, blocking), items * 5),
        }
        blocking(raw.close())
    return counts


def only_items(base_url: str, items: int) -> None:
    """Score 3 warm-up and ``items`` DEBATE items against ``base_url``, counting nothing: run under
    ``valgrind --tool=callgrind`` (the endpoint started outside it), twice with different ``items``, the
    difference of the instruction counts over the difference of the items is the instructions per item,
    whatever the machine's load."""
    import debate_eval

    with debate_eval.Judge(method="debate", **judge_options(base_url)) as judge:
        for i in range(3 + items):
            judge.score(f"Summary number {i}.", source=SOURCE)


def main() -> None:
    """Count and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=50, help="bare calls counted (stack and raw each)")
    parser.add_argument("--items", type=int, default=20, help="DEBATE items counted")
    parser.add_argument("--top", type=int, default=0, help="also list this many functions by calls")
    parser.add_argument("--save", type=Path, help="write every function's calls per model call here (JSON)")
    parser.add_argument("--only-items", metavar="URL", help="only score 3 + --items items against URL, uncounted")
    args = parser.parse_args()
    if args.only_items:
        only_items(args.only_items, args.items)
        return
    with EndpointProcess(["--latency", "0", "--max-lifetime", "3600"]) as endpoint:
        counts = measure(endpoint.base_url, args.calls, args.items)
    grouped = {side: by_group(calls, per) for side, (calls, per) in counts.items()}
    names = sorted({g for groups in grouped.values() for g in groups}, key=lambda g: -grouped["item"].get(g, 0))
    print(f"function calls per model call ({args.calls} bare calls, {args.items} DEBATE items of 5 calls)")
    print(f"{'package':20} {'stack':>9} {'raw':>9} {'item':>9}")
    for name in names:
        print(f"{name:20} " + " ".join(f"{grouped[side].get(name, 0):9.1f}" for side in grouped))
    print(f"{'total':20} " + " ".join(f"{sum(grouped[side].values()):9.1f}" for side in grouped))
    if args.save:
        data = {
            side: {f"{short_name(w)}:{n} {f}": c / per for (w, n, f), c in calls.items()}
            for side, (calls, per) in counts.items()
        }
        args.save.write_text(json.dumps(data, indent=1, sort_keys=True))
    for side in ("stack", "item"):
        calls, per = counts[side]
        shown = [(key, n) for key, n in calls.items() if group_of(key[0]) in SHOWN]
        for (where, line, name), n in sorted(shown, key=lambda kv: -kv[1])[: args.top]:
            print(f"{side} {n / per:7.2f}  {short_name(where)}:{line} {name}")


if __name__ == "__main__":
    main()
