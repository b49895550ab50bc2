"""The in-process backend: a run's pending items judged on this event loop, many debates in flight, each
record appended as it finishes. ``runner.run`` runs it for a run in this process; each ``--workers`` process
and each Ray task runs it over its shard."""

from __future__ import annotations

import asyncio
import dataclasses
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TextIO

from autogen_core.models import ChatCompletionClient

from debate_eval.agents.models.affinity import session_keys_enabled
from debate_eval.agents.models.fd_budget import fit_concurrency
from debate_eval.agents.models.http_client import NetworkOptions
from debate_eval.agents.models.rate_limit import RateOptions
from debate_eval.agents.models.wrappers import RetryListener, print_retry
from debate_eval.agents.redaction import environment_snapshot
from debate_eval.agents.telemetry import run_result, worker_trace
from debate_eval.tasks.data.datasets import Item, item_source, load_items, select_positions
from debate_eval.tasks.engine.aspects import per_aspect
from debate_eval.tasks.engine.backends.shards import in_shard
from debate_eval.tasks.engine.backends.workers import drain_leftovers
from debate_eval.tasks.engine.concurrency import run_all
from debate_eval.tasks.engine.heap import collector_for_run
from debate_eval.tasks.engine.progress import Progress
from debate_eval.tasks.engine.reread import reread_run
from debate_eval.tasks.engine.run_config import DEFAULT_REMOTE_CONCURRENCY, RunConfig, RunOptions, config_document
from debate_eval.tasks.engine.rundir import finished_keys, result_key
from debate_eval.tasks.engine.session import Session, SessionOptions, open_store
from debate_eval.tasks.engine.summary import RunSummary, SystemsComparison, run_span_of, start_line
from debate_eval.tasks.engine.task_builder import TaskBuilder


def run_concurrency(config: RunConfig, options: RunOptions, pending: int) -> tuple[int, NetworkOptions]:
    """Debates in flight and the network options of a run: ``--concurrency`` (or the default), lowered to what
    the open-file limit leaves room for, with a note on stderr when it is (``agents/models/fd_budget.py``)."""
    network = network_options(options)
    if options.batch:  # every item in flight at once, so that each round of calls goes out as one batch
        return options.concurrency or pending, network
    fit = fit_concurrency(options.concurrency or default_concurrency(config))
    if fit.note:
        print(f"debate-eval: note: {fit.note}", file=sys.stderr)
    if fit.connections is not None and fit.connections < network.max_connections:
        network = dataclasses.replace(network, max_connections=fit.connections)
    return fit.concurrency, network


def default_concurrency(config: RunConfig) -> int:
    """Debates in flight: the embedded server's slots, or 8 for remote endpoints."""
    if config.models.needs_embedded:
        return config.models.embedded.parallel
    return DEFAULT_REMOTE_CONCURRENCY


async def run_in_process(
    config: RunConfig,
    options: RunOptions,
    *,
    clients: Mapping[str, ChatCompletionClient] | None = None,
    stream: TextIO | None = None,
    on_retry: RetryListener | None = print_retry,
    systems: SystemsComparison | None = None,
) -> RunSummary:
    """``runner.run`` in this process (its arguments), and what each ``--workers`` process and Ray task runs
    over its shard."""
    stream = sys.stderr if stream is None else stream
    started = time.perf_counter()
    summary = RunSummary(out_dir=options.out_dir)
    # the items are taken from their source one at a time as the run starts them (an own file is read again
    # row by row): the run holds the ids of the items it chose, not the items (data/sources.py)
    source = item_source(config.dataset, options.data_dir)
    select_positions(source, limit=options.limit, docs=options.docs)  # a bad --limit/--docs fails now
    only = None if options.item_ids is None else frozenset(options.item_ids)

    def chosen() -> Iterator[tuple[int, str]]:
        """The positions and ids of the items chosen, in file order."""
        for position, item_id in select_positions(source, limit=options.limit, docs=options.docs):
            # the selection first, so the shards of one command split the same items
            if (only is None or item_id in only) and (options.shard is None or in_shard(item_id, options.shard)):
                yield position, item_id

    configs = per_aspect(config)  # a multi-aspect run (--aspect a,b / all): one config per aspect (engine.aspects)
    multi = len(configs) > 1
    builders = {c.aspect: TaskBuilder(c) for c in configs}
    shapes = source.shapes(position for position, _ in chosen())
    for builder in builders.values():  # a template some item cannot fill fails now; prompts are rendered later
        builder.check_shapes(shapes)
    document = config_document(config, options)
    # the session's store first: the lock taken; the records already in the file are the run's totals so far
    # (store.tally), from the resume index when it matches the file (engine/resume_index.py), else from every
    # line read and checked; the models are opened only when an item is pending
    store = open_store(
        options.out_dir,
        config,
        document,
        by_aspect=multi,
        allow_endpoint_change=options.allow_endpoint_change,
    )
    session = Session(config, store=store, stats=summary.transport)
    failing = False
    progress: Progress | None = None
    try:
        # records an older parser read are read again from their transcripts first (engine/reread.py)
        summary.reread = reread_run(store, configs, lambda: load_items(config.dataset, options.data_dir), stream)
        done = store.done_ids()
        drain_leftovers(options.out_dir, store, done, multi)  # a --workers parent killed before it appended them
        if options.skip_done_of is not None:  # a worker of --workers: the items its run directory holds finished
            done |= finished_keys(options.skip_done_of, store.config_hash, multi)

        def todo() -> Iterator[tuple[int, str, list[RunConfig]]]:
            """Each chosen item with an aspect not finished: its position, id and those aspects' configs."""
            for position, item_id in chosen():
                aspects = [c for c in configs if result_key(item_id, c.aspect, multi) not in done]
                if aspects:
                    yield position, item_id, aspects

        selected = pending = 0  # counted in one pass over the chosen ids
        for _, item_id in chosen():
            selected += len(configs)
            pending += sum(result_key(item_id, c.aspect, multi) not in done for c in configs)
        summary.selected, summary.already_done = selected, selected - pending
        progress = Progress(total=pending, mode=options.progress, stream=stream, stats=summary.transport)
        if not pending:
            progress.start(start_line(config, summary))
        if pending:  # nothing pending: no line to drop, and no pass over the ids
            store.prepare_retries(
                result_key(item_id, c.aspect, multi) for _, item_id, aspects in todo() for c in aspects
            )
            for aspect_config in configs:  # one evaluator per aspect, built now: a bad option fails here
                session.evaluator(aspect_config)
            # each item read from its source as a lane takes it, one job per aspect to run
            jobs = (
                (item, c)
                for item, aspects in source.items_at((position, aspects) for position, _, aspects in todo())
                for c in aspects
            )
            concurrency, network = run_concurrency(config, options, pending)
            # one line per retry, above the bar or among the lines (unless the caller listens itself)
            listener = progress.retry if on_retry is print_retry else on_retry
            await session.open_models(session_options(options, network, concurrency, listener, clients))
            try:
                # once the endpoints answer (a bad URL, key or GGUF fails before it, in one line), before any item
                progress.start(start_line(config, summary))
                progress.add_field("budget", session.pool.rate_status)  # the endpoints' live rate budgets, if any
                # the garbage collector set for the debates (engine/heap.py); the environment's secrets read
                # once, not at every call (agents/redaction.py); the run's span when traced
                with collector_for_run(), environment_snapshot(), run_span_of(config, options, pending) as span:
                    await _run_pending(jobs, pending, builders, session, summary, concurrency, progress)
                    run_result(span, finished=summary.now.finished, failed=summary.now.failed)
            finally:
                summary.rate_limits = session.rate_report()
                await session.close_models()
    except BaseException:
        failing = True
        raise
    finally:
        if progress is not None:
            progress.close()
        await session.close()  # the store: flushed, its index saved, the lock released
        summary.elapsed_s = time.perf_counter() - started
        summary.write(config, store, systems, failing=failing)
    return summary


def network_options(options: RunOptions) -> NetworkOptions:
    """The network options of a run or a ``Judge``: its answer cap and ``--fast-path``, and the session keys
    unless ``$DEBATE_EVAL_SESSION_KEYS`` turns them off."""
    return NetworkOptions(
        max_answer_bytes=options.max_answer_bytes, fast_path=options.fast_path, session_keys=session_keys_enabled()
    )


def session_options(
    options: RunOptions,
    network: NetworkOptions,
    concurrency: int,
    on_retry: RetryListener | None,
    clients: Mapping[str, ChatCompletionClient] | None,
) -> SessionOptions:
    """What the run's session opens its models with: the run options, the network options and the calls in
    flight of ``run_concurrency``, the retry listener and the caller's client objects. A ``--workers``
    process checks the served models against the run directory it works for (``skip_done_of``), whose
    ``config.json`` keeps them, not against its own directory, removed when the run ends (a Ray task, given
    a file of keys, may run on another machine than its run directory: it checks its own)."""
    shared = ("use_cache", "cache_dir", "reset_cache", "preflight", "batch", "allow_endpoint_change")
    return SessionOptions(
        **{name: getattr(options, name) for name in shared},
        network=network,
        rate=RateOptions(options.rpm, options.tpm, concurrency),
        on_retry=on_retry,
        clients=clients,
        work_dir=options.out_dir,
        served_models_dir=options.skip_done_of if options.skip_done_of and options.skip_done_of.is_dir() else None,
    )


async def _run_pending(
    pending: Iterable[tuple[Item, RunConfig]],
    count: int,
    builders: Mapping[str, TaskBuilder],
    session: Session,
    summary: RunSummary,
    concurrency: int,
    progress: Progress,
) -> None:
    limit = asyncio.Semaphore(concurrency)  # run_concurrency's: --concurrency fitted to the open-file limit

    async def one(item: Item, aspect_config: RunConfig) -> None:
        async with limit:
            task = builders[aspect_config.aspect](item)  # the prompt is rendered as the item starts
            record = await session.judge(task, item, aspect_config)
        session.append(record)  # and counted in the run's totals (store.tally)
        summary.now.add(record)
        progress.update(record, summary.now)

    # the first error (e.g. a full disk) or Ctrl-C cancels and awaits every other debate
    jobs = iter(pending)  # shared by the lanes: each takes the next item (read as it is taken) when it is free

    async def lane() -> None:
        for item, aspect_config in jobs:
            await one(item, aspect_config)

    # as many lanes as debates in flight, not a task per item: a run of 100k items keeps 64 tasks, not 100k
    # (each waiting on the semaphore, and scanned by every garbage collection)
    await run_all(lane() for _ in range(min(concurrency, count)))


def own_file_spec(dataset: str) -> Any:
    """The registered spec of ``dataset`` when it is the user's own file (None for a built-in dataset): what a
    shard's process registers again before it runs (``run_shard``)."""
    from debate_eval.tasks.data.registry import get_dataset, looks_like_own_file

    return get_dataset(dataset) if looks_like_own_file(dataset) else None


def run_shard(config: RunConfig, options: RunOptions, own_file: Any, trace_context: dict[str, str] | None) -> None:
    """A ``--workers`` process's or a Ray task's run over its shard: ``own_file`` (``own_file_spec``, made in
    the parent) registered, then this backend, its spans children of ``trace_context`` (the run's, when it is
    traced: ``telemetry.worker_trace``)."""
    from debate_eval.tasks.data.registry import register_own_file_spec

    if own_file is not None:
        register_own_file_spec(own_file)
    with worker_trace(trace_context):
        asyncio.run(run_in_process(config, options))
