"""``run --workers N``: N processes on this machine, each the async runner over shard k/N of the items, writing
into one run directory.

- The parent holds the run directory's lock and its ``results.jsonl`` for the whole run. Worker ``k`` is a
  process (``multiprocessing``'s spawn) running the ordinary runner over shard ``k`` of ``N`` (``shards.py``)
  into its own directory ``OUT/workers/k-of-N`` (its own lock, resume and response cache use), skipping the
  items the run directory already holds finished.
- The parent reads each worker's new complete lines as they come and appends the finished ones to
  ``OUT/results.jsonl`` as they are, byte for byte (checked and redacted by the worker's own results store; the
  parent reads each line once, without its transcript, to index and count it); an item finished already is
  never appended twice; a failed item's line is appended when the worker ends without finishing it. The
  progress display counts the lines appended.
- A worker killed by a signal (``kill -9``, out of memory) is started again over the same shard: it resumes from its
  own directory and the run directory, so only its unfinished items run again. A worker that stops on an error
  of its own (a bad endpoint, or a script without ``if __name__ == "__main__":`` that the spawned worker
  imports again) stops the run with that error.
- On the way out every worker line is appended and the worker directories are removed; a parent killed
  before that leaves them, and the next run appends what they hold first.
- ``--rpm``/``--tpm`` are divided evenly among the workers. Budgets learnt from rate-limit headers are learnt
  by each worker on its own (each sees the provider's remaining budget, which all of them spend).
- The response cache (``diskcache``: SQLite with its own locking) is shared by the workers as by separate runs.
- The run directory is opened and its summary written as a run in this process does (``session.open_store``,
  ``RunSummary.write``); the summary counts the requests and retries of each worker that ended (its own
  summary's ``this_invocation``) and lists their rate limiters. Each worker checks the weights its endpoints
  serve against the run directory's ``config.json`` (``SessionOptions.served_models_dir``).
- A traced run (``agents/telemetry.py``) has its span in the parent; each worker gets the run's W3C trace
  context with its arguments, sets up its tracer provider from the ``OTEL_*`` environment it inherits, and
  its spans (its shard's run, items, rounds, calls) are children of the parent's run span, in one trace.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import multiprocessing
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from debate_eval.agents.errors import UserError
from debate_eval.agents.telemetry import run_result, trace_carrier
from debate_eval.tasks.engine.aspects import per_aspect
from debate_eval.tasks.engine.backends.shards import WORKERS_DIR, drain_leftovers
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions, config_document
from debate_eval.tasks.engine.rundir import RunDir, line_record, record_result_key, result_key

if TYPE_CHECKING:
    from debate_eval.tasks.engine.summary import SystemsComparison

MAX_RESTARTS = 3  # a worker that dies more often than this stops the run
POLL_S = 0.1  # how often the parent looks for new worker lines
PARENT_POLL_S = 1.0  # how often a worker looks whether its parent is still there
WORKERS_PER_CPU = 4  # --workers above this many per CPU of the machine is capped
PR_SET_PDEATHSIG = 1  # Linux prctl: the signal a process gets when its parent ends


def worker_count(asked: int, items: int, cpus: int | None) -> tuple[int, str | None]:
    """How many workers to start for ``asked`` over ``items`` items, and the note saying why that is fewer
    than asked (None: as asked): never more than the items (a worker with an empty shard is not started)
    nor, with ``cpus`` (this machine's; None for a cluster's shards), ``WORKERS_PER_CPU`` per CPU."""
    count = min(asked, max(1, items))
    if cpus is not None and count > WORKERS_PER_CPU * cpus:
        bound = WORKERS_PER_CPU * cpus
        return bound, f"--workers {asked} capped to {bound} ({WORKERS_PER_CPU} per CPU, {cpus} CPUs here)"
    if count < asked:
        return count, f"--workers {asked} over {items} items: {count} started (one per item)"
    return count, None


def worker_dir(out_dir: Path, k: int, count: int) -> Path:
    """Worker ``k``'s directory inside the run directory."""
    return out_dir / WORKERS_DIR / f"{k}-of-{count}"


def options_of_worker(options: RunOptions, k: int, count: int) -> RunOptions:
    """Worker ``k``'s run options: its shard and directory, no display of its own, and its share of the rate
    budgets given by hand (``--rpm``/``--tpm`` divided evenly)."""
    return dataclasses.replace(
        options,
        out_dir=worker_dir(options.out_dir, k, count),
        shard=(k, count),
        workers=1,
        ray=None,
        progress="none",
        skip_done_of=options.out_dir,
        rpm=options.rpm / count if options.rpm else None,
        tpm=options.tpm / count if options.tpm else None,
    )


class _Tail:
    """The complete lines a worker's results file gained since the last look."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.partial = b""

    def new_lines(self) -> Iterator[bytes]:
        """The complete lines written since the last call, as they are in the file (with their newline)."""
        if not self.path.is_file():
            return
        with self.path.open("rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        self.offset += len(data)
        data = self.partial + data
        *lines, self.partial = data.split(b"\n")
        for raw in lines:
            if raw.strip():
                yield raw + b"\n"


def _worker_main(
    config: RunConfig,
    options: RunOptions,
    errors: Connection,
    own_file: Any = None,
    trace_context: dict[str, str] | None = None,
    parent_pid: int | None = None,
) -> None:
    """A worker process: the ordinary runner over its shard; a ``UserError`` is sent to the parent (exit 2).
    ``own_file``: the dataset spec of the user's own file, registered in the parent (``data.registry``);
    ``trace_context``: the run's W3C trace context when it is traced (``telemetry.worker_trace``);
    ``parent_pid``: the parent, whose end (even by ``kill -9``) ends the worker (``end_with_parent``)."""
    from debate_eval.tasks.engine.backends.in_process import run_shard

    end_with_parent(parent_pid)
    try:
        run_shard(config, options, own_file, trace_context)
    except UserError as error:
        errors.send(str(error))
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as error:  # a bug: said in one line by the parent (DEBATE_EVAL_DEBUG: the traceback too)
        errors.send(f"{type(error).__name__}: {error}")
        raise


def end_with_parent(parent_pid: int | None) -> None:
    """End this process with SIGTERM when ``parent_pid`` is no longer its parent (the parent ended, however:
    its lines are on disk and the next run resumes them). On Linux the kernel sends the signal
    (``PR_SET_PDEATHSIG``); elsewhere, and as a fallback, a daemon thread looks every ``PARENT_POLL_S``."""
    if parent_pid is None:
        return
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent_pid:  # the parent ended before the signal was asked for
        os.kill(os.getpid(), signal.SIGTERM)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(PARENT_POLL_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="debate-eval-parent-watch", daemon=True).start()


DONE, LOST, ERROR, RECORDS, INVOCATION = "done", "lost", "error", "records", "invocation"


class Backend:
    """Where the shards run: local processes (``ProcessBackend``) or Ray tasks (``backends.ray.RayBackend``).

    ``start(k, options, done)`` starts shard ``k`` (``options``: ``options_of_worker``'s; ``done``: the keys
    finished so far); ``events()`` yields what happened since the last call, as ``(k, kind, value)``:
    ``RECORDS`` (a list of results lines, as bytes), ``INVOCATION`` (the ``this_invocation`` block of the
    shard's ``summary.json``, as it ends: its requests and rate limiters), ``DONE``, ``LOST`` (killed: started
    again) or ``ERROR`` (its one-line message: the run stops); ``stop()`` ends what still runs.
    """

    name = "worker"

    def start(self, k: int, options: RunOptions, done: set[str]) -> None:
        """Start shard ``k``."""
        raise NotImplementedError

    def events(self) -> Iterator[tuple[int, str, Any]]:
        """What happened since the last call."""
        raise NotImplementedError

    def stop(self) -> None:
        """End every shard still running (they resume next time)."""


@dataclasses.dataclass
class _Worker:
    k: int
    options: RunOptions
    tail: _Tail
    process: Any = None
    errors: Connection | None = None


class ProcessBackend(Backend):
    """Spawned processes on this machine, each writing its own directory inside the run directory."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.context = multiprocessing.get_context("spawn")
        self.workers: dict[int, _Worker] = {}

    def start(self, k: int, options: RunOptions, done: set[str]) -> None:
        """Start (or start again) worker ``k``: it resumes from its own directory and skips ``options``'s
        ``skip_done_of`` (the run directory); the current trace context (the run's span) goes with it."""
        worker = self.workers.get(k) or _Worker(k, options, _Tail(RunDir(options.out_dir).results_path))
        self.workers[k] = worker
        _start(self.context, worker, self.config)

    def events(self) -> Iterator[tuple[int, str, Any]]:
        """New lines of every worker, and how the ones that ended ended."""
        for worker in list(self.workers.values()):
            if worker.process is None:
                continue
            code = worker.process.exitcode
            records = list(worker.tail.new_lines())
            if code is not None:
                records += worker.tail.new_lines()  # what it wrote just before it ended
            if records:
                yield worker.k, RECORDS, records
            if code is None:
                continue
            worker.process.join()
            worker.process = None
            if code == 0:
                yield worker.k, INVOCATION, RunDir(worker.options.out_dir).summary.get("this_invocation", {})
                yield worker.k, DONE, None
            elif code > 0:  # an error of its own (exit status 2: a UserError), not a kill
                try:  # the error it sent before it ended, if any
                    message = str(worker.errors.recv()) if worker.errors is not None and worker.errors.poll() else None
                except (EOFError, OSError):
                    message = None
                yield worker.k, ERROR, message or f"ended with exit status {code} before it ran (see its error above)"
            else:
                yield worker.k, LOST, f"exit status {code}"

    def stop(self) -> None:
        """Terminate the workers still running."""
        for worker in self.workers.values():
            if worker.process is not None and worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(10)


async def run_workers(
    config: RunConfig,
    options: RunOptions,
    *,
    stream: TextIO | None = None,
    backend: Backend | None = None,
    shards: int | None = None,
    systems: SystemsComparison | None = None,
) -> Any:
    """Run ``config`` as ``shards`` shards (default ``options.workers``) on ``backend`` (default: local
    processes) into ``options.out_dir`` (see the module docstring); returns the run's ``RunSummary`` as
    ``runner.run`` does. The run directory is opened (``session.open_store``) and its summary written
    (``RunSummary.write``, with ``systems``) as a run in this process does."""
    from debate_eval.tasks.data.datasets import item_source, load_items, select_positions
    from debate_eval.tasks.engine.progress import Progress
    from debate_eval.tasks.engine.reread import reread_run
    from debate_eval.tasks.engine.session import open_store
    from debate_eval.tasks.engine.summary import RunSummary, run_span_of, start_line

    stream = sys.stderr if stream is None else stream
    started = time.perf_counter()
    local = backend is None
    backend = backend or ProcessBackend(config)
    summary = RunSummary(out_dir=options.out_dir)
    configs = per_aspect(config)
    multi = len(configs) > 1
    # the ids of the items chosen (an own file's, kept when it was checked: no item is read here)
    chosen = select_positions(item_source(config.dataset, options.data_dir), limit=options.limit, docs=options.docs)
    keys = [result_key(item_id, c.aspect, multi) for _, item_id in chosen for c in configs]
    items = len(keys) // len(configs)
    count, note = worker_count(shards or options.workers or 1, items, (os.cpu_count() or 1) if local else None)
    if note:
        print(f"debate-eval: note: {note}", file=stream)
    # the run directory opened as in this process: an earlier version's moved, an endpoint move checked
    store = open_store(
        options.out_dir,
        config,
        config_document(config, options),
        by_aspect=multi,
        allow_endpoint_change=options.allow_endpoint_change,
    )
    progress: Progress | None = None
    failed: dict[str, tuple[bytes, Record]] = {}
    done: set[str] = set()
    running: set[int] = set()
    clean = False
    spans = contextlib.ExitStack()  # the run's span, when traced: the shards' spans are its children
    span = None

    def take(lines: list[bytes]) -> None:
        for raw in lines:
            record = line_record(raw)
            key = record_result_key(record, multi)
            if key in done or record.config_hash != store.config_hash:
                continue
            if record.error:
                failed[key] = (raw, record)  # appended at the end unless a retry finishes it
                continue
            failed.pop(key, None)
            done.add(key)
            store.append_raw(raw, record)  # the worker's line as it is (and counted in the run's totals)
            summary.now.add(record)
            if progress is not None:
                progress.update(record, summary.now)

    try:
        # records an older parser read are read again from their transcripts first (engine/reread.py)
        summary.reread = reread_run(store, configs, lambda: load_items(config.dataset, options.data_dir), stream)
        done |= store.done_ids()
        drain_leftovers(options.out_dir, store, done, multi)  # a parent killed before it appended them
        pending = [key for key in keys if key not in done]
        summary.selected, summary.already_done = len(keys), len(keys) - len(pending)
        store.prepare_retries(pending)
        progress = Progress(total=len(pending), mode=options.progress, stream=stream, stats=summary.transport)
        progress.start(start_line(config, summary))
        span = spans.enter_context(run_span_of(config, options, len(pending)))
        restarts = dict.fromkeys(range(count), 0)
        if pending:
            for k in range(count):
                backend.start(k, options_of_worker(options, k, count), done)
                running.add(k)
        while running:
            await asyncio.sleep(POLL_S)
            for k, kind, value in backend.events():
                if kind == RECORDS:
                    take(value)
                elif kind == INVOCATION:  # the shard's calls, made in its process: counted in this summary
                    summary.transport.add(value.get("transport", {}))
                    summary.rate_limits += value.get("rate_limits", [])
                elif kind == DONE:
                    running.discard(k)
                elif kind == ERROR:
                    running.discard(k)
                    raise UserError(f"{backend.name} {k + 1} of {count}: {value}; {store.kept_text()}")
                elif restarts[k] < MAX_RESTARTS:
                    restarts[k] += 1
                    print(
                        f"debate-eval: note: {backend.name} {k + 1} of {count} ended ({value}); started again for "
                        f"its unfinished items ({restarts[k]} of {MAX_RESTARTS})",
                        file=stream,
                    )
                    backend.start(k, options_of_worker(options, k, count), done)
                else:
                    running.discard(k)
                    raise UserError(
                        f"{backend.name} {k + 1} of {count} ended {MAX_RESTARTS + 1} times ({value}); "
                        f"{store.kept_text()}: rerun the same command to resume"
                    )
        clean = True
    finally:
        error = sys.exc_info()[1]
        backend.stop()  # on an error or Ctrl-C: stop the other shards (they resume next time)
        with contextlib.suppress(Exception):
            for _, kind, value in backend.events():
                if kind == RECORDS:
                    take(value)
        for key, (raw, record) in failed.items():
            if key not in done:
                with contextlib.suppress(Exception):
                    store.append_raw(raw, record)
                    summary.now.add(record)
        if progress is not None:
            progress.close()
        store.close()
        if clean:
            shutil.rmtree(options.out_dir / WORKERS_DIR, ignore_errors=True)
        summary.elapsed_s = time.perf_counter() - started
        run_result(span, finished=summary.now.finished, failed=summary.now.failed)
        spans.__exit__(*((type(error), error, error.__traceback__) if error else (None, None, None)))
        summary.workers = count
        summary.write(config, store, systems, failing=error is not None)
    return summary


def _start(context: Any, worker: _Worker, config: RunConfig) -> None:
    from debate_eval.tasks.engine.backends.in_process import own_file_spec

    own_file = own_file_spec(config.dataset)
    receive, send = context.Pipe(duplex=False)
    worker.errors = receive
    worker.process = context.Process(
        target=_worker_main,
        args=(config, worker.options, send, own_file, trace_carrier(), os.getpid()),
        name=f"debate-eval-worker-{worker.k}",
        daemon=True,
    )
    worker.process.start()
    send.close()
