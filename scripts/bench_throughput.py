"""Throughput benchmark: DEBATE debates/s against a scripted OpenAI-compatible server with a fixed latency.

It starts ``ScriptedOpenAIServer`` (``debate_eval.agents.scripted_server``) on 127.0.0.1, which answers
every chat completion after ``--latency-ms`` with a scripted Scorer or Critic reply (the Critic never says
NO ISSUE, so a debate with ``--rounds n`` makes exactly ``2n + 1`` calls). For each concurrency level it:

1. runs the real framework path, ``debate_eval.tasks.runner.run``, on the first ``--debates`` SummEval items
   (aspect coherence, protocol ``debate``; response cache, preflight and progress bar off; a fresh
   temporary run directory), and checks the server's request count and every record;
2. runs a raw baseline that makes the same number of sequential calls per debate, with similar payloads
   (the item's rendered prompt, the personas and the Commander's relay texts), through
   ``openai.AsyncOpenAI`` directly, with an ``asyncio.Semaphore`` for the same concurrency.

The ideal wall time is ``debates x calls_per_debate x latency / concurrency`` (perfect pipelining, each
debate sequential). Before measuring, it probes the scripted server itself (cost per request at zero
latency; bursts of new connections), as shipped and as used here. It writes a markdown report (``--out``)
with the command, the machine, the table and PASS/FAIL for the targets (>= 0.8 of ideal at the highest
concurrency; <= 1.05x the raw baseline at concurrency 1), and, when a target fails (or with
``--profile always``), a profile of the framework at the highest concurrency.

Usage (from the repository root)::

    DEBATE_EVAL_DATA_DIR=/work/shared/data python scripts/bench_throughput.py
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import datetime as dt
import json
import os
import platform
import pstats
import re
import shlex
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import openai

from debate_eval.agents.commander import TO_CRITIC, TO_SCORER
from debate_eval.agents.scripted_server import ScriptedOpenAIServer, default_reply
from debate_eval.agents.settings import ModelOverrides, resolve_model_config
from debate_eval.tasks.datasets import load_items, resolve_data_dir, select_items
from debate_eval.tasks.results import RESULTS_FILE, read_jsonl
from debate_eval.tasks.run_config import RunConfig, RunOptions, build_debate_config
from debate_eval.tasks.runner import build_tasks, run
from debate_eval.tasks.templates import resolve_template

DATASET = "summeval"
ASPECT = "coherence"
PROTOCOL = "debate"
MODEL = "scripted"
TARGET_IDEAL_RATIO = 0.8  # framework wall vs ideal at the highest concurrency
TARGET_RAW_RATIO = 1.05  # framework wall vs raw baseline at concurrency 1
LISTEN_BACKLOG = 128
PROFILE_TOP = 15
PACKAGES = ("debate-eval", "pyautogen", "autogen-agentchat", "autogen-core", "autogen-ext", "openai", "httpx", "httpx2")

Messages = list[dict[str, str]]
Call = Callable[[Messages], Awaitable[str]]


class BenchmarkError(RuntimeError):
    """A measurement did not do what it must (wrong request count, failed records)."""


@dataclass
class Measurement:
    """One timed run of ``debates`` debates at one concurrency."""

    kind: str  # "framework" or "raw"
    concurrency: int
    wall_s: float
    requests: int
    first_request_s: float  # from the start of the timed section to the first request reaching the server
    debate_s: float  # mean time of one debate (framework: the record's elapsed_s; raw: inside the semaphore)
    loop_cpu_s: float  # CPU time of the event loop's thread in the timed section (the server's threads excluded)
    retries: int = 0  # transport retries (framework only; the raw client has none)


@dataclass
class Row:
    """All measurements of one concurrency level, with the ideal."""

    concurrency: int
    ideal_s: float
    framework: list[Measurement] = field(default_factory=list)
    raw: list[Measurement] = field(default_factory=list)

    def wall(self, kind: str) -> float:
        """Median wall time of ``kind``."""
        return statistics.median(m.wall_s for m in getattr(self, kind))


@dataclass
class ServerProbe:
    """What the scripted server costs by itself, as shipped or tuned (see ``StampedServer``)."""

    tuned: bool
    per_call_s: float  # mean time of one sequential request at zero scripted latency
    burst_size: int
    bursts: int
    burst_failures: int  # requests of the bursts that failed (connection reset)


@dataclass
class Profile:
    """Where the event loop's time went in one profiled framework measurement."""

    tool: str
    concurrency: int
    wall_s: float
    total_s: float  # profiled time (own times summed)
    groups: list[tuple[str, float]]  # (package or module group, own seconds), largest first
    functions: list[tuple[str, str, float]]  # (function, group, own seconds), largest first


# ---------------------------------------------------------------------------------------------- server


class StampedServer:
    """A ``ScriptedOpenAIServer`` that also records when each request arrived (monotonic clock).

    With ``tuned`` (the default) two transport settings of the shipped server are changed on this instance
    only, so that the server adds as little as it can to the scripted latency (both measured by
    ``probe_server``):

    - TCP_NODELAY: the shipped handler writes the headers and the body with two ``send()`` calls; with
      Nagle's algorithm on, the body waits for the client's delayed ACK (~40 ms per response on Linux).
    - listen backlog 128 instead of ``socketserver``'s 5: a burst of 32 new connections (the first wave at
      concurrency 32) overflows a backlog of 5 and some connections are reset.
    """

    def __init__(self, latency_s: float, *, tuned: bool = True) -> None:
        self.latency_s = latency_s
        self.tuned = tuned
        self.arrivals: list[float] = []
        self._lock = threading.Lock()
        self.server = ScriptedOpenAIServer(latency_s=latency_s, reply=self._reply)

    def _reply(self, request: dict[str, Any]) -> str:
        arrived = time.perf_counter() - self.latency_s  # the reply is built right after the scripted latency
        with self._lock:
            self.arrivals.append(arrived)
        return default_reply(request)

    def __enter__(self) -> StampedServer:
        self.server.start()
        if self.tuned:
            http_server = self.server._server
            assert http_server is not None
            # StreamRequestHandler.setup() sets TCP_NODELAY on each new connection when this is true; the
            # handler class is made per server, so only this server changes.
            http_server.RequestHandlerClass.disable_nagle_algorithm = True  # type: ignore[attr-defined]
            http_server.socket.listen(LISTEN_BACKLOG)  # Linux: listen() again updates the backlog
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        return self.server.base_url

    @property
    def count(self) -> int:
        """Requests received."""
        return self.server.count

    def first_arrival(self, started: float) -> float:
        """When the first request arrived, relative to ``started``."""
        with self._lock:
            return min(self.arrivals) - started if self.arrivals else float("nan")


# ------------------------------------------------------------------------------------------- framework


def make_config(base_url: str, rounds: int) -> RunConfig:
    """The RunConfig of the benchmark: SummEval coherence, DEBATE, every role on the scripted server."""
    models = resolve_model_config(ModelOverrides(), environ={"OPENAI_BASE_URL": base_url, "DEBATE_EVAL_MODEL": MODEL})
    return RunConfig(
        dataset=DATASET,
        aspect=ASPECT,
        protocol=PROTOCOL,
        template=resolve_template(DATASET, ASPECT),
        models=models,
        debate=build_debate_config(PROTOCOL, DATASET, max_rounds=rounds),
    )


def check_records(records: Sequence[dict[str, Any]], debates: int, calls_per_debate: int) -> None:
    """Every item has one record, with no error and the expected number of model calls."""
    if len(records) != debates:
        raise BenchmarkError(f"expected {debates} records, found {len(records)}")
    failed = [r for r in records if r.get("error")]
    if failed:
        raise BenchmarkError(f"{len(failed)} debates failed; first error: {failed[0]['error']}")
    wrong = [r for r in records if r.get("llm_calls") != calls_per_debate]
    if wrong:
        raise BenchmarkError(
            f"{len(wrong)} debates made a number of calls other than {calls_per_debate} "
            f"(first: {wrong[0]['item_id']} made {wrong[0].get('llm_calls')})"
        )


async def measure_framework(
    latency_s: float,
    debates: int,
    concurrency: int,
    rounds: int,
    data_dir: Path,
    *,
    tuned: bool = True,
    around: Callable[[], contextlib.AbstractContextManager[Any]] = contextlib.nullcontext,
) -> Measurement:
    """Time ``runner.run`` over the first ``debates`` items at ``concurrency``, then check what it did.

    ``around`` wraps exactly the timed section (a profiler, for instance).
    """
    calls_per_debate = 2 * rounds + 1
    with (
        StampedServer(latency_s, tuned=tuned) as server,
        tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp,
    ):
        config = make_config(server.base_url, rounds)
        options = RunOptions(
            out_dir=Path(tmp) / "run",
            data_dir=data_dir,
            limit=debates,
            concurrency=concurrency,
            use_cache=False,
            progress=False,
            preflight=False,
        )
        with around():
            started, cpu = time.perf_counter(), time.thread_time()
            summary = await run(config, options)
            wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
        expected = debates * calls_per_debate
        if server.count != expected:
            raise BenchmarkError(
                f"framework at concurrency {concurrency}: {server.count} requests, expected {expected}"
            )
        if summary.failed or summary.finished != debates:
            raise BenchmarkError(
                f"framework at concurrency {concurrency}: {summary.finished} finished, {summary.failed} failed "
                f"({summary.errors})"
            )
        records = read_jsonl(options.out_dir / RESULTS_FILE)
        check_records(records, debates, calls_per_debate)
        return Measurement(
            kind="framework",
            concurrency=concurrency,
            wall_s=wall,
            requests=server.count,
            first_request_s=server.first_arrival(started),
            debate_s=statistics.fmean(float(r["elapsed_s"]) for r in records),
            loop_cpu_s=cpu,
            retries=int(summary.transport.to_dict()["retries"]),
        )


# ------------------------------------------------------------------------------------------ raw baseline


def load_prompts(data_dir: Path, debates: int) -> list[str]:
    """The rendered prompts of the first ``debates`` items (as the runner renders them)."""
    config = make_config("http://127.0.0.1:1/v1", 0)
    items = select_items(load_items(DATASET, data_dir), limit=debates)
    if len(items) != debates:
        raise BenchmarkError(f"{DATASET} has only {len(items)} items, {debates} requested")
    return [task.prompt for task in build_tasks(config, items)]


async def raw_debate(call: Call, prompt: str, rounds: int, scorer_system: str, critic_system: str) -> None:
    """One debate's calls, in sequence, with the framework's message shapes (fixed Commander relays).

    Scorer: [system, P, S1, feedback1, S2, ...]; Critic: [system, review(P, S1), C1, review(P, S2), ...].
    """
    scorer = [{"role": "system", "content": scorer_system}, {"role": "user", "content": prompt}]
    critic = [{"role": "system", "content": critic_system}]
    answer = await call(scorer)
    scorer.append({"role": "assistant", "content": answer})
    for _ in range(rounds):
        critic.append({"role": "user", "content": TO_CRITIC.format(task=prompt, answer=answer)})
        feedback = await call(critic)
        critic.append({"role": "assistant", "content": feedback})
        scorer.append({"role": "user", "content": TO_SCORER.format(feedback=feedback)})
        answer = await call(scorer)
        scorer.append({"role": "assistant", "content": answer})


def raw_caller(client: openai.AsyncOpenAI, sampling: dict[str, Any]) -> Call:
    """A function sending one chat completion with ``client`` and returning the reply's text."""

    async def call(messages: Messages) -> str:
        response = await client.chat.completions.create(model=MODEL, messages=messages, **sampling)  # type: ignore[arg-type]
        return response.choices[0].message.content or ""

    return call


async def measure_raw(
    latency_s: float, prompts: Sequence[str], concurrency: int, rounds: int, *, tuned: bool = True
) -> Measurement:
    """Time the same call sequence per debate with ``openai.AsyncOpenAI`` and a semaphore."""
    calls_per_debate = 2 * rounds + 1
    with StampedServer(latency_s, tuned=tuned) as server:
        config = make_config(server.base_url, rounds)
        assert config.debate is not None
        personas = (config.debate.scorer.text, config.debate.critic.text)
        sampling = config.models.for_role("scorer").sampling.create_args()
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=120.0)
        call = raw_caller(client, sampling)
        limit = asyncio.Semaphore(concurrency)
        errors: list[BaseException] = []
        durations: list[float] = []

        async def one(prompt: str) -> None:
            async with limit:
                began = time.perf_counter()
                try:
                    await raw_debate(call, prompt, rounds, *personas)
                except Exception as error:
                    errors.append(error)
                durations.append(time.perf_counter() - began)

        try:
            started, cpu = time.perf_counter(), time.thread_time()
            await asyncio.gather(*(one(p) for p in prompts))
            wall, cpu = time.perf_counter() - started, time.thread_time() - cpu
        finally:
            await client.close()
        expected = len(prompts) * calls_per_debate
        if errors:
            raise BenchmarkError(
                f"raw baseline at concurrency {concurrency}: {len(errors)} debates failed: {errors[0]!r}"
            )
        if server.count != expected:
            raise BenchmarkError(
                f"raw baseline at concurrency {concurrency}: {server.count} requests, expected {expected}"
            )
        return Measurement(
            kind="raw",
            concurrency=concurrency,
            wall_s=wall,
            requests=server.count,
            first_request_s=server.first_arrival(started),
            debate_s=statistics.fmean(durations),
            loop_cpu_s=cpu,
        )


async def probe_server(prompt: str, latency_s: float, burst_size: int, *, tuned: bool) -> ServerProbe:
    """Time 30 sequential requests at zero latency; then open ``burst_size`` new connections at once, 5 times."""
    messages = [{"role": "system", "content": "Logically think to score."}, {"role": "user", "content": prompt}]
    calls, bursts = 30, 5
    with StampedServer(0.0, tuned=tuned) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=30.0)
        call = raw_caller(client, {})
        try:
            await call(messages)  # connect and warm up
            started = time.perf_counter()
            for _ in range(calls):
                await call(messages)
            per_call = (time.perf_counter() - started) / calls
        finally:
            await client.close()
    failures = 0
    with StampedServer(latency_s, tuned=tuned) as server:
        for _ in range(bursts):
            client = openai.AsyncOpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=30.0)
            call = raw_caller(client, {})
            try:
                results = await asyncio.gather(*(call(messages) for _ in range(burst_size)), return_exceptions=True)
            finally:
                await client.close()
            failures += sum(isinstance(r, BaseException) for r in results)
    return ServerProbe(tuned, per_call, burst_size, bursts, failures)


# ------------------------------------------------------------------------------------------- profiling


IDLE = re.compile(r"epoll\.poll|select\.|lock\.acquire|^poll$|^select$")


def frame_group(path: str, function: str) -> str | None:
    """A readable group for a profiled function: its package, project folder or stdlib module.

    None for a builtin (C) function: its time belongs to the Python code that called it.
    """
    found = re.search(r"site-packages/([^/]+)", path)
    if found:
        return found.group(1).removesuffix(".py")
    root = str(Path(__file__).resolve().parent.parent)
    if path.startswith(root):
        return "debate_eval." + Path(path).relative_to(root).parts[0]
    if path in ("~", "") or path.startswith("<"):  # C builtins, code made by exec (dataclass __init__)
        return None
    found = re.search(r"python3\.\d+/([^/]+)", path)
    return "stdlib " + (found.group(1).removesuffix(".py") if found else Path(path).name)


def summarize(own: dict[tuple[str, str], float], tool: str, concurrency: int, wall: float) -> Profile:
    """A ``Profile`` from own times keyed by (function label, group)."""
    groups: Counter[str] = Counter()
    for (_, group), seconds in own.items():
        groups[group] += seconds
    functions = sorted(((label, group, s) for (label, group), s in own.items()), key=lambda f: -f[2])
    return Profile(
        tool=tool,
        concurrency=concurrency,
        wall_s=wall,
        total_s=sum(own.values()),
        groups=groups.most_common(PROFILE_TOP),
        functions=functions[:PROFILE_TOP],
    )


async def profile_framework(
    latency_s: float, debates: int, concurrency: int, rounds: int, data_dir: Path, *, tuned: bool
) -> Profile:
    """One more framework measurement, its timed section under pyinstrument if installed, else cProfile.

    Own time per function; a builtin's time is given to the group of the Python code that called it
    (pyinstrument) or to ``builtins`` (cProfile); time blocked in epoll/select/locks is ``idle``.
    """
    own: Counter[tuple[str, str]] = Counter()
    try:
        from pyinstrument import Profiler
    except ImportError:
        profiler = cProfile.Profile()

        @contextlib.contextmanager
        def deterministic() -> Iterator[None]:
            profiler.enable()
            try:
                yield
            finally:
                profiler.disable()

        measured = await measure_framework(
            latency_s, debates, concurrency, rounds, data_dir, tuned=tuned, around=deterministic
        )
        stats: dict[Any, Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
        for (path, line, function), (_, _, tottime, _, _) in stats.items():
            group = frame_group(path, function)
            label = function if group is None else f"{function} ({Path(path).name}:{line})"
            own[(label, "idle" if IDLE.search(function) else group or "builtins")] += tottime
        return summarize(own, "cProfile (deterministic; inflates call-heavy code)", concurrency, measured.wall_s)

    sampler = Profiler(interval=0.001, async_mode="disabled")

    @contextlib.contextmanager
    def sampling() -> Iterator[None]:
        sampler.start()
        try:
            yield
        finally:
            sampler.stop()

    measured = await measure_framework(latency_s, debates, concurrency, rounds, data_dir, tuned=tuned, around=sampling)
    session = sampler.last_session
    root = session.root_frame() if session is not None else None
    stack: list[tuple[Any, str]] = [(root, "other")] if root is not None else []
    while stack:
        frame, caller_group = stack.pop()
        path = frame.file_path or "<built-in>"
        group = frame_group(path, frame.function) or caller_group
        stack.extend((child, group) for child in frame.children)
        if frame.total_self_time <= 0 or frame.identifier.startswith("["):
            continue
        if frame_group(path, frame.function) is not None:
            label = f"{frame.function} ({Path(path).name}:{frame.line_no})"
        else:
            label = frame.function
        own[(label, "idle" if IDLE.search(frame.function) else group)] += frame.total_self_time
    return summarize(own, "pyinstrument (sampling every 1 ms)", concurrency, measured.wall_s)


# ---------------------------------------------------------------------------------------------- report


def package_versions() -> dict[str, str]:
    """Installed versions of the packages on the measured path."""
    found = {}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return found


def fmt_runs(values: Sequence[float], digits: int = 2, *, higher_is_better: bool = False) -> str:
    """Median, with the best in brackets when there are several runs."""
    text = f"{statistics.median(values):.{digits}f}"
    if len(values) > 1:
        best = max(values) if higher_is_better else min(values)
        text += f" (best {best:.{digits}f})"
    return text


def table(rows: Sequence[Row], debates: int) -> str:
    """The main results table (medians; best of the repeats in brackets)."""
    lines = [
        "| concurrency | ideal s | ideal debates/s | framework wall s | framework debates/s | framework / ideal "
        "| raw wall s | raw debates/s | raw / ideal | framework / raw |",
        "|" + "---:|" * 10,
    ]
    for row in rows:
        fw = [m.wall_s for m in row.framework]
        raw = [m.wall_s for m in row.raw]
        cells = [
            str(row.concurrency),
            f"{row.ideal_s:.2f}",
            f"{debates / row.ideal_s:.2f}",
            fmt_runs(fw),
            fmt_runs([debates / w for w in fw], higher_is_better=True),
            fmt_runs([row.ideal_s / w for w in fw], 3, higher_is_better=True),
            fmt_runs(raw),
            fmt_runs([debates / w for w in raw], higher_is_better=True),
            fmt_runs([row.ideal_s / w for w in raw], 3, higher_is_better=True),
            f"{row.wall('framework') / row.wall('raw'):.3f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def breakdown_table(rows: Sequence[Row], calls_per_debate: int, latency_s: float) -> str:
    """Where the wall time goes (medians): setup before the first request, per-debate time, loop CPU."""
    lines = [
        "| concurrency | kind | first request after s | mean debate s (ideal "
        f"{calls_per_debate * latency_s:.2f}) | loop CPU s | loop CPU ms / call | transport retries |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        for kind in ("framework", "raw"):
            runs: list[Measurement] = getattr(row, kind)
            cpu = statistics.median(m.loop_cpu_s for m in runs)
            cells = [
                str(row.concurrency),
                kind,
                f"{statistics.median(m.first_request_s for m in runs):.3f}",
                f"{statistics.median(m.debate_s for m in runs):.3f}",
                f"{cpu:.2f}",
                f"{1000 * cpu / runs[0].requests:.2f}",
                str(max(m.retries for m in runs)),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def probe_lines(probes: Sequence[ServerProbe], used_tuned: bool) -> list[str]:
    """The server check, as markdown bullets."""
    lines = []
    for probe in probes:
        name = "tuned (TCP_NODELAY, backlog 128)" if probe.tuned else "as shipped"
        used = " (used for the measurements below)" if probe.tuned == used_tuned else ""
        lines.append(
            f"- Server {name}{used}: {1000 * probe.per_call_s:.1f} ms per sequential request at zero latency; "
            f"{probe.burst_failures} of {probe.bursts} x {probe.burst_size} requests on new connections opened "
            "at once failed."
        )
    return lines


def verdicts(rows: Sequence[Row]) -> list[tuple[str, bool, str]]:
    """(target, passed, measured) for each target (medians over the repeats)."""
    out: list[tuple[str, bool, str]] = []
    top = max(rows, key=lambda r: r.concurrency)
    ratio = top.ideal_s / top.wall("framework")
    out.append(
        (
            f"framework >= {TARGET_IDEAL_RATIO} of ideal at concurrency {top.concurrency}",
            ratio >= TARGET_IDEAL_RATIO,
            f"{ratio:.3f} of ideal ({top.wall('framework'):.2f} s vs ideal {top.ideal_s:.2f} s; the raw baseline "
            f"reaches {top.ideal_s / top.wall('raw'):.3f})",
        )
    )
    one = next((r for r in rows if r.concurrency == 1), None)
    target = f"framework <= {TARGET_RAW_RATIO}x the raw baseline at concurrency 1"
    if one is None:
        out.append((target, False, "not measured (add 1 to --concurrency)"))
    else:
        over = one.wall("framework") / one.wall("raw")
        measured = f"{over:.3f}x ({one.wall('framework'):.2f} s vs {one.wall('raw'):.2f} s)"
        out.append((target, over <= TARGET_RAW_RATIO, measured))
    return out


def profile_lines(profile: Profile) -> list[str]:
    """The profile, as markdown tables."""
    lines = [
        f"Profiled with {profile.tool}: one more framework measurement at concurrency {profile.concurrency} "
        f"({profile.wall_s:.2f} s under the profiler; {profile.total_s:.2f} s of samples on the event loop's "
        "thread). Own time, largest first; `idle (...)` is the loop waiting for I/O or a lock.",
        "",
        "| group | own s | share |",
        "|---|---:|---:|",
    ]
    lines += [f"| {group} | {s:.3f} | {100 * s / profile.total_s:.1f}% |" for group, s in profile.groups]
    lines += ["", "| function | group | own s |", "|---|---|---:|"]
    lines += [f"| `{label}` | {group} | {s:.3f} |" for label, group, s in profile.functions]
    return lines


@dataclass
class Report:
    """Everything the markdown report shows."""

    command: list[str]
    args: argparse.Namespace
    rows: list[Row]
    probes: list[ServerProbe]
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    profile: Profile | None = None

    def render(self) -> str:
        """The markdown report."""
        args = self.args
        calls = 2 * args.rounds + 1
        latency_s = args.latency_ms / 1000
        versions = package_versions()
        load = f"{self.load_before[0]:.2f} before, {self.load_after[0]:.2f} after (1-minute load average)"
        lines = [
            "# Throughput benchmark",
            "",
            "Generated by `scripts/bench_throughput.py`; do not edit by hand, rerun the command instead.",
            "",
            "```",
            shlex.join(self.command),
            "```",
            "",
            f"- Date: {dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
            f"- Machine: {platform.platform()}, {os.cpu_count()} CPUs ({platform.machine()}); load {load}",
            f"- Python {platform.python_version()}; " + ", ".join(f"{name} {v}" for name, v in versions.items()),
            "",
            "## Setup",
            "",
            f"- A `ScriptedOpenAIServer` (a `ThreadingHTTPServer` in this process, on 127.0.0.1) answers every "
            f"chat completion after {args.latency_ms:g} ms; its Critic never says NO ISSUE, so each debate makes "
            f"{calls} sequential calls (Scorer, then {args.rounds} x Critic + Scorer).",
            f"- Framework: `debate_eval.tasks.runner.run` on the first {args.debates} items of {DATASET}/{ASPECT}, "
            f"protocol `{PROTOCOL}`, max_rounds={args.rounds}, every role on the scripted server through "
            "`base_url` (AutoGen's `OpenAIChatCompletionClient` under the project's retry/observe wrappers); "
            "response cache, preflight and progress bar off; a fresh temporary run directory per measurement. "
            "The timed section is the whole `run()` call: loading the dataset, rendering prompts, building the "
            "clients, the debates, appending and fsyncing `results.jsonl`, writing `summary.json`.",
            f"- Raw baseline: one `openai.AsyncOpenAI(base_url=..., max_retries=0)` and an `asyncio.Semaphore`, "
            f"the same {calls} sequential calls per debate with the framework's message shapes (the item's "
            "rendered prompt, the personas, the Commander's relay texts, the same sampling arguments). Prompts "
            "are rendered and the client is built before the timer starts.",
            f"- Ideal = debates x calls per debate x latency / concurrency = {args.debates} x {calls} x "
            f"{latency_s:g} s / c. Ratio to ideal = ideal time / wall time (1.0 is perfect).",
            "- Checks (the run fails otherwise): for every measurement the server received exactly debates x calls "
            "per debate requests; every framework record has no error and exactly that many model calls.",
            f"- Repeats: {args.repeats} per cell"
            + (
                "." if args.repeats == 1 else "; cells show the median, with the best in brackets; targets use medians."
            ),
            "",
            "## Server check",
            "",
            *probe_lines(self.probes, not args.server_as_shipped),
            "",
            "## Results",
            "",
            table(self.rows, args.debates),
            "",
            "Where the time goes (medians; the loop's CPU excludes the server's threads, which share the GIL):",
            "",
            breakdown_table(self.rows, calls, latency_s),
            "",
            "## Targets",
            "",
        ]
        for target, passed, measured in verdicts(self.rows):
            lines.append(f"- **{'PASS' if passed else 'FAIL'}**: {target}: measured {measured}.")
        if self.profile is not None:
            lines += ["", "## Profile", "", *profile_lines(self.profile)]
        if args.note:
            lines += ["", "## Notes", ""]
            lines += [f"{note}\n" for note in args.note]
        return "\n".join(lines).rstrip() + "\n"


# ------------------------------------------------------------------------------------------------ main


def parse_concurrency(text: str) -> list[int]:
    """argparse type: comma-separated integers >= 1."""
    try:
        values = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected integers >= 1, got {text!r}")
    return values


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--latency-ms", type=float, default=200.0, help="scripted server latency (default 200)")
    parser.add_argument("--debates", type=int, default=64, help="debates per measurement (default 64)")
    parser.add_argument("--concurrency", type=parse_concurrency, default=[1, 8, 32], help="default 1,8,32")
    parser.add_argument("--rounds", type=int, default=2, help="max_rounds of each debate (default 2)")
    parser.add_argument("--repeats", type=int, default=1, help="measurements per cell (median and best if > 1)")
    parser.add_argument("--out", default="benchmarks/throughput.md", help="markdown report path")
    parser.add_argument("--data-dir", help="folder with summeval/ (default: $DEBATE_EVAL_DATA_DIR)")
    parser.add_argument("--json", help="also write every measurement to this JSON file")
    parser.add_argument(
        "--server-as-shipped",
        action="store_true",
        help="measure with the scripted server's own socket settings (Nagle on, backlog 5)",
    )
    parser.add_argument(
        "--profile",
        choices=("auto", "always", "never"),
        default="auto",
        help="profile the framework at the highest concurrency: auto = when a target fails (default)",
    )
    parser.add_argument("--note", action="append", default=[], help="a paragraph for the report's Notes; repeatable")
    return parser


async def bench(args: argparse.Namespace, data_dir: Path) -> tuple[list[Row], list[ServerProbe]]:
    """Probe the server, then run every measurement, printing each as it finishes."""
    latency_s = args.latency_ms / 1000
    calls = 2 * args.rounds + 1
    tuned = not args.server_as_shipped
    prompts = load_prompts(data_dir, args.debates)
    burst = max(args.concurrency)
    probes = [await probe_server(prompts[0], latency_s, burst, tuned=mode) for mode in (False, True)]
    for line in probe_lines(probes, tuned):
        print(line.removeprefix("- "), flush=True)
    rows = []
    for concurrency in args.concurrency:
        row = Row(concurrency, args.debates * calls * latency_s / concurrency)
        for repeat in range(args.repeats):
            framework = await measure_framework(
                latency_s, args.debates, concurrency, args.rounds, data_dir, tuned=tuned
            )
            raw = await measure_raw(latency_s, prompts, concurrency, args.rounds, tuned=tuned)
            row.framework.append(framework)
            row.raw.append(raw)
            for m in (framework, raw):
                print(
                    f"c={concurrency:<3} {repeat + 1}/{args.repeats} {m.kind:<9} {m.wall_s:7.2f} s (ideal "
                    f"{row.ideal_s:.2f} s, ratio {row.ideal_s / m.wall_s:.3f}); first request after "
                    f"{m.first_request_s:.3f} s, mean debate {m.debate_s:.3f} s, loop CPU {m.loop_cpu_s:.2f} s, "
                    f"{m.requests} requests, {m.retries} retries",
                    flush=True,
                )
        rows.append(row)
    return rows, probes


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table and write the report; exit status 1 when a target fails."""
    args = build_parser().parse_args(argv)
    if args.debates < 1 or args.rounds < 0 or args.repeats < 1 or args.latency_ms <= 0:
        raise SystemExit("--debates and --repeats must be >= 1, --rounds >= 0, --latency-ms > 0")
    data_dir = resolve_data_dir(args.data_dir)
    command = ["python", *(sys.argv if argv is None else ["scripts/bench_throughput.py", *argv])]
    load_before = os.getloadavg()
    rows, probes = asyncio.run(bench(args, data_dir))
    load_after = os.getloadavg()
    report = Report(command, args, rows, probes, load_before, load_after)
    results = verdicts(rows)
    failed = not all(passed for _, passed, _ in results)
    if args.profile == "always" or (args.profile == "auto" and failed):
        top = max(args.concurrency)
        report.profile = asyncio.run(
            profile_framework(
                args.latency_ms / 1000, args.debates, top, args.rounds, data_dir, tuned=not args.server_as_shipped
            )
        )
    print()
    print(table(rows, args.debates))
    for target, passed, measured in results:
        print(f"{'PASS' if passed else 'FAIL'}: {target}: {measured}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.render(), encoding="utf-8")
    print(f"wrote {out}")
    if args.json:
        data = {
            "probes": [asdict(p) for p in probes],
            "rows": [asdict(r) for r in rows],
            "profile": asdict(report.profile) if report.profile else None,
        }
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
