"""Side by side with the DEBATE authors' released script, on the same items and the same endpoint.

The authors' ``debate.py`` (``gunny97/DEBATE``) runs one SummEval item at a time on pyautogen 0.1 (openai
0.28). Nothing of it is vendored: ``--authors-checkout`` is a local checkout of their repository (default:
``git clone https://github.com/gunny97/DEBATE`` into the work folder), and it runs in a virtual environment of
its own (``--authors-venv``, made on first use with ``pip install pyautogen==0.1.14 openai==0.28.0 pandas
tqdm``). Their ``requirements.txt`` names ``autogen==1.0.16``, which PyPI never had; their code is written
against pyautogen 0.1 (``llm_config`` with ``seed`` and ``config_list``, openai 0.28's
``ChatCompletion``), whose last release is 0.1.14. Their script imports a module ``logger`` their repository
does not have: a two-line stand-in (``logger.error`` = ``logging.error``, used only on an error path) is put on
``PYTHONPATH``, with a ``sitecustomize`` that adds up the seconds their script spends in ``time.sleep``
(2.5 s after each step). Their ``data/summeval.json`` is the project's SummEval file (same git blob,
812a51e6); a checkout without it (a partial snapshot) uses the project's copy after checking the blob id.

The endpoint is the rate-limited scripted endpoint with no limit that binds, answering after a latency
uniform in ``--latency`` and deterministically from each request (``hashed_reply``: the Scorer's score and the
Critic's agreement come from a hash of the messages), so two programs that send the same messages get the
same answers. Each program gets a fresh endpoint; calls and tokens are the endpoint's counts.

Rows:

1. the authors' script, as released (its sleeps included; the time without them is given apart);
2. ``debate-eval run --fidelity authors-code --reproduce-authors-bugs`` with their prompt file as the template
   (their final-answer index bug reproduced, so the final answers are theirs item for item);
3. ``--fidelity paper`` (the paper's Algorithm 1, this project's default) with the same template;
4. ``--fidelity paper --batch`` against the scripted Batch API endpoint (the same replies and token counting):
   cost at the Batch API's price factor.

Requests: the endpoint keeps a SHA-256 of every request body it answers, so the two programs' requests are
compared as sets (the same distinct bodies) and their tokens over the distinct bodies; pyautogen 0.1's own
response cache (their ``seed: 453``) answers a repeated request without sending it, so their call count is
lower where items repeat another item's summary.

Scores: their final answer read as their ``evalute_score.py`` reads it (the first digit of the first number;
an item without a number is skipped), against the run's ``score``. Cost: the endpoint's token counts at
``tasks/engine/prices.csv``'s price for ``--model`` (gpt-4-1106-preview: the paper's $10 / $30 per million).
Targets: >= 10x the authors' items per minute; equal tokens per item in authors-code mode.

Usage (from the repository root)::

    DEBATE_EVAL_DATA_DIR=/path/to/data python scripts/bench_vs_authors.py --authors-checkout /path/to/DEBATE
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debate_eval.agents.models.providers.scripted_server import Request
from debate_eval.agents.models.token_estimate import count_prompt_tokens, count_text_tokens
from debate_eval.tasks.data.datasets import resolve_data_dir
from debate_eval.tasks.engine.accounting import load_prices

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support: the fake endpoints
from bench_report import load_text, replace_section, section_head  # sibling script
from endpoint_process import EndpointProcess  # sibling script
from support.batch_server import ScriptedBatchServer
from support.rate_limited_server import hashed_reply

AUTHORS_REPO = "https://github.com/gunny97/DEBATE"
AUTHORS_PACKAGES = ("pyautogen==0.1.14", "openai==0.28.0", "pandas", "tqdm")
SUMMEVAL_BLOB = "812a51e6727b4a64e661603fa350d76586ef7de0"
SECTION = "vs_authors"
ASPECT_PROMPTS = {"coherence": "coh", "consistency": "con", "fluency": "flu", "relevance": "rel"}
TARGET_SPEEDUP = 10.0

LOGGER_SHIM = '''"""Stand-in for the module ``logger`` their debate.py imports (not in their repository)."""
import logging

error = logging.getLogger("debate").error
'''
SLEEP_SHIM = '''"""Adds up the seconds the script spends in time.sleep and writes them to $BENCH_SLEEP_FILE at exit."""
import atexit
import os
import time

_sleep = time.sleep
_total = [0.0]


def _counting_sleep(seconds):
    _total[0] += seconds
    _sleep(seconds)


def _write():
    with open(os.environ["BENCH_SLEEP_FILE"], "w") as handle:
        handle.write(str(_total[0]))


if os.environ.get("BENCH_SLEEP_FILE"):
    time.sleep = _counting_sleep
    atexit.register(_write)
'''


def git_blob_id(path: Path) -> str:
    """``git hash-object`` of a file."""
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def their_score(text: str, aspect: str) -> int | None:
    """Their ``evalute_score.py``: the first digit of the first number (fluency: the last digit of the last
    number); None where they skip the item."""
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    if not numbers:
        return None
    number = numbers[-1] if aspect == "fluency" else numbers[0]
    digits = str(number)
    return int(digits[-1] if aspect == "fluency" else digits[0])


def start_endpoint(latency: str) -> EndpointProcess:
    """The scripted endpoint with hashed replies (no limit that binds), in a child process."""
    return EndpointProcess(["--replies", "hashed", "--latency", latency])


class TokenBatchServer(ScriptedBatchServer):
    """The scripted Batch API endpoint answering like the rate-limited one: hashed replies, usage in tokens."""

    def completion(self, request: Request) -> dict[str, Any]:
        """The scripted answer with the same token counts as the rate-limited endpoint."""
        body = super().completion(request)
        prompt = count_prompt_tokens(request.get("messages") or [])
        completion = count_text_tokens(body["choices"][0]["message"]["content"])
        body["usage"] = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        return body


# ------------------------------------------------------------------------------------------ setup


def authors_checkout(args: argparse.Namespace, work: Path) -> Path:
    """Their repository: ``--authors-checkout``, else a clone made now."""
    if args.authors_checkout:
        return Path(args.authors_checkout)
    target = work / "DEBATE"
    subprocess.run(["git", "clone", "--depth", "1", AUTHORS_REPO, str(target)], check=True)
    return target


def authors_venv(args: argparse.Namespace) -> Path:
    """The Python of a virtual environment with their packages (made on first use)."""
    venv = Path(args.authors_venv).expanduser()
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *AUTHORS_PACKAGES], check=True)
    return python


def summeval_subset(checkout: Path, items: int, work: Path) -> tuple[Path, list[dict[str, Any]]]:
    """The first ``items`` rows of their data file (or the project's identical copy), as a file of its own."""
    theirs = checkout / "data" / "summeval.json"
    source = theirs if theirs.is_file() else resolve_data_dir(None) / "summeval" / "summeval.json"
    if git_blob_id(source) != SUMMEVAL_BLOB:
        raise SystemExit(f"{source}: not the SummEval file of their repository (git blob {SUMMEVAL_BLOB})")
    rows = json.loads(source.read_text(encoding="utf-8"))[:items]
    subset = work / "summeval_subset.json"
    subset.write_text(json.dumps(rows, indent=4, ensure_ascii=False), encoding="utf-8")
    return subset, rows


# ------------------------------------------------------------------------------------------ runs


def run_authors(args: argparse.Namespace, checkout: Path, python: Path, subset: Path, work: Path) -> dict[str, Any]:
    """Their debate.py on the subset against a fresh endpoint."""
    shim = work / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "logger.py").write_text(LOGGER_SHIM, encoding="utf-8")
    (shim / "sitecustomize.py").write_text(SLEEP_SHIM, encoding="utf-8")
    cwd = work / "authors_run"  # pyautogen 0.1 caches answers in ./.cache/453: a fresh folder, no cache
    cwd.mkdir()
    save = cwd / "results.json"
    prompt = checkout / "prompts" / "summeval" / f"{ASPECT_PROMPTS[args.aspect]}_detailed.txt"
    command = [str(python), str(checkout / "debate.py"), "--prompt_fp", str(prompt), "--aspect", args.aspect]
    command += ["--save_fp", str(save), "--summeval_fp", str(subset), "--key", "sk-bench-not-a-key"]
    command += ["--model", args.model]
    with start_endpoint(args.latency) as endpoint:
        env = {**os.environ, "OPENAI_API_BASE": endpoint.base_url, "PYTHONPATH": str(shim)}
        env["BENCH_SLEEP_FILE"] = str(cwd / "slept.txt")
        wall, cpu, completed = timed(command, env, cwd)
        stats = endpoint.stats()
    if completed.returncode != 0 or not save.is_file():
        raise SystemExit(f"their script failed ({completed.returncode}): {completed.stderr[-2000:]}")
    results = json.loads(save.read_text(encoding="utf-8"))
    slept = float((cwd / "slept.txt").read_text())
    shown = shlex.join(command).replace(str(work), "WORK").replace(str(checkout), "CHECKOUT")
    return {"wall_s": wall, "cpu_s": cpu, "stats": stats, "results": results, "slept_s": slept, "command": shown}


def run_ours(args: argparse.Namespace, checkout: Path, work: Path, name: str, *extra: str) -> dict[str, Any]:
    """``debate-eval run`` on the same items against a fresh endpoint (``--batch``: the batch endpoint)."""
    prompt = checkout / "prompts" / "summeval" / f"{ASPECT_PROMPTS[args.aspect]}_detailed.txt"
    out = work / name
    command = ["debate-eval", "run", "--dataset", "summeval", "--aspect", args.aspect, "--limit", str(args.items)]
    command += ["--template", str(prompt), "--max-rounds", "2", "--model", args.model, "--no-cache"]
    command += ["--no-preflight", "--no-progress", "--concurrency", str(args.concurrency), *extra]
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench-not-a-key", "DEBATE_EVAL_CACHE_DIR": str(work / "cache")}
    if "--batch" in extra:
        with TokenBatchServer(reply=hashed_reply, batch_delay_s=0.2) as server:
            full = [*command, "--base-url", server.base_url, "--batch-poll", "0.05", "--out", str(out)]
            wall, cpu, completed = timed(full, env, work)
            stats = None
    else:
        with start_endpoint(args.latency) as endpoint:
            full = [*command, "--base-url", endpoint.base_url, "--out", str(out)]
            wall, cpu, completed = timed(full, env, work)
            stats = endpoint.stats()
    if completed.returncode not in (0, 1):
        raise SystemExit(f"debate-eval run failed ({completed.returncode}): {completed.stderr[-2000:]}")
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    shown = shlex.join([*command, "--base-url", "URL", "--out", "OUT"]).replace(str(checkout), "CHECKOUT")
    return {"wall_s": wall, "cpu_s": cpu, "stats": stats, "records": records, "summary": summary, "command": shown}


def timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run ``command``: (wall seconds, CPU seconds of the child, the completed process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), completed


# ------------------------------------------------------------------------------------------ report


def agreement(rows: list[dict[str, Any]], authors: dict[str, Any], ours: dict[str, Any], aspect: str) -> dict[str, Any]:
    """Item-for-item comparison of the final scores (their reading of their final answer vs the run's)."""
    by_key = {(r["group_id"], r["system_id"]): r for r in ours["records"]}
    theirs = {}
    for row, result in zip(rows, authors["results"], strict=False):  # their loop keeps the file's order
        theirs[(row["doc_id"], row["system_id"])] = their_score(str(result.get(aspect, "")), aspect)
    same = [key for key, score in theirs.items() if key in by_key and by_key[key].get("score") == score]
    differ = [key for key in theirs if key not in same]
    return {
        "compared": len(theirs),
        "same": len(same),
        "differ": differ,
        "skipped": sum(v is None for v in theirs.values()),
    }


def cost(prompt: float, completion: float, model: str, batch: bool = False) -> float | None:
    """Dollars at prices.csv's price for ``model``."""
    price = load_prices().get(model)
    return None if price is None else price.cost(int(prompt), 0, int(completion), batch=batch)


def table_row(name: str, items: int, wall: float | None, calls: float, prompt: float, completion: float,
              dollars: float | None, agree: str) -> str:  # fmt: skip
    per_min = f"{items / wall * 60:.2f}" if wall else "—"
    wall_text = f"{wall:.1f}" if wall else "—"
    money = f"{dollars / items:.4f}" if dollars is not None else "—"
    return (
        f"| {name} | {items} | {wall_text} | {per_min} | {calls / items:.2f} | {prompt / items:,.0f} | "
        f"{completion / items:,.1f} | {money} | {agree} |"
    )


def usage_totals(summary: dict[str, Any]) -> tuple[float, float, float]:
    """(calls, prompt tokens, completion tokens) of a run's summary."""
    roles = summary["usage"]  # role -> its usage
    prompt = sum(u.get("prompt_tokens", 0) for u in roles.values())
    completion = sum(u.get("completion_tokens", 0) for u in roles.values())
    return summary["llm_calls"], prompt, completion


def request_bodies(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """Compare the request bodies two runs sent (the endpoint's SHA-256 of each), and their tokens over the
    distinct bodies."""
    firsts = []
    for stats in (a, b):
        first: dict[str, tuple[int, int]] = {}
        for digest, prompt, completion in stats["bodies"]:
            first.setdefault(digest, (prompt, completion))
        firsts.append(first)
    first_a, first_b = firsts
    totals = [(sum(p for p, _ in f.values()), sum(c for _, c in f.values())) for f in firsts]
    return {
        "distinct_a": len(first_a),
        "distinct_b": len(first_b),
        "same_set": set(first_a) == set(first_b),
        "prompt_a": totals[0][0],
        "prompt_b": totals[1][0],
        "completion_a": totals[0][1],
        "completion_b": totals[1][1],
        "equal_tokens": totals[0] == totals[1],
        "calls_a": len(a["bodies"]),
        "calls_b": len(b["bodies"]),
        "repeats_a": len(a["bodies"]) - len(first_a),
        "repeats_b": len(b["bodies"]) - len(first_b),
    }


def report(args: argparse.Namespace, command: str, runs: dict[str, dict[str, Any]], agree: dict[str, Any],
           load: str) -> str:  # fmt: skip
    authors, code, paper, batch = runs["authors"], runs["authors_code"], runs["paper"], runs["batch"]
    items = len(authors["results"])
    a_stats = authors["stats"]
    engine_wall = authors["wall_s"] - authors["slept_s"]
    rows = [
        table_row(
            "authors' debate.py (pyautogen 0.1.14)",
            items,
            authors["wall_s"],
            a_stats["answered"],
            a_stats["prompt_tokens"],
            a_stats["completion_tokens"],
            cost(a_stats["prompt_tokens"], a_stats["completion_tokens"], args.model),
            "—",
        ),
        table_row(
            "… the same without its 2.5 s sleeps (computed: wall − slept)",
            items,
            engine_wall,
            a_stats["answered"],
            a_stats["prompt_tokens"],
            a_stats["completion_tokens"],
            cost(a_stats["prompt_tokens"], a_stats["completion_tokens"], args.model),
            "—",
        ),
    ]
    for name, run, note in (
        ("debate-eval --fidelity authors-code --reproduce-authors-bugs", code, f"{agree['same']}/{agree['compared']}"),
        ("debate-eval --fidelity paper", paper, "(paper mode)"),
    ):
        stats = run["stats"]
        rows.append(
            table_row(
                name, len(run["records"]), run["wall_s"], stats["answered"], stats["prompt_tokens"],
                stats["completion_tokens"], run["summary"]["estimated_cost_usd"], note,
            )
        )  # fmt: skip
    calls, prompt, completion = usage_totals(batch["summary"])
    rows.append(
        table_row(
            "debate-eval --fidelity paper --batch", len(batch["records"]), None, calls, prompt, completion,
            batch["summary"]["estimated_cost_usd"], "(batch endpoint)",
        )
    )  # fmt: skip
    speedup = (items / authors["wall_s"]) and (len(code["records"]) / code["wall_s"]) / (items / authors["wall_s"])
    engine_speedup = (len(code["records"]) / code["wall_s"]) / (items / engine_wall)
    same = request_bodies(a_stats, code["stats"])
    lines = [
        *section_head(
            "Side by side with the authors' script (`scripts/bench_vs_authors.py`)",
            command,
            load,
            f"Client CPU seconds: authors {authors['cpu_s']:.1f}, authors-code {code['cpu_s']:.1f}, paper "
            f"{paper['cpu_s']:.1f}.",
        ),
        f"- {items} SummEval {args.aspect} items (the first of the file), their prompt file "
        f"`prompts/summeval/{ASPECT_PROMPTS[args.aspect]}_detailed.txt` as the template, n = 2, model name "
        f"`{args.model}`; the endpoint answers after a latency uniform in {args.latency} s, deterministically "
        f"from each request, with no binding limit; `--concurrency {args.concurrency}` for debate-eval. Calls "
        "and tokens are the endpoint's counts (the batch row: the run's own usage, same token counting).",
        f"- Their script as released sleeps 2.5 s after each step: {authors['slept_s']:.0f} s of its "
        f"{authors['wall_s']:.0f} s. The row without them is computed, not run.",
        "- Commands (WORK: a temporary folder, CHECKOUT: their repository, URL: the endpoint, OUT: a fresh folder):",
        f"  - authors: `{authors['command']}` with `OPENAI_API_BASE=URL`",
        f"  - authors-code: `{code['command']}`",
        f"  - paper: `{paper['command']}`",
        f"  - batch: `{batch['command']}`",
        "",
        "| program | items | wall s | items/min | calls/item | prompt tokens/item | completion tokens/item | "
        "$/item | final scores equal |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
        *rows,
        "",
        f"- Items per minute, authors-code vs their script: **{speedup:.1f}x** (target >= {TARGET_SPEEDUP:.0f}x: "
        f"{'met' if speedup >= TARGET_SPEEDUP else '**not met**'}); against their script without its sleeps "
        f"{engine_speedup:.1f}x.",
        f"- Request bodies, authors-code vs their script: {same['distinct_a']} and {same['distinct_b']} distinct, "
        f"{'**the same set**' if same['same_set'] else '**not the same set**'} (SHA-256 of each body as received); "
        f"tokens over the distinct requests: prompt {same['prompt_a']:,} vs {same['prompt_b']:,}, completion "
        f"{same['completion_a']:,} vs {same['completion_b']:,}: "
        f"{'equal' if same['equal_tokens'] else '**not equal**'}. "
        f"Calls: {same['calls_a']} vs {same['calls_b']}; the difference is repeats of an identical request "
        f"({same['repeats_a']} vs {same['repeats_b']}): items whose summary repeats another item's send the same "
        "requests, and pyautogen 0.1's response cache (their `seed: 453`) answers the repeats, while these "
        "debate-eval runs use `--no-cache` (with its cache on, repeats that are not in flight at the same time are "
        "answered from it too).",
        f"- Final scores: {agree['same']} of {agree['compared']} items equal ({agree['skipped']} without a number "
        "in their final answer, which their evalute_score.py skips, and none in ours either when equal)"
        + (f"; differ: {', '.join(f'{d}:{s}' for d, s in agree['differ'][:5])}" if agree["differ"] else "")
        + ".",
        "- Cost: at prices.csv's price for the model (the paper's gpt-4-1106-preview: $10 / $30 per million "
        "input / output tokens; --batch at 0.5 of it). Paper mode makes no Commander call and forwards the "
        "latest score, so its calls and tokens differ from the authors' code.",
    ]
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--authors-checkout", help=f"a local checkout of their repository (default: clone {AUTHORS_REPO})"
    )
    parser.add_argument(
        "--authors-venv",
        default="~/.cache/debate-eval/bench/authors-venv",
        help="virtual environment for their script (made on first use)",
    )
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--aspect", default="coherence", choices=sorted(ASPECT_PROMPTS))
    parser.add_argument("--latency", default="0.5-3", help="seconds, LOW-HIGH")
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--model", default="gpt-4-1106-preview")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/rate_limits.md"))
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    shown_args = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join(["python", "scripts/bench_vs_authors.py", *shown_args])
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-authors-") as tmp:
        work = Path(tmp)
        checkout = authors_checkout(args, work)
        python = authors_venv(args)
        subset, rows = summeval_subset(checkout, args.items, work)
        runs = {"authors": run_authors(args, checkout, python, subset, work)}
        print(f"authors: {runs['authors']['wall_s']:.1f} s", file=sys.stderr)
        runs["authors_code"] = run_ours(args, checkout, work, "authors_code", "--fidelity", "authors-code",
                                        "--reproduce-authors-bugs")  # fmt: skip
        runs["paper"] = run_ours(args, checkout, work, "paper", "--fidelity", "paper")
        runs["batch"] = run_ours(args, checkout, work, "batch", "--fidelity", "paper", "--batch")
        agree = agreement(rows, runs["authors"], runs["authors_code"], args.aspect)
        shutil.rmtree(work / "cache", ignore_errors=True)
    load = load_text(load_before, os.getloadavg())
    replace_section(args.out, SECTION, report(args, command, runs, agree, load), title="Rate limits")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
