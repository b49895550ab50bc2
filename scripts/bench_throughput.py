"""Throughput benchmark: DEBATE debates/s against a scripted OpenAI-compatible server with a fixed latency.

Starts ``ScriptedOpenAIServer`` on 127.0.0.1 in a child process, which answers every chat completion after
``--latency-ms`` with a scripted Scorer or Critic reply (its Critic never says NO ISSUE, so a debate with ``--rounds n``
makes exactly ``2n + 1`` sequential calls). For each concurrency level it measures:

- the framework on its default path (public APIs only), and with ``--fast-path`` (the opt-in private fast
  path, agents/models/fast_path.py): ``debate_eval.tasks.engine.runner.run`` on the first ``--debates``
  SummEval coherence items, protocol ``debate``, response cache, preflight and progress bar off, a fresh run
  directory; the server's request count and every record are checked;
- a raw baseline: the same sequence of calls per debate with the same message lists (each agent's growing
  history: the item's rendered prompt, the personas, the Commander's relay texts, the scripted answers),
  through ``openai.AsyncOpenAI`` directly, with an ``asyncio.Semaphore`` for the same concurrency.

Ideal wall time = debates x calls per debate x latency / min(concurrency, debates). Each side first runs once,
unmeasured (imports, first-use caches, the dataset's first read). Every side's event-loop thread CPU time is
measured too: on a shared machine wall times are noisy, CPU per call much less so. The
report (``--out``) gives the command, the machine and its load, the table, and PASS/FAIL for the targets:
the default path's CPU per call <= 1.5x the raw client's at every concurrency, framework <= 1.15x
the raw client at every concurrency >= 32 (wall time, medians), <= 1.05x at concurrency 1, and >= 0.8 of
ideal at the highest concurrency. ``--batch-debates`` adds a ``--batch`` row (scripts/
bench_batch_row.py): wall time and number of batches of that many debates through the scripted Batch API
endpoint. With ``--profile always`` (or when a target fails) the framework is profiled at the highest
concurrency with cProfile and the top functions are listed.

Usage (from the repository root)::

    DEBATE_EVAL_DATA_DIR=/path/to/data python scripts/bench_throughput.py
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import openai

from debate_eval.agents.commander import TO_CRITIC, TO_SCORER
from debate_eval.agents.models.providers.scripted_server import DEFAULT_REPLIES, STATS_PATH
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.agents.personas import get_persona
from debate_eval.debates.debate.method import debate_config
from debate_eval.tasks.data.datasets import load_items, resolve_data_dir, select_items
from debate_eval.tasks.data.templates import resolve_template
from debate_eval.tasks.engine.results import read_jsonl
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
from debate_eval.tasks.engine.runner import build_tasks, run

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_batch_row import batch_lines, measure_batch  # sibling scripts
from bench_profile import profile

TARGET_IDEAL = 0.8
TARGET_RAW = 1.05  # at concurrency 1
TARGET_RAW_HIGH = 1.15  # at concurrency >= HIGH
TARGET_CPU = 1.5  # the default path's CPU per call over the raw client's
HIGH = 32
WARM_UP_DEBATES = 8


@dataclass
class Row:
    """The measurements of one concurrency level."""

    concurrency: int
    ideal_s: float
    framework: list[float] = field(default_factory=list)  # wall seconds, one per repeat (the default path)
    fast: list[float] = field(default_factory=list)  # the same with --fast-path
    raw: list[float] = field(default_factory=list)
    loop_cpu: list[float] = field(default_factory=list)  # event-loop thread CPU seconds of the framework
    fast_cpu: list[float] = field(default_factory=list)  # the same with --fast-path
    raw_cpu: list[float] = field(default_factory=list)  # the same for the raw client

    def median(self, kind: str) -> float:
        """Median of one list of measurements (``framework``, ``fast``, ``raw``, ``loop_cpu``, ...)."""
        return statistics.median(getattr(self, kind))


class ServerProcess:
    """``ScriptedOpenAIServer`` in a child process, as a real endpoint would be: its request handling does
    not compete with the measured client for this interpreter's lock. Stops when the block ends."""

    def __init__(self, latency_s: float) -> None:
        self.latency_s = latency_s
        self.base_url = ""
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> ServerProcess:
        command = [
            sys.executable,
            str(Path(__file__).resolve().parent / "scripted_endpoint.py"),  # with every method's replies
            "--latency-ms",
            str(self.latency_s * 1000),
        ]
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        self.base_url = self._process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"the scripted server did not start (it printed {self.base_url!r})")
        return self

    @property
    def count(self) -> int:
        """Requests the server has received."""
        with urllib.request.urlopen(self.base_url + STATS_PATH, timeout=10) as response:
            return int(json.load(response)["requests"])

    def __exit__(self, *exc: object) -> None:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=30)


def make_config(base_url: str, rounds: int) -> RunConfig:
    """SummEval coherence, DEBATE, every role on the scripted server."""
    models = resolve_model_config(ModelOverrides(base_url=base_url, model="scripted"), environ={})
    return RunConfig(
        dataset="summeval",
        aspect="coherence",
        protocol="debate",
        template=resolve_template("summeval", "coherence"),
        models=models,
        method_config=debate_config("devils-advocate", False, "summarization", max_rounds=rounds),
    )


async def measure_framework(
    latency_s: float, debates: int, concurrency: int, rounds: int, data_dir: Path, fast_path: bool = False
) -> tuple[float, float]:
    """Wall time and event-loop CPU time of ``run()`` (``fast_path``: with ``--fast-path``); checks every
    record and the request count."""
    with ServerProcess(latency_s) as server, tempfile.TemporaryDirectory() as tmp:
        config = make_config(server.base_url, rounds)
        options = RunOptions(
            out_dir=Path(tmp) / "run",
            data_dir=data_dir,
            limit=debates,
            concurrency=concurrency,
            use_cache=False,
            progress=False,
            preflight=False,
            fast_path=fast_path,
        )
        cpu, started = time.thread_time(), time.perf_counter()
        await run(config, options, stream=open(os.devnull, "w"))  # noqa: SIM115 - closed at exit
        wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
        calls = 2 * rounds + 1
        records = read_jsonl(options.out_dir / "results.jsonl")
        bad = [r["item_id"] for r in records if r.get("error") or r.get("llm_calls") != calls]
        if len(records) != debates or bad or server.count != debates * calls:
            raise SystemExit(f"framework check failed: {len(records)} records, bad {bad[:3]}, {server.count} requests")
    return wall, cpu


def raw_payloads(data_dir: Path, debates: int, rounds: int) -> list[list[list[dict[str, str]]]]:
    """Per debate, the message lists of its sequential calls, as the framework sends them: each agent keeps
    its own history (Scorer: P, S, feedback, S, ...; Critic: review, C, review, ...)."""
    config = make_config("http://unused/v1", rounds)
    tasks = build_tasks(config, select_items(load_items("summeval", data_dir), limit=debates))
    scorer_system = {"role": "system", "content": get_persona("scorer", "scorer").text}
    critic_system = {"role": "system", "content": get_persona("devils-advocate", "critic").text}
    score = {"role": "assistant", "content": DEFAULT_REPLIES["scorer"]}
    critique = {"role": "assistant", "content": DEFAULT_REPLIES["critic"]}
    feedback = {"role": "user", "content": TO_SCORER.format(feedback=DEFAULT_REPLIES["critic"])}
    payloads = []
    for task in tasks:
        review = {"role": "user", "content": TO_CRITIC.format(task=task.prompt, answer=DEFAULT_REPLIES["scorer"])}
        scorer = [scorer_system, {"role": "user", "content": task.prompt}]
        critic = [critic_system]
        calls = [list(scorer)]
        for _ in range(rounds):
            critic.append(review)
            calls.append(list(critic))
            critic.append(critique)
            scorer += [score, feedback]
            calls.append(list(scorer))
        payloads.append(calls)
    return payloads


async def measure_raw(
    latency_s: float, payloads: list[list[list[dict[str, str]]]], concurrency: int
) -> tuple[float, float]:
    """Wall time and event-loop CPU time of the same sequential calls through ``openai.AsyncOpenAI``."""
    with ServerProcess(latency_s) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="not-needed", max_retries=0)
        limit = asyncio.Semaphore(concurrency)
        sampling = make_config(server.base_url, 1).models.for_role("scorer").sampling.create_args()

        async def debate(calls: list[list[dict[str, str]]]) -> None:
            async with limit:
                for messages in calls:
                    await client.chat.completions.create(model="scripted", messages=messages, **sampling)  # type: ignore[arg-type]

        cpu, started = time.thread_time(), time.perf_counter()
        await asyncio.gather(*(debate(calls) for calls in payloads))
        wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
        await client.close()
        expected = sum(len(calls) for calls in payloads)
        if server.count != expected:
            raise SystemExit(f"raw check failed: {server.count} requests, expected {expected}")
    return wall, cpu


def load_line(before: tuple[float, float, float], note: str) -> str:
    """The machine's load before and after the run, and what else ran (``--note``)."""
    after = os.getloadavg()
    text = f"- Load average (1/5/15 min): {' / '.join(f'{x:.2f}' for x in before)} before, "
    text += f"{' / '.join(f'{x:.2f}' for x in after)} after."
    return text + (f" Also running: {note}" if note else "")


def versions() -> str:
    """Versions of the packages that matter here."""
    names = ("pyautogen", "autogen-agentchat", "autogen-ext", "openai")
    return ", ".join(f"{name} {metadata.version(name)}" for name in names)


def report(args: argparse.Namespace, command: str, rows: Sequence[Row], calls: int, extra: dict[str, list[str]]) -> str:
    """The Markdown report (``extra``: load lines, batch lines, profile lines)."""
    lines = [
        "# Throughput benchmark",
        "",
        "Generated by `scripts/bench_throughput.py`; rerun the command instead of editing.",
        "",
        "```",
        command,
        "```",
        "",
        f"- Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
        f"- Machine: {platform.platform()}, {os.cpu_count()} CPUs; Python {platform.python_version()}; {versions()}",
        *extra.get("load", []),
        f"- {args.debates} debates (SummEval coherence, protocol `debate`, n = {args.rounds}: {calls} sequential calls "
        f"each) against `ScriptedOpenAIServer` on 127.0.0.1, in a process of its own (as a real endpoint "
        f"would be), answering after {args.latency_ms} ms. Default: "
        "`debate_eval.tasks.engine.runner.run` with the response cache, preflight and progress bar off, public APIs "
        "only; fast path: the same with `fast_path=True` (`--fast-path`). Raw: the same "
        "calls with the same message lists (each agent's growing history) through `openai.AsyncOpenAI` and an "
        "`asyncio.Semaphore`. Default, fast path and raw alternate within each repeat, so all see the same load.",
        f"- Ideal = debates x calls x latency / min(concurrency, debates). Medians of {args.repeats} repeats, "
        f"after one unmeasured run of each side ({WARM_UP_DEBATES} debates: imports, first-use caches, the "
        "dataset's first read). CPU: the event-loop thread's CPU time per model call (less sensitive to other "
        "processes than wall time).",
        "",
        "| concurrency | ideal s | default s | fast-path s | raw s | default / raw | default / ideal "
        "| default CPU ms/call | fast-path CPU ms/call | raw CPU ms/call | CPU default / raw | CPU fast-path / raw |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    per_call = 1000 / (args.debates * calls)
    for row in rows:
        fw, raw = row.median("framework"), row.median("raw")
        fw_cpu, raw_cpu = per_call * row.median("loop_cpu"), per_call * row.median("raw_cpu")
        fast = f"{row.median('fast'):.2f}" if row.fast else "-"
        fast_cpu = per_call * row.median("fast_cpu") if row.fast_cpu else None
        lines.append(
            f"| {row.concurrency} | {row.ideal_s:.2f} | {fw:.2f} | {fast} | {raw:.2f} | {fw / raw:.3f} | "
            f"{row.ideal_s / fw:.3f} | {fw_cpu:.2f} | {f'{fast_cpu:.2f}' if fast_cpu else '-'} | {raw_cpu:.2f} | "
            f"{fw_cpu / raw_cpu:.3f} | {f'{fast_cpu / raw_cpu:.3f}' if fast_cpu else '-'} |"
        )
    lines += ["", "CPU ms per call of every repeat (in the order run; the table gives their medians):", ""]
    for row in rows:
        kinds = [("default", row.loop_cpu), ("fast path", row.fast_cpu), ("raw", row.raw_cpu)]
        listed = "; ".join(f"{name} {', '.join(f'{per_call * c:.2f}' for c in cpus)}" for name, cpus in kinds if cpus)
        lines.append(f"- concurrency {row.concurrency}: {listed}")
    lines += ["", "## Targets", ""]
    for row in rows:
        cpu = row.median("loop_cpu") / row.median("raw_cpu")
        verdict = "PASS" if cpu <= TARGET_CPU else "FAIL"
        lines.append(
            f"- {verdict}: default path's CPU per call <= {TARGET_CPU}x the raw client's at concurrency "
            f"{row.concurrency}: {cpu:.3f}x"
        )
    for row in rows:
        ratio = row.median("framework") / row.median("raw")
        if row.concurrency >= HIGH:
            verdict = "PASS" if ratio <= TARGET_RAW_HIGH else "FAIL"
            lines.append(
                f"- {verdict}: <= {TARGET_RAW_HIGH}x the raw client at concurrency {row.concurrency}: {ratio:.3f}x"
            )
        elif row.concurrency == 1:
            verdict = "PASS" if ratio <= TARGET_RAW else "FAIL"
            lines.append(f"- {verdict}: <= {TARGET_RAW}x the raw client at concurrency 1: {ratio:.3f}x")
    top = rows[-1]
    ideal = top.ideal_s / top.median("framework")
    lines.append(
        f"- {'PASS' if ideal >= TARGET_IDEAL else 'FAIL'}: >= {TARGET_IDEAL} of ideal at concurrency "
        f"{top.concurrency}: {ideal:.3f} (raw client: {top.ideal_s / top.median('raw'):.3f}; below 1 when one "
        "event loop's CPU, not the endpoint, bounds the run)."
    )
    lines += extra.get("cuts", []) + extra.get("batch", [])
    if extra.get("profile"):
        lines += ["", "## Profile of the framework at the highest concurrency", "", *extra["profile"]]
    return "\n".join(lines) + "\n"


CUTS = [
    "",
    "## The default path and `--fast-path`",
    "",
    "The default path uses public APIs only (no private internals of AutoGen, the openai SDK or httpx are "
    "patched; tests/agents/models/test_no_private_patches.py; the one private import left, of "
    "autogen_agentchat's group-chat manager classes, is explained in debates/group_chat.py). Per model call "
    "it avoids:",
    "",
    "- the OpenAI SDK's `async_maybe_transform` walk of every request body against its TypedDicts: "
    "`PlainBodyClient`, whose `chat.completions.create` posts the body with the SDK's documented `post` "
    "(`agents/models/sdk_body_passthrough.py`; the same JSON: tests/agents/models/test_sdk_body_passthrough.py). "
    "The raw baseline keeps the SDK's walk;",
    "- AutoGen's OpenAI client's per-call work: `OpenAIChatClient` (`agents/models/chat_client.py`, autogen_core's "
    "public `ChatCompletionClient` interface) writes the body AutoGen's client writes for a text chat, byte for "
    "byte (tests/agents/models/test_chat_client.py), without its create-argument processing, its message "
    "conversion through the transformer registry, and `LLMCallEvent`'s `model_dump` of every response while "
    "AutoGen's event log is off; any other call goes to AutoGen's client;",
    "- AutoGen's runtime telemetry that nothing reads: every team runs on a `TeamRuntime` of its own "
    "(`debates/group_chat.py`), AutoGen's `SingleThreadedAgentRuntime` given through the team's public "
    "`runtime=` argument. While no OpenTelemetry tracer provider is set, its provider makes no spans at all "
    "(`agents/telemetry.py`, OpenTelemetry's public `Tracer` interface; about 45 spans per model call were "
    "made current and undone), and while AutoGen's event log is also off, its public `add_message_serializer` "
    "registers nothing, so routed messages are no longer serialised to JSON to be thrown away. With a "
    "provider set or that log on, AutoGen's runtime is used as it is. `--fast-path` (private patches, "
    "`agents/models/fast_path.py`, opt-in, refused with another autogen-core than 0.7.5) also skips the span "
    "context managers themselves and the span attributes;",
    "- Python's cyclic garbage collector walking the objects that existed before the run (modules, the "
    "dataset, the prompts) every few hundred allocations: during a run's debates they are frozen and the "
    "youngest generation is collected every 20,000 allocations (`tasks/engine/heap.py`, the standard "
    "library's `gc.freeze`/`gc.set_threshold`, undone after the run);",
    "- reading every environment variable twice per call for secrets to redact (read once per run: "
    "`agents/redaction.py`), JSON-parsing every request body again in the chat completion check "
    "(`agents/models/responses.py`), the run's config hash once per item, folding and indexing the judged "
    "document once per item (`debates/scoring/untrusted.py`);",
    "- once per run rather than per call, but inside these figures: the package metadata lookups of "
    "config.json (once per process now), and reading SummEval's 5 MB file (about 50 ms; its checked items are "
    "kept for the process's next runs while the file is unchanged, as this benchmark's repeats and an audit's "
    "sub-runs reuse them; a single `debate-eval run` reads it once);",
    "- httpcore's idle-connection check (a `getpeername` per pooled connection per request) is not cut; the "
    "raw client pays the same.",
    "",
    "What is left of the gap to the raw client is AutoGen's own work per model call, which its public API "
    "does not reach: about seven runtime deliveries per call in the debate team (each a task, a uuid, the "
    "span context manager and its attribute dicts, log f-strings formatting the message whether or not the "
    "log is on; the group-chat manager writes the Commander's relays itself, so a relay is one delivery to "
    "its addressee, not a turn: `scripts/bench_team_traffic.py` counts them), the agents' and the manager's "
    "message handling, and the response parsing into pydantic models.",
]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=int, default=200)
    parser.add_argument("--debates", type=int, default=64)
    parser.add_argument("--concurrency", default="1,8,32,128", help="comma-separated levels (default 1,8,32,128)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--data-dir", help="folder with summeval/ (default: $DEBATE_EVAL_DATA_DIR)")
    parser.add_argument("--out", default="benchmarks/throughput.md")
    parser.add_argument("--profile", choices=("auto", "always", "never"), default="auto")
    parser.add_argument("--batch-debates", type=int, default=64, help="debates of the --batch row (0: no row)")
    parser.add_argument("--batch-delay-ms", type=float, default=200.0, help="the scripted batch completion delay")
    parser.add_argument("--note", default="", help="what else ran on the machine (written into the report)")
    parser.add_argument(
        "--no-fast-path", dest="fast_path", action="store_false", help="do not measure the --fast-path column"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and write the report."""
    args = parse_args(argv)
    data_dir = resolve_data_dir(args.data_dir)
    load_before = os.getloadavg()
    latency, calls = args.latency_ms / 1000, 2 * args.rounds + 1
    payloads = raw_payloads(data_dir, args.debates, args.rounds)
    warm = min(WARM_UP_DEBATES, args.debates)  # one unmeasured run of each side: imports, first-use caches
    asyncio.run(measure_framework(latency, warm, warm, args.rounds, data_dir))
    asyncio.run(measure_raw(latency, payloads[:warm], warm))
    rows = []
    for concurrency in (int(c) for c in args.concurrency.split(",")):
        row = Row(concurrency, args.debates * calls * latency / min(concurrency, args.debates))
        for _ in range(args.repeats):
            wall, cpu = asyncio.run(measure_framework(latency, args.debates, concurrency, args.rounds, data_dir))
            row.framework.append(wall)
            row.loop_cpu.append(cpu)
            if args.fast_path:
                wall, cpu = asyncio.run(
                    measure_framework(latency, args.debates, concurrency, args.rounds, data_dir, fast_path=True)
                )
                row.fast.append(wall)
                row.fast_cpu.append(cpu)
            wall, cpu = asyncio.run(measure_raw(latency, payloads, concurrency))
            row.raw.append(wall)
            row.raw_cpu.append(cpu)
        per_call = 1000 / (args.debates * calls)
        fast = f", fast path {per_call * row.median('fast_cpu'):.2f}" if row.fast_cpu else ""
        print(
            f"concurrency {concurrency}: default {row.median('framework'):.2f} s, raw {row.median('raw'):.2f} s; "
            f"CPU ms/call: default {per_call * row.median('loop_cpu'):.2f}{fast}, "
            f"raw {per_call * row.median('raw_cpu'):.2f}",
            flush=True,
        )
        rows.append(row)
    extra: dict[str, list[str]] = {"load": [load_line(load_before, args.note)], "cuts": CUTS}
    if args.batch_debates:
        batch = asyncio.run(measure_batch(make_config, args.batch_debates, args.rounds, data_dir, args.batch_delay_ms))
        print(f"--batch: {batch.debates} debates in {batch.wall_s:.2f} s, {batch.batches} batches")
        extra["batch"] = batch_lines(batch, args.rounds)
    top = rows[-1]
    failed = any(
        r.median("framework") / r.median("raw") > (TARGET_RAW_HIGH if r.concurrency >= HIGH else TARGET_RAW)
        for r in rows
        if r.concurrency >= HIGH or r.concurrency == 1
    )
    if args.profile == "always" or (args.profile == "auto" and failed):
        extra["profile"] = profile(
            lambda: measure_framework(latency, args.debates, top.concurrency, args.rounds, data_dir)
        )
    given = list(argv) if argv is not None else sys.argv[1:]
    command = " ".join(["python scripts/bench_throughput.py", *(shlex.quote(a) for a in given)])
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report(args, command, rows, calls, extra), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
