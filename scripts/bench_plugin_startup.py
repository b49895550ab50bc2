"""What an installed plugin method costs every command: the run parser built (every method's ``Options`` read,
so every installed plugin's declaration imported) with the example plugin installed, in a fresh process.

Two shapes of the same plugin, both loaded from a temporary copy of ``examples/plugin_method`` through a fake
entry point (nothing is installed):

- ``declaration apart`` - the example as it is: ``method.py`` (the declaration and its ``Options``) imports only
  the method kit; ``judging.py`` (AutoGen) is imported when the method first judges;
- ``AutoGen at import`` - the same package with ``method.py`` importing ``judging`` at its top, as the example
  did before (its one module imported AutoGen and the model pool at module level).

CPU is user + system of the child (``os.wait4``)::

    python scripts/bench_plugin_startup.py --repeat 5 --out benchmarks/plugin_startup.md
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "plugin_method" / "src"
CHILD = """
import sys
from importlib import metadata
sys.path.insert(0, {src!r})
from debate_eval.debates import base
entry = metadata.EntryPoint(name="example-single", value="debate_eval_example.method", group=base.ENTRY_POINT_GROUP)
base._entry_points = lambda: [entry]
from debate_eval.tasks.cli.main import build_parser
build_parser("run").parse_args(["run", "--method", "debate"])
print("autogen" if "autogen_agentchat" in sys.modules else "no autogen")
"""


def shapes(root: Path) -> dict[str, Path]:
    """The two copies of the plugin's source folder."""
    apart = root / "apart"
    shutil.copytree(EXAMPLE, apart)
    eager = root / "eager"
    shutil.copytree(EXAMPLE, eager)
    method = eager / "debate_eval_example" / "method.py"
    text = method.read_text(encoding="utf-8")
    method.write_text(
        text.replace("\nif TYPE_CHECKING:", "\nimport debate_eval_example.judging  # noqa\n\nif TYPE_CHECKING:", 1)
    )
    return {"declaration apart": apart, "AutoGen at import": eager}


def measure(src: Path) -> tuple[float, str]:
    """CPU seconds of one child that builds the run parser with the plugin, and what it imported."""
    process = subprocess.Popen([sys.executable, "-c", CHILD.format(src=str(src))], stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    assert process.stdout is not None
    out = process.stdout.read().strip()
    if status != 0:
        raise SystemExit(f"the child failed (status {status})")
    return usage.ru_utime + usage.ru_stime, out


def main() -> int:
    """Measure both shapes ``--repeat`` times (interleaved) and write a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, help="write the Markdown report here (default: print it)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sources = shapes(Path(tmp))
        cpu: dict[str, list[float]] = {name: [] for name in sources}
        loaded: dict[str, str] = {}
        for _ in range(args.repeat):
            for name, src in sources.items():
                seconds, loaded[name] = measure(src)
                cpu[name].append(seconds)
    lines = [
        "# An installed plugin's cost to every command",
        "",
        "The `run` parser built in a fresh process with the example plugin installed (a fake entry point to a",
        "copy of `examples/plugin_method`): every method's `Options` is read, so every plugin's declaration is",
        "imported. `AutoGen at import` is the same plugin with its declaration importing its implementation, as",
        "the example did before. CPU = user + system of the child.",
        "",
        "```",
        f"python scripts/bench_plugin_startup.py --repeat {args.repeat}",
        "```",
        "",
        "| plugin shape | CPU s, median (min-max) | AutoGen imported |",
        "|---|---|---|",
    ]
    for name, values in cpu.items():
        lines.append(
            f"| {name} | {statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f}) | "
            f"{'yes' if loaded[name] == 'autogen' else 'no'} |"
        )
    load = os.getloadavg()[0]
    lines += ["", f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average {load:.1f}", ""]
    report = "\n".join(lines)
    if args.out:
        args.out.write_text(report, encoding="utf-8")
    else:
        print(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
