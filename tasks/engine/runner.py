"""Run one dataset/aspect: many debates in flight on one event loop, results appended as they finish."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import sys
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from autogen_core.models import ChatCompletionClient

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.affinity import debate_session, session_keys_enabled
from debate_eval.agents.models.answer_format import AnswerTask, answering
from debate_eval.agents.models.batch import BATCH_DIR, BatchDispatcher, BatchOptions, item_in_flight
from debate_eval.agents.models.fd_budget import fit_concurrency
from debate_eval.agents.models.http_client import NetworkOptions
from debate_eval.agents.models.pool import ClientPool, default_cache_dir
from debate_eval.agents.models.providers import start_providers
from debate_eval.agents.models.rate_limit import RateOptions
from debate_eval.agents.models.response_cache import open_response_cache
from debate_eval.agents.models.wrappers import (
    CallRecord,
    RetryListener,
    TransportStats,
    print_retry,
    recording_calls,
)
from debate_eval.agents.redaction import environment_snapshot
from debate_eval.agents.telemetry import item_result, item_span, run_result, run_span
from debate_eval.debates.base import Evaluator
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.pairwise.prompts import PAIRWISE_INPUTS
from debate_eval.debates.pairwise.swap import swapping
from debate_eval.debates.scoring import PARSER_VERSION
from debate_eval.tasks.data.datasets import Item, get_dataset, item_source, load_items, select_positions
from debate_eval.tasks.engine.accounting import calls_usage, item_usage, load_prices, usage_calls
from debate_eval.tasks.engine.aspects import per_aspect, result_key
from debate_eval.tasks.engine.compat.hashes import move_earlier_run, url_era_namespace
from debate_eval.tasks.engine.concurrency import run_all
from debate_eval.tasks.engine.endpoints import check_endpoint_moves
from debate_eval.tasks.engine.fingerprints import check_served_models
from debate_eval.tasks.engine.heap import collector_for_run
from debate_eval.tasks.engine.item_errors import describe_error
from debate_eval.tasks.engine.pairwise import PAIRWISE, build_pairwise_task, check_task_type, pairwise_fields
from debate_eval.tasks.engine.progress import Progress
from debate_eval.tasks.engine.record import Message, Record
from debate_eval.tasks.engine.reread import ParserVersions, Reread, reread_run
from debate_eval.tasks.engine.results import ResultsStore
from debate_eval.tasks.engine.run_config import DEFAULT_REMOTE_CONCURRENCY, RunConfig, RunOptions, config_document
from debate_eval.tasks.engine.rundir import ResultsWriteError
from debate_eval.tasks.engine.shards import in_shard
from debate_eval.tasks.engine.tally import Tally

if TYPE_CHECKING:
    from opentelemetry import trace


@dataclass
class RunSummary:
    """What a run did: ``total`` over every record of its configuration in results.jsonl (earlier invocations
    included), ``now`` over the items this invocation ran."""

    out_dir: Path
    selected: int = 0
    already_done: int = 0
    elapsed_s: float = 0.0  # this invocation's wall time
    now: Tally = field(default_factory=Tally)
    total: Tally = field(default_factory=Tally)
    transport: TransportStats = field(default_factory=TransportStats)  # this invocation's requests and retries
    cost_usd: float | None = None  # this invocation
    rate_limits: list[dict[str, Any]] = field(default_factory=list)  # each endpoint's limiter (rate_limit.py)
    total_cost_usd: float | None = None
    # per aspect, the systems' means and paired comparisons or win rates (analysis.systems.run_systems)
    systems: dict[str, Any] | None = None
    reread: Reread | None = None  # records of an older parser read again on resume (engine/reread.py)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (``summary.json``): the run's totals, and this invocation apart."""
        now = self.now.to_dict(self.cost_usd)
        now["attempted"] = now.pop("items")
        systems = {"systems": self.systems} if self.systems else {}
        return {
            **self.total.to_dict(self.total_cost_usd),
            **systems,
            "this_invocation": {
                "selected": self.selected,
                "already_done": self.already_done,
                **now,
                "retries": sum(self.transport.retries.values()),
                "transport": self.transport.to_dict(),
                "rate_limits": self.rate_limits,
                "elapsed_s": round(self.elapsed_s, 3),
                **({"reread": self.reread.to_dict()} if self.reread else {}),
            },
        }


class TaskBuilder:
    """Renders the task of one item under one configuration, when the item is scheduled (a run of 100k items
    holds no prompt it has not started). A method that cannot judge the dataset's task type is refused when
    the builder is made; ``check`` refuses a template that some item cannot fill, before any model call."""

    def __init__(self, config: RunConfig) -> None:
        spec = get_dataset(config.dataset)
        self.config = config
        self.kind = spec.kind
        self.task_type = getattr(spec, "task_type", "single")
        check_task_type(config.protocol, config.method.task_types, config.dataset, task_type=self.task_type)
        self.swap = bool(getattr(config, "swap", False))

    def check(self, items: Iterable[Item]) -> None:
        """Each shape of the items' inputs (their names) fills the template: the one-line ``UserError`` that
        rendering would raise, raised now, without rendering a prompt."""
        self.check_shapes({tuple(item.inputs) for item in items})

    def check_shapes(self, shapes: Iterable[tuple[str, ...]]) -> None:
        """``check`` given the shapes of the items' inputs (``ItemSource.shapes``) rather than the items."""
        if self.task_type == PAIRWISE:  # every pairwise input is shown, empty or not (``task_inputs``)
            self.config.template.check_inputs(PAIRWISE_INPUTS)
            return
        for shape in shapes:
            self.config.template.check_inputs(shape)

    def __call__(self, item: Item) -> EvaluationTask:
        """The task of ``item``: its prompt rendered now; pairwise items get their swapped twin with --swap."""
        config = self.config
        if self.task_type == PAIRWISE:
            inputs = dict(item.inputs)
            return build_pairwise_task(item.item_id, inputs, config.template, config.aspect, self.kind, self.swap)
        return EvaluationTask(
            item_id=item.item_id,
            prompt=config.template.render(item.inputs),
            aspect=config.aspect,
            scale=config.template.scale,
            untrusted=tuple(item.inputs.values()),
            kind=self.kind,
            inputs=dict(item.inputs),  # a method may show some inputs apart (Fennec's criteria: never the output)
        )


def build_tasks(config: RunConfig, items: Sequence[Item]) -> list[EvaluationTask]:
    """Render the prompt of every item (a template problem fails here, before any model call). A method that
    cannot judge the dataset's task type is refused here; pairwise items get their swapped twin with --swap."""
    builder = TaskBuilder(config)
    return [builder(item) for item in items]


def make_record(
    item: Item,
    config: RunConfig,
    outcome: Outcome | None,
    error: str | None,
    elapsed_s: float,
    calls: Sequence[CallRecord] = (),
    *,
    config_hash: str | None = None,
) -> Record:
    """The result record of one item (``calls``: what a failed item spent before it failed; ``config_hash``:
    ``config.config_hash()`` when the caller has it already, as the runner has for every item of a run)."""
    core: dict[str, Any] = {
        "item_id": item.item_id,
        "dataset": config.dataset,
        "aspect": config.aspect,
        "method": config.protocol,
        "group_id": item.group_id,
        "system_id": item.system_id,
        "human_score": item.human_scores.get(config.aspect),
        "config_hash": config_hash or config.config_hash(),
        "elapsed_s": round(elapsed_s, 3),
        "error": error,
        "parser_version": PARSER_VERSION,
    }
    if outcome is None:
        usage = calls_usage(calls)
        llm_calls, cached_calls = usage_calls(usage)
        failed = Record(
            **core, parse_status="error", usage=usage, llm_calls=llm_calls, cached_calls=cached_calls, transcript=()
        )
        return _with_pairwise(failed, item, None)
    usage = item_usage(outcome.transcript)
    llm_calls, cached_calls = usage_calls(usage)
    redactions = sum(int(entry.get("redactions") or 0) for entry in outcome.transcript)
    record = Record(
        **core,
        score=outcome.score,
        parse_status=outcome.parse.status,
        parse_method=outcome.parse.method,
        parse_reason=outcome.parse.reason,
        reasked=outcome.reasked,
        agreed=outcome.agreed,
        rounds=outcome.rounds,
        stop_reason=outcome.stop_reason,
        decided_by=outcome.decided_by,
        details=outcome.details,
        usage=usage,
        llm_calls=llm_calls,
        cached_calls=cached_calls,
        transcript=tuple(Message.from_dict(entry) for entry in outcome.transcript),
        # DialEvalML: the score mapped to [0, 1]
        score_normalized=outcome.details.get("score_normalized"),
        redactions=redactions or None,  # secrets masked in the answers (agents.redaction)
    )
    return flag_truncated(_with_pairwise(record, item, outcome))


def flag_truncated(record: Record) -> Record:
    """A record without a score or verdict whose deciding answer was cut at the token limit
    (``finish_reason: length``): ``truncated: true``, and its parse reason says so and what to do."""
    if record.judged:
        return record
    decider = [m for m in record.transcript if m.raw.get("agent") == record.decided_by]
    if not decider or decider[-1].raw.get("finish_reason") != "length":
        return record
    reason = record.parse_reason or "No score."
    return record.replace(
        truncated=True,
        parse_reason=f"{reason} The answer was cut off at the token limit (finish_reason=length): raise --max-tokens.",
    )


def _with_pairwise(record: Record, item: Item, outcome: Outcome | None) -> Record:
    """A pairwise item's record with its verdict, human label and both orders (``engine.pairwise``)."""
    if getattr(item, "task_type", "single") != PAIRWISE:
        return record
    fields = pairwise_fields(getattr(item, "human_label", None), item.inputs, outcome)
    pair = getattr(item, "system_pair", None)
    if pair:  # the systems of output_a and output_b (their win rates: analysis.systems)
        fields.update(system_a=pair[0], system_b=pair[1])
    return record.replace(**fields)


async def evaluate_one(
    evaluator: Evaluator,
    item: Item,
    task: EvaluationTask,
    config: RunConfig,
    pool: ClientPool,
    *,
    config_hash: str | None = None,
) -> Record:
    """Evaluate one item; any error becomes a failed record (the run goes on) with the calls made before it
    (``config_hash``: the record's, if known; see ``make_record``)."""
    calls: list[CallRecord] = []
    started = time.perf_counter()
    # the item's span, when a tracer provider is set (agents/telemetry.py); nothing otherwise
    with item_span(item_id=item.item_id, aspect=config.aspect, method=config.protocol, dataset=config.dataset) as span:
        try:
            session = debate_session(config_hash or "", str(item.item_id), str(config.aspect))
            with recording_calls(calls), answering(answer_task(task)), session:
                outcome = await evaluator(task, pool)
        except (asyncio.CancelledError, KeyboardInterrupt):
            raise
        except Exception as error:
            elapsed = time.perf_counter() - started
            record = make_record(item, config, None, describe_error(error), elapsed, calls, config_hash=config_hash)
        else:
            record = make_record(item, config, outcome, None, time.perf_counter() - started, config_hash=config_hash)
        item_result(span, record)
    return record


def answer_task(task: EvaluationTask) -> AnswerTask:
    """What the answer formats of ``task``'s calls depend on: its scale and whether it is pairwise."""
    return AnswerTask(low=task.scale.low, high=task.scale.high, pairwise=task.pairwise)


@contextlib.asynccontextmanager
async def model_pool(
    config: RunConfig,
    out_dir: Path,
    *,
    use_cache: bool,
    cache_dir: Path | None = None,
    reset_cache: bool = False,
    clients: Mapping[str, ChatCompletionClient] | None = None,
    stats: TransportStats | None = None,
    preflight: bool = True,
    batch: BatchOptions | None = None,
    network: NetworkOptions | None = None,
    on_retry: RetryListener | None = print_retry,
    rate: RateOptions | None = None,
) -> AsyncIterator[ClientPool]:
    """The run's model clients, with what their providers need (e.g. the embedded server) started first;
    with ``batch`` their calls go out as Batch API batches (state in ``out_dir/batch``); ``network``: answer
    cap, connection pool, ``--fast-path``; ``on_retry``: told of every retry (default: a line on stderr); ``rate``:
    budgets and the most calls in flight per endpoint and model."""
    roles = config.roles()
    overrides = dict(clients or {})
    with contextlib.ExitStack() as stack:
        # what the roles' providers run for the run: the embedded llama.cpp server, the scripted server
        started = start_providers(config.models, [role for role in roles if role not in overrides], out_dir, stack)
        directory = cache_dir or default_cache_dir()
        cache = open_response_cache(directory, reset=reset_cache) if use_cache else None
        dispatcher = BatchDispatcher(batch, out_dir / BATCH_DIR, stats) if batch is not None else None
        pool = ClientPool(
            config.models,
            server_urls=started,
            cache=cache,
            stats=stats,
            overrides=overrides,
            batch=dispatcher,
            network=network,
            on_retry=on_retry,
            answers=getattr(config, "answers", None),  # a paraphrase step's owner has none
            rate=rate,
            older_namespace=url_era_namespace,  # cached answers of earlier versions are still found
        )
        try:
            if preflight:
                await pool.preflight(roles)
            yield pool
        finally:
            await pool.close()


def run_concurrency(config: RunConfig, options: RunOptions, pending: int) -> tuple[int, NetworkOptions]:
    """Debates in flight and the network options of a run: ``--concurrency`` (or the default), lowered to what
    the open-file limit leaves room for, with a note on stderr when it is (``agents/models/fd_budget.py``)."""
    network = NetworkOptions(
        max_answer_bytes=options.max_answer_bytes, fast_path=options.fast_path, session_keys=session_keys_enabled()
    )
    if options.batch:  # every item in flight at once, so that each round of calls goes out as one batch
        return options.concurrency or pending, network
    fit = fit_concurrency(options.concurrency or default_concurrency(config))
    if fit.note:
        print(f"debate-eval: note: {fit.note}", file=sys.stderr)
    if fit.connections is not None and fit.connections < network.max_connections:
        network = dataclasses.replace(network, max_connections=fit.connections)
    return fit.concurrency, network


def start_line(config: RunConfig, summary: RunSummary) -> str:
    """The run's first line: ``DATASET/ASPECT [METHOD]: N items selected, M already done``, and with the
    embedded model what the run waits for (its answers come slowly on a busy CPU, and nothing else is
    printed until an item finishes)."""
    line = (
        f"{config.dataset}/{config.aspect} [{config.protocol}]: {summary.selected} items selected, "
        f"{summary.already_done} already done"
    )
    if config.models.needs_embedded and summary.selected > summary.already_done:
        timeout = max(s.timeout_s for s in config.models.roles.values())
        line += (
            f"; waiting for the embedded model (a local process: each answer can take minutes on a busy "
            f"machine; a call is given up after {timeout:.0f} s)"
        )
    return line


def run_span_of(config: RunConfig, options: RunOptions, items: int) -> AbstractContextManager[trace.Span | None]:
    """The run's span (``agents/telemetry.run_span``) over ``items`` pending items, as the single-process runner
    and the parent of ``--workers`` / ``--ray`` open it."""
    return run_span(
        dataset=config.dataset,
        aspect=config.aspect,
        method=config.protocol,
        items=items,
        content=options.trace_content,
    )


def default_concurrency(config: RunConfig) -> int:
    """Debates in flight: the embedded server's slots, or 8 for remote endpoints."""
    if config.models.needs_embedded:
        return config.models.embedded.parallel
    return DEFAULT_REMOTE_CONCURRENCY


async def run(
    config: RunConfig,
    options: RunOptions,
    *,
    clients: Mapping[str, ChatCompletionClient] | None = None,
    stream: TextIO | None = None,
    on_retry: RetryListener | None = print_retry,
) -> RunSummary:
    """Run (or resume) the evaluation of ``config`` into ``options.out_dir`` (``stream``: the progress
    display's, default ``sys.stderr`` as it is when the run starts; ``on_retry``: told of every retry as it
    happens, ``agents/models/retry.py``; by default the progress display shows each as one line)."""
    stream = sys.stderr if stream is None else stream
    started = time.perf_counter()
    summary = RunSummary(out_dir=options.out_dir)
    if options.workers > 1 or options.ray:  # processes or Ray tasks over shards, into this run directory
        if clients:
            raise UserError("--workers and --ray run the models in other processes: they take no client objects")
        if options.ray:
            from debate_eval.tasks.engine.ray_engine import run_ray

            return await run_ray(config, options, stream=stream)
        from debate_eval.tasks.engine.workers import run_workers

        return await run_workers(config, options, stream=stream)
    # the items are taken from their source one at a time as the run starts them (an own file is read again
    # row by row): the run holds the ids of the items it chose, not the items (data/sources.py)
    source = item_source(config.dataset, options.data_dir)
    select_positions(source, limit=options.limit, docs=options.docs)  # a bad --limit/--docs fails now

    def chosen() -> Iterator[tuple[int, str]]:
        """The positions and ids of the items chosen, in file order."""
        for position, item_id in select_positions(source, limit=options.limit, docs=options.docs):
            # the selection first, so the shards of one command split the same items
            if options.shard is None or in_shard(item_id, options.shard):
                yield position, item_id

    configs = per_aspect(config)  # a multi-aspect run (--aspect a,b / all): one config per aspect (engine.aspects)
    multi = len(configs) > 1
    builders = {c.aspect: TaskBuilder(c) for c in configs}
    shapes = source.shapes(position for position, _ in chosen())
    for builder in builders.values():  # a template some item cannot fill fails now; prompts are rendered later
        builder.check_shapes(shapes)
    document = config_document(config, options)
    move_earlier_run(options.out_dir, config, document)  # a directory of an earlier version (engine.compat)
    check_endpoint_moves(options.out_dir, config, document, allow=options.allow_endpoint_change)
    # takes the lock; the records already in the file are the run's totals so far (store.tally), from the
    # resume index when it matches the file (engine/resume_index.py), else from every line read and checked
    store = ResultsStore(options.out_dir, config_document(config, options), config.config_hash(), by_aspect=multi)
    versions = ParserVersions.of_index(store.entries().values())  # the parser versions of the run's records
    failing = False
    progress: Progress | None = None
    try:
        # records an older parser read are read again from their transcripts first (engine/reread.py)
        summary.reread = reread_run(
            store, versions, configs, lambda: load_items(config.dataset, options.data_dir), stream
        )
        done = store.done_ids()
        if options.skip_done_of is not None:  # a worker of --workers: the items its run directory holds finished
            from debate_eval.tasks.engine.workers import finished_keys

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
            # both orders when a task has its twin; one evaluator per aspect
            evaluator = {c.aspect: swapping(c.evaluator()) for c in configs}
            # each item read from its source as a lane takes it, one job per aspect to run
            jobs = (
                (item, c)
                for item, aspects in source.items_at((position, aspects) for position, _, aspects in todo())
                for c in aspects
            )
            concurrency, network = run_concurrency(config, options, pending)
            async with model_pool(
                config,
                options.out_dir,
                use_cache=options.use_cache,
                cache_dir=options.cache_dir,
                reset_cache=options.reset_cache,
                clients=clients,
                stats=summary.transport,
                preflight=options.preflight,
                batch=options.batch,
                network=network,
                rate=RateOptions(options.rpm, options.tpm, concurrency),
                # one line per retry, above the bar or among the lines (unless the caller listens itself)
                on_retry=progress.retry if on_retry is print_retry else on_retry,
            ) as pool:
                # the weights each endpoint serves, as recorded (fingerprints.py); a change refused in one line
                check_served_models(
                    options.out_dir, config.roles(), pool.served_models, allow=options.allow_endpoint_change
                )
                # once the endpoints answer (a bad URL, key or GGUF fails before it, in one line), before any item
                progress.start(start_line(config, summary))
                progress.add_field("budget", pool.rate_status)  # the endpoints' live rate budgets, if any
                try:
                    # the garbage collector set for the debates (engine/heap.py); the environment's secrets
                    # read once, not at every call (agents/redaction.py); the run's span when traced
                    with (
                        collector_for_run(),
                        environment_snapshot(),
                        run_span_of(config, options, pending) as span,
                    ):
                        await _run_pending(
                            jobs, pending, builders, evaluator, pool, store, summary, concurrency, progress
                        )
                        run_result(span, finished=summary.now.finished, failed=summary.now.failed)
                finally:
                    summary.rate_limits = pool.rate_report()
    except BaseException:
        failing = True
        raise
    finally:
        if progress is not None:
            progress.close()
        store.close()
        summary.elapsed_s = time.perf_counter() - started
        store.recount()  # a retried or repeated item was counted: the whole run again (``close`` did, mostly)
        summary.total = store.tally
        if summary.total.systems:  # a record names a system or has no human rating: compare the systems
            from debate_eval.tasks.analysis.systems import run_systems  # numpy/scipy: only when there are systems

            # what the comparison reads of each record (no transcripts), read again from the file
            summary.systems = run_systems([record.systems_row() for record in store.run_records(messages=False)])
        # a role outside ROLES (G-Eval's evaluator, a ChatEval referee) uses the Scorer's model
        roles = {*config.roles(), "evaluator", *summary.now.accounting.roles, *summary.total.accounting.roles}
        models = {role: config.models.for_role(role).model for role in roles}
        prices = load_prices()
        summary.cost_usd = summary.now.accounting.cost(models, prices)
        summary.total_cost_usd = summary.total.accounting.cost(models, prices)
        try:
            store.run_dir.write_summary(summary.to_dict())
        except ResultsWriteError:
            if not failing:  # the error already on its way (a full disk, Ctrl-C) is the one to report
                raise
    return summary


async def _run_pending(
    pending: Iterable[tuple[Item, RunConfig]],
    count: int,
    builders: Mapping[str, TaskBuilder],
    evaluator: Mapping[str, Evaluator],
    pool: ClientPool,
    store: ResultsStore,
    summary: RunSummary,
    concurrency: int,
    progress: Progress,
) -> None:
    limit = asyncio.Semaphore(concurrency)  # run_concurrency's: --concurrency fitted to the open-file limit

    async def one(item: Item, aspect_config: RunConfig) -> None:
        async with limit:
            task = builders[aspect_config.aspect](item)  # the prompt is rendered as the item starts
            with item_in_flight(pool.batch):  # --batch sends its queue when every item in flight waits
                # the run's hash (a multi-aspect run's, not its aspect's), computed once, not per item
                record = await evaluate_one(
                    evaluator[aspect_config.aspect], item, task, aspect_config, pool, config_hash=store.config_hash
                )
        store.append(record)  # and counted in the run's totals (store.tally)
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
