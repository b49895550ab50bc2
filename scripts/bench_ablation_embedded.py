"""Every protocol side by side on the embedded model: ``benchmarks/ablation_embedded.md``.

Runs ``debate-eval ablate`` on SummEval coherence, the first ``--docs`` documents (all 16 summaries each),
with the embedded llama.cpp server (SmolLM2-135M-Instruct), for every protocol, then writes a Markdown
report with both command lines, the machine, each cell's settings (read from its ``config.json``), its
correlations (ρ, τ), tokens, calls, per-call latency, parse failures and wall time, the distribution of its
scores, G-Eval's scoring methods, and the figure.

The cells share a response cache of their own (``WORK/cache``, so no earlier run's answers are reused): a
cell reuses the calls another cell already made (``cached`` column), so its wall time counts only its new
calls. Rerunning the command resumes from ``WORK``; ``--fresh`` deletes ``WORK`` first for a fresh
measurement, and the report says which it was.

Usage (from the repository root)::

    DEBATE_EVAL_DATA_DIR=/path/to/data python scripts/bench_ablation_embedded.py --docs 5 --fresh
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import platform
import shlex
import shutil
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from debate_eval.tasks.analysis.ablation_plot import PROTOCOL_REFERENCE
from debate_eval.tasks.analysis.meta_eval import paper_value, score_bin
from debate_eval.tasks.cli.ablate import selected_records
from debate_eval.tasks.cli.main import main as debate_eval
from debate_eval.tasks.data.datasets import load_items, resolve_data_dir, select_items
from debate_eval.tasks.engine.record import Record

PROTOCOLS = ("debate", "multiagent", "tiebreaker", "both", "geval", "chateval")
DATASET = "summeval"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=5, help="first K SummEval documents (default 5)")
    parser.add_argument("--aspect", default="coherence")
    parser.add_argument("--protocols", default=",".join(PROTOCOLS))
    parser.add_argument("--max-tokens", type=int, default=256, help="longest answer (embedded default: 256)")
    parser.add_argument("--work", default="runs/bench_ablation_embedded", help="run directories")
    parser.add_argument("--fresh", action="store_true", help="delete --work first (default: resume from it)")
    parser.add_argument("--out", default="benchmarks/ablation_embedded.md")
    return parser.parse_args(argv)


def ablate_argv(args: argparse.Namespace, work: Path) -> list[str]:
    """The ``debate-eval`` arguments of the ablation this benchmark runs."""
    return (
        ["ablate", "--dataset", DATASET, "--aspect", args.aspect, "--docs", str(args.docs), "--out", str(work)]
        + ["--grid", f"method={args.protocols}", "--cache-dir", str(work / "cache"), "--no-progress"]
        + ["--max-tokens", str(args.max_tokens)]
    )


def prepare_work(work: Path, fresh: bool) -> str:
    """Delete ``work`` when ``fresh``; say how the measurement starts: ``fresh``, ``new`` or ``resumed``."""
    if fresh:
        if work.exists():
            shutil.rmtree(work)
        return "fresh"
    return "resumed" if any(work.glob("cells/*/results.jsonl")) else "new"


START_TEXT = {
    "fresh": "fresh (`--fresh`: the work folder was deleted first; every number was measured by this run)",
    "new": "fresh (the work folder held no results)",
    "resumed": "**resumed** from earlier results in the work folder: items already done were not rerun, so "
    "`wall s` and `s per call` cover only what this invocation ran (tokens, `calls` and `cached` count every "
    "selected item's record); rerun with `--fresh` for a clean measurement",
}


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def run_dir(work: Path, row: dict[str, str]) -> Path:
    """The run directory of a CSV row (a cell that shares another cell's run: that cell's)."""
    return work / "cells" / (row.get("same_as") or row["cell"])


def _distinct(values: list[Any]) -> str:
    found = list(dict.fromkeys("-" if v is None else str(v) for v in values))
    return " / ".join(found) if found else "-"


def cell_settings(config: dict[str, Any] | None) -> dict[str, str]:
    """Model, slots, decoding and protocol settings of a cell, from its ``config.json``."""
    if config is None:
        return dict.fromkeys(("model", "slots", "max_tokens", "temperature", "seed", "setup"), "?")
    roles = (config.get("models") or {}).get("roles") or {}
    embedded = (config.get("models") or {}).get("embedded")
    sampling = [settings.get("sampling") or {} for settings in roles.values()]
    result = config.get("result_config") or {}
    debate, geval, chateval = result.get("debate"), result.get("geval"), result.get("chateval")
    if debate:
        setup = f"n = {debate['max_rounds']}, Critic `{debate['critic']['name']}`"
        setup += ", Tie-breaker" if debate.get("tiebreaker") else ""
        setup += ", LLM Commander" if debate.get("commander_llm") else ""
    elif chateval:
        names = ", ".join(referee["name"] for referee in chateval["referees"])
        setup = f"{len(chateval['referees'])} referees ({names}), {chateval['turns']} turns, {chateval['strategy']}"
    elif geval:
        setup = f"log-probabilities {'on' if geval['use_logprobs'] else 'off'}, {geval['samples']} sample(s)"
    else:
        setup = "-"
    return {
        "model": _distinct([settings.get("model") for settings in roles.values()]),
        "slots": str(embedded["parallel"]) if embedded else "-",
        "max_tokens": _distinct([s.get("max_tokens") for s in sampling]),
        "temperature": _distinct([s.get("temperature") for s in sampling]),
        "seed": _distinct([s.get("seed") for s in sampling]),
        "setup": setup,
    }


def distribution(records: list[Record]) -> str:
    """How often each (rounded) score was given, and how many items had none."""
    counts = Counter(str(score_bin(r.score)) if r.score is not None else "none" for r in records)
    return ", ".join(f"{key}: {counts[key]}" for key in sorted(counts))


def scoring_methods(records: list[Record]) -> Counter[str]:
    """How many items used each G-Eval scoring method (``details.method``)."""
    details = [r.details for r in records]
    return Counter(str(d["method"]) for d in details if isinstance(d, Mapping) and d.get("method"))


def per_call_s(summary: dict[str, Any] | None) -> str:
    """This invocation's wall time over the model calls it made (cached calls excluded)."""
    now = (summary or {}).get("this_invocation") or summary or {}  # summary.json: the invocation's part
    if not now.get("llm_calls") or now.get("elapsed_s") is None:
        return "-"
    return f"{now['elapsed_s'] / now['llm_calls']:.2f}"


def installed_version(name: str) -> str:
    """A distribution's version, or "not installed" (a run on another endpoint needs no xllamacpp)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def report(args: argparse.Namespace, command: str, ablate_command: str, work: Path, wall_s: float, start: str) -> str:
    """The Markdown report from the ablation's CSV and each cell's config.json, summary.json and results."""
    rows = list(csv.DictReader((work / "ablation.csv").open(encoding="utf-8")))
    item_ids = [item.item_id for item in select_items(load_items(DATASET, resolve_data_dir(None)), docs=args.docs)]
    versions = ", ".join(
        f"{name} {installed_version(name)}" for name in ("pyautogen", "autogen-agentchat", "openai", "xllamacpp")
    )
    lines = [
        "# Every protocol on the embedded model (SmolLM2-135M-Instruct)",
        "",
        "Generated by `scripts/bench_ablation_embedded.py`; rerun the command instead of editing.",
        "",
        "```",
        command,
        "# which ran:",
        ablate_command,
        "```",
        "",
        f"- Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; total wall time {wall_s / 60:.1f} min",
        f"- Measurement: {START_TEXT[start]}",
        f"- Machine: {platform.platform()}, {os.cpu_count()} CPUs; Python {platform.python_version()}; {versions}",
        f"- Data: SummEval {args.aspect}, the first {args.docs} documents x 16 summaries ({len(item_ids)} items, "
        "the same in every cell).",
        "- The cells share the response cache: `tiebreaker` reuses `multiagent`'s debate and `both` reuses "
        "`debate`'s, so their wall time and `calls` count only their new calls (`cached` shows the rest).",
        "",
        "**This is a 135M-parameter model.** These numbers say how the pipeline behaves on it, not how DEBATE "
        "performs; the paper's GPT-4 numbers are beside them for scale only.",
        "",
        "Settings of each cell, from its `config.json` (values that differ between roles are separated by /):",
        "",
        "| cell | model | embedded slots | max tokens | temperature | seed | protocol setup |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        s = cell_settings(_read_json(run_dir(work, row) / "config.json"))
        lines.append(
            f"| {row['cell']} | {s['model']} | {s['slots']} | {s['max_tokens']} | {s['temperature']} | {s['seed']} "
            f"| {s['setup']} |"
        )
    lines += [
        "",
        "| protocol | ρ | τ | paper ρ (GPT-4) | docs used / skipped | no score | prompt tokens | completion tokens "
        "| calls | cached | wall s | s per call | scores given |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    methods: list[str] = []
    notes: list[str] = []
    for row in rows:
        paper = paper_value(PROTOCOL_REFERENCE.get(row["protocol"], ""), DATASET, args.aspect, "spearman")
        directory = run_dir(work, row)
        records = selected_records(directory / "results.jsonl", item_ids)
        lines.append(
            f"| {row['protocol']} | {row['spearman'] or 'n/a'} | {row['kendall'] or 'n/a'} | "
            f"{paper if paper is not None else '-'} | {row['n_groups'] or 0} / {row['n_skipped'] or 0} | "
            f"{row['n_missing'] or 0} / {row['n_items'] or 0} | {int(row['prompt_tokens']):,} | "
            f"{int(row['completion_tokens']):,} | {row['llm_calls']} | {row['cached_calls']} | "
            f"{row['wall_s'] or '-'} | {per_call_s(_read_json(directory / 'summary.json'))} | "
            f"{distribution(records)} |"
        )
        counted = scoring_methods(records)
        if row["protocol"] == "geval" or counted:
            spelled = ", ".join(f"`{m}` {n}" for m, n in counted.most_common()) or "none recorded"
            methods.append(f"- `{row['cell']}`: {spelled} (of {len(records)} items)")
        if row.get("same_as"):
            notes.append(f"- `{row['cell']}` is the same configuration as `{row['same_as']}`: one shared run.")
        if row.get("error"):
            notes.append(f"- `{row['cell']}` failed: {row['error']}")
    lines += [
        "",
        "ρ and τ are summary-level (per document over its 16 summaries, averaged); a document whose predicted "
        "scores are all equal gives no correlation and is skipped (`docs used / skipped`); 'n/a' means no "
        "document was usable. 'scores given' counts the final scores, rounded half up, and the items with none. "
        "'s per call' is this invocation's wall time over the model calls it made (cache hits excluded), so "
        "protocols compare despite the shared cache; it includes starting the embedded server.",
    ]
    if methods:
        lines += ["", "G-Eval scoring method per item (`details.method` of each record):", "", *methods]
    if notes:
        lines += ["", *notes]
    lines += ["", "![ablation](ablation_embedded.png)", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None, *, extra: Sequence[str] = ()) -> int:
    """Run the ablation and write the report (also when a cell failed; the exit status says so).

    ``extra``: more ``debate-eval ablate`` arguments (tests point the cells at a scripted server with them).
    """
    args = parse_args(argv)
    work = Path(args.work)
    command = "python scripts/bench_ablation_embedded.py " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    start = prepare_work(work, args.fresh)
    ablate = ablate_argv(args, work) + list(extra)
    started = time.perf_counter()
    code = debate_eval(ablate)
    if not (work / "ablation.csv").exists():
        return code or 1
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    wall_s = time.perf_counter() - started
    out.write_text(report(args, command.strip(), shlex.join(["debate-eval", *ablate]), work, wall_s, start), "utf-8")
    shutil.copyfile(work / "ablation.png", out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')}")
    return code


if __name__ == "__main__":
    sys.exit(main())
