"""``run --ray [ADDRESS]`` / ``evaluate(..., ray=ADDRESS)``: the shards of a run as Ray tasks.

Each shard (``shards.py``) is one Ray task running the ordinary async runner into a temporary directory on its
node; the task streams its new result lines back to the driver (a Ray generator task) as they are written, and
the driver appends them to the run directory as ``--workers`` does (``workers.run_workers``: one lock, resume,
an item never twice). A task that is lost (its worker process or node dies) is submitted again with the keys
finished so far, so only its unfinished items run again. Needs the ``ray`` extra
(``pip install 'debate-eval[ray]'``).

``ADDRESS``: ``local`` starts a Ray instance on this machine for the run; ``auto`` or ``ray://HOST:10001`` joins
a running cluster (``ray.init(address=...)``). Every node needs debate-eval installed and the data readable
at the same path (``--dataset`` file, ``$DEBATE_EVAL_DATA_DIR``); each node has its own response cache.

A traced run (``agents/telemetry.py``) passes its W3C trace context to each task with its arguments, and the
driver's ``OTEL_*`` variables (but those of headers, which may hold credentials) in the task's
``runtime_env``: the task sets up its tracer provider from them, its spans are children of the driver's run
span, and they are exported before the task ends.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import shutil
import signal
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.telemetry import trace_carrier
from debate_eval.tasks.engine.backends.workers import DONE, ERROR, INVOCATION, LOST, POLL_S, RECORDS, Backend, _Tail
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
from debate_eval.tasks.engine.rundir import KEY_SEPARATOR, RunDir

if TYPE_CHECKING:
    from debate_eval.tasks.engine.summary import SystemsComparison

LOCAL = "local"
CONNECT_TIMEOUT_S = 5.0  # how long a cluster's address may take to accept a connection


def import_ray() -> Any:
    """The ``ray`` module, or a one-line ``UserError`` naming the extra to install."""
    try:
        import ray
    except ImportError:
        raise UserError("--ray needs Ray: pip install 'debate-eval[ray]'") from None
    return ray


def shard_task(
    config: RunConfig,
    options: RunOptions,
    done_keys: list[str],
    own_file: Any,
    trace_context: dict[str, str] | None = None,
) -> Iterator[dict]:
    """The body of one Ray task (a generator): the runner over one shard into a temporary directory, its new
    result lines yielded in batches as they are written. First yields ``{"pid": ...}``; a ``UserError`` (or a
    bug) ends it with ``{"error": ...}``, a shard run to its end with ``{"invocation": ...}`` (its summary's
    ``this_invocation``). ``trace_context``: the run's W3C trace context when it is traced."""
    from debate_eval.tasks.engine.backends.in_process import run_shard

    yield {"pid": os.getpid()}
    directory = Path(tempfile.mkdtemp(prefix="debate-eval-ray-"))
    try:
        keys = directory / "done.keys"
        keys.write_text("".join(f"{key}\n" for key in done_keys), encoding="utf-8")
        task_options = dataclasses.replace(options, out_dir=directory / "run", skip_done_of=keys, progress="none")
        failure: list[BaseException] = []

        def body() -> None:
            try:
                run_shard(config, task_options, own_file, trace_context)  # the trace context is this thread's
            except BaseException as error:  # handed to the driver below
                failure.append(error)

        thread = threading.Thread(target=body, name="debate-eval-ray-shard", daemon=True)
        thread.start()
        tail = _Tail(RunDir(task_options.out_dir).results_path)
        running = True
        while running:  # a last look at the file once the shard has ended
            running = thread.is_alive()
            thread.join(POLL_S)
            batch = list(tail.new_lines())
            if batch:
                yield {"records": batch}
        if failure:
            error = failure[0]
            yield {"error": str(error) if isinstance(error, UserError) else f"{type(error).__name__}: {error}"}
        else:  # the shard's requests and rate limiters, for the run's summary
            yield {"invocation": RunDir(task_options.out_dir).summary.get("this_invocation", {})}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


class RayBackend(Backend):
    """The shards as Ray tasks, their lines streamed to the driver (see the module docstring).

    ``on_start(k, pid)`` (tests) is told the process id of each task as it starts.
    """

    name = "Ray task"

    def __init__(self, config: RunConfig, *, on_start: Callable[[int, int], None] | None = None) -> None:
        self.ray = import_ray()
        self.config = config
        self.on_start = on_start
        self.events_queue: queue.Queue[tuple[int, int, str, Any]] = queue.Queue()
        self.generation: dict[int, int] = {}  # a shard started again: the lost task's late events are ignored
        self.refs: dict[int, Any] = {}
        self.remote = self.ray.remote(max_retries=0)(shard_task)

    def start(self, k: int, options: RunOptions, done: set[str]) -> None:
        """Submit shard ``k`` with the keys of its items finished so far (and, in a traced run, the current
        trace context and the ``OTEL_*`` environment: ``tracing_environment``)."""
        from debate_eval.tasks.engine.backends.in_process import own_file_spec
        from debate_eval.tasks.engine.backends.shards import in_shard

        own_file = own_file_spec(self.config.dataset)
        shard = options.shard
        mine = [key for key in done if in_shard(key.split(KEY_SEPARATOR, 1)[0], shard)]
        task_options = dataclasses.replace(options, skip_done_of=None)
        generation = self.generation.get(k, 0) + 1
        self.generation[k] = generation
        carrier = trace_carrier()
        remote = self.remote.options(runtime_env={"env_vars": tracing_environment()}) if carrier else self.remote
        generator = remote.remote(self.config, task_options, mine, own_file, carrier)
        self.refs[k] = generator
        threading.Thread(
            target=self._consume, args=(k, generation, generator), name=f"debate-eval-ray-{k}", daemon=True
        ).start()

    def _consume(self, k: int, generation: int, generator: Any) -> None:
        """Read one task's stream into the queue (a thread per task: ``ray.get`` blocks)."""
        try:
            for ref in generator:
                message = self.ray.get(ref)
                if "pid" in message:
                    if self.on_start is not None:
                        self.on_start(k, int(message["pid"]))
                elif "records" in message:
                    self.events_queue.put((k, generation, RECORDS, message["records"]))
                elif "invocation" in message:
                    self.events_queue.put((k, generation, INVOCATION, message["invocation"]))
                elif "error" in message:
                    self.events_queue.put((k, generation, ERROR, message["error"]))
                    return
        except Exception as error:  # the task's process or node died: lost, submitted again
            self.events_queue.put((k, generation, LOST, type(error).__name__))
            return
        self.events_queue.put((k, generation, DONE, None))

    def events(self) -> Iterator[tuple[int, str, Any]]:
        """What the tasks' streams brought since the last call."""
        while True:
            try:
                k, generation, kind, value = self.events_queue.get_nowait()
            except queue.Empty:
                return
            if generation == self.generation.get(k) or kind == RECORDS:  # a lost task's lines still count
                yield k, kind, value

    def stop(self) -> None:
        """Cancel the tasks still running."""
        for ref in self.refs.values():
            try:
                self.ray.cancel(ref, force=True)
            except Exception:  # finished already, or the cluster is gone
                continue


def tracing_environment(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The ``OTEL_*`` variables a traced run hands to its Ray tasks, so they export where the driver does:
    all but those of headers (``OTEL_EXPORTER_OTLP_HEADERS`` and the like may hold credentials, which a Ray
    cluster shows with the task; set those on the nodes or the job's ``runtime_env``)."""
    env = os.environ if environ is None else environ
    return {name: value for name, value in env.items() if name.startswith("OTEL_") and "HEADERS" not in name}


def start_ray(ray: Any, address: str) -> None:
    """Join the cluster at ``address`` (``auto``, ``ray://...``), or start a local instance for ``local``; a
    Ray already started in this process is used as it is."""
    if ray.is_initialized():
        return
    # ray.init puts in a SIGTERM handler of its own, which ends the driver with a stack dump (exit status 134)
    # instead of the run's way out (the lines appended, one line, 143): ours is put back
    on_term = signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread() else None
    try:
        if address == LOCAL:
            ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            check_reachable(address)
            try:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
            except ConnectionError as error:
                raise UserError(f"--ray {address}: cannot reach the Ray cluster ({error})") from None
    finally:
        if on_term is not None:
            signal.signal(signal.SIGTERM, on_term)


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """A one-line ``UserError`` when ``address`` names a host and port (``HOST:PORT``, ``ray://HOST:PORT``) that
    takes no connection within ``timeout_s``: ``ray.init`` would retry it for minutes without a word."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():  # auto, or a form Ray resolves itself
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as error:
        raise UserError(
            f"--ray {address}: cannot reach the Ray cluster ({error.strerror or type(error).__name__})"
        ) from None


async def run_ray(
    config: RunConfig, options: RunOptions, *, stream: Any = None, systems: SystemsComparison | None = None
) -> Any:
    """Run ``config`` as Ray tasks (``options.ray``: the address; ``options.workers``, when given: the number of
    shards, else one per CPU of the cluster) through ``run_workers``, which opens the run directory and writes its
    summary (with ``systems``) as a run in this process does; returns the ``RunSummary``."""
    from debate_eval.tasks.engine.backends.workers import run_workers

    ray = import_ray()
    start_ray(ray, options.ray or LOCAL)
    # the number of shards: --workers, else the cluster's CPUs (at least 1)
    shards = options.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    return await run_workers(config, options, stream=stream, backend=RayBackend(config), shards=shards, systems=systems)
