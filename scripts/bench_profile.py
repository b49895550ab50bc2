"""cProfile of one framework measurement, as Markdown tables (used by scripts/bench_throughput.py)."""

from __future__ import annotations

import asyncio
import cProfile
import pstats
from collections.abc import Awaitable, Callable
from pathlib import Path


def profile(coroutine: Callable[[], Awaitable[object]]) -> list[str]:
    """Markdown lines: the functions with the most own time in one more framework measurement (cProfile)."""
    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(coroutine())  # type: ignore[arg-type]
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = sum(entry[2] for entry in stats.stats.values())  # type: ignore[attr-defined]
    by_package: dict[str, float] = {}
    for (filename, _, _), (_, _, own, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        by_package[_package(filename)] = by_package.get(_package(filename), 0.0) + own
    top = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:12]  # type: ignore[attr-defined]
    lines = [f"cProfile, one more measurement ({total:.2f} s of own time in all, profiler overhead included).", ""]
    lines += ["| package | own s | share |", "|---|---:|---:|"]
    for package, own in sorted(by_package.items(), key=lambda kv: kv[1], reverse=True)[:10]:
        lines.append(f"| {package} | {own:.3f} | {100 * own / total:.1f}% |")
    lines += ["", "| function | own s |", "|---|---:|"]
    lines += [
        f"| `{_package(f)}: {Path(f).name}:{line} {name}` | {own:.3f} |" for (f, line, name), (_, _, own, _, _) in top
    ]
    return lines


def _package(filename: str) -> str:
    """``autogen_core``, ``openai``, ``debate_eval`` (this project), ``stdlib`` or ``builtins``."""
    if filename.startswith("~") or filename.startswith("<"):
        return "builtins"
    parts = Path(filename).parts
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1]
    for name in ("agents", "debates", "tasks"):
        if (name in parts and "main" in parts) or name in parts[-2:-1]:
            return "debate_eval"
    return "stdlib"
