"""The Session: one opened judging context, shared by every way of judging.

``debate-eval run`` (in this process, in each ``--workers`` process and in each Ray task, which run the same
``runner.run`` on their shard), ``audit``'s sub-runs (ordinary runs) and ``Judge`` open one ``Session`` each:

- the run directory's results store, when there is one (``open_store``: an earlier version's directory moved to
  the current hash, an endpoint move checked, the lock taken, ``config.json`` checked or written);
- then the models (``open_models``): what the roles' providers run started (the embedded llama.cpp server, the
  scripted server), the response cache, the ``ClientPool`` (per-role clients), the endpoint check (preflight)
  and, with a store, the served models compared with those the directory records;
- ``judge``: one item through the method, as THE ``Record`` (a failed item is a record too);
- ``append`` / ``write_summary``: the record and the summary to the run directory;
- ``close``: the models, the providers and the store (its index saved, its lock released).

A run opens its store first (its resume and re-reading need no model) and its models only when an item is
pending; ``Session.open`` does both at once, as a ``Judge`` does at its first call.
"""

from __future__ import annotations

import asyncio
import contextlib
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autogen_core.models import ChatCompletionClient

from debate_eval.agents.models.affinity import debate_session
from debate_eval.agents.models.answer_format import AnswerTask, answering
from debate_eval.agents.models.batch import BATCH_DIR, BatchDispatcher, BatchOptions, item_in_flight
from debate_eval.agents.models.http_client import NetworkOptions
from debate_eval.agents.models.pool import ClientPool, default_cache_dir
from debate_eval.agents.models.providers import start_providers
from debate_eval.agents.models.rate_limit import RateOptions
from debate_eval.agents.models.response_cache import open_response_cache
from debate_eval.agents.models.wrappers import CallRecord, RetryListener, TransportStats, print_retry, recording_calls
from debate_eval.agents.telemetry import item_result, item_span
from debate_eval.debates.base import Evaluator
from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.pairwise.swap import swapping
from debate_eval.tasks.data.registry import Item
from debate_eval.tasks.engine.accounting import Price, load_prices
from debate_eval.tasks.engine.compat.hashes import move_earlier_run, url_era_namespace
from debate_eval.tasks.engine.endpoints import check_endpoint_moves
from debate_eval.tasks.engine.fingerprints import check_served_models
from debate_eval.tasks.engine.item_errors import describe_error
from debate_eval.tasks.engine.judged import make_record
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.results import ResultsStore
from debate_eval.tasks.engine.run_config import RunConfig
from debate_eval.tasks.engine.rundir import refuse_audit_folder


@dataclass(frozen=True)
class SessionOptions:
    """What opening the models needs, from a run's ``RunOptions`` or a ``Judge``'s keywords.

    ``use_cache`` / ``cache_dir`` / ``reset_cache``: the response cache; ``preflight``: check the endpoints
    first; ``rate``: budgets and the most calls in flight per endpoint and model; ``network``: answer cap,
    connection pool, ``--fast-path``; ``batch``: send the calls as Batch API batches (state in
    ``work_dir/batch``); ``on_retry``: told of every retry (default: a line on stderr); ``clients``: per-role
    client objects used as given; ``shared_limits``: each endpoint's limiter from the process-wide registry
    (a ``Judge``'s); ``allow_endpoint_change``: accept other weights behind a recorded endpoint; ``work_dir``:
    where providers keep their files (the run directory; None: a temporary folder removed on close when a
    provider needs one); ``served_models_dir``: the run directory whose ``config.json`` records the weights
    the endpoints serve (None: the store's; a ``--workers`` process's: the run directory it works for)."""

    use_cache: bool = True
    cache_dir: Path | None = None
    reset_cache: bool = False
    preflight: bool = True
    rate: RateOptions | None = None
    network: NetworkOptions | None = None
    batch: BatchOptions | None = None
    on_retry: RetryListener | None = print_retry
    clients: Mapping[str, ChatCompletionClient] | None = None
    shared_limits: bool = False
    allow_endpoint_change: bool = False
    work_dir: Path | None = None
    served_models_dir: Path | None = None


def open_store(
    out_dir: Path,
    config: RunConfig,
    document: dict[str, Any],
    *,
    config_hash: str | None = None,
    by_aspect: bool = False,
    allow_endpoint_change: bool = False,
    earlier_versions: bool = True,
) -> ResultsStore:
    """The results store of ``out_dir`` for ``config`` (``document``: its ``config.json``), lock taken:
    with ``earlier_versions``, a directory an earlier version hashed otherwise is moved to today's hash
    first (``engine.compat``); an endpoint that moved is refused unless allowed (``engine.endpoints``), and an
    audit folder is no run directory."""
    refuse_audit_folder(out_dir)
    if earlier_versions:
        move_earlier_run(out_dir, config, document)
    check_endpoint_moves(out_dir, config, document, allow=allow_endpoint_change)
    return ResultsStore(out_dir, document, config_hash or config.config_hash(), by_aspect=by_aspect)


class Session:
    """One opened judging context (see the module doc): ``store`` (None without a run directory), then
    ``pool``, ``stats`` and ``prices`` once ``open_models`` has run."""

    def __init__(
        self, config: RunConfig, *, store: ResultsStore | None = None, stats: TransportStats | None = None
    ) -> None:
        """A session of ``config`` over ``store`` (owned from now: ``close`` closes it); no model is opened."""
        self.config = config
        self.store = store
        self.stats = stats if stats is not None else TransportStats()
        self.prices: dict[str, Price] = {}
        self._pool: ClientPool | None = None
        self._stack: contextlib.ExitStack | None = None
        self._temp: tempfile.TemporaryDirectory[str] | None = None
        self._evaluators: dict[int, tuple[RunConfig, Evaluator, str]] = {}

    @classmethod
    async def open(cls, config: RunConfig, options: SessionOptions, *, store: ResultsStore | None = None) -> Session:
        """A session with its models open (``open_models``); the store is closed if they fail to open."""
        session = cls(config, store=store)
        try:
            await session.open_models(options)
        except BaseException:
            await session.close()
            raise
        return session

    @property
    def pool(self) -> ClientPool:
        """The per-role model clients (``open_models`` first)."""
        if self._pool is None:
            raise RuntimeError("the session's models are not open")
        return self._pool

    @property
    def models_open(self) -> bool:
        """True between ``open_models`` and ``close_models``."""
        return self._pool is not None

    async def open_models(self, options: SessionOptions) -> ClientPool:
        """Start what the roles' providers need, open the response cache and the client pool, check the
        endpoints (``options.preflight``) and, with a store, the models they serve against those the run
        directory records. Everything started is stopped again when a step fails."""
        config = self.config
        roles = config.roles()
        overrides = dict(options.clients or {})
        stack = contextlib.ExitStack()
        try:
            folder = options.work_dir
            if folder is None and config.models.needs_embedded:  # the embedded server's log, removed on close
                self._temp = tempfile.TemporaryDirectory(prefix="debate-eval-judge-")
                folder = Path(self._temp.name)
            folder = folder or Path(tempfile.gettempdir())
            # what the roles' providers run for the session: the embedded llama.cpp server, the scripted server
            started = start_providers(config.models, [role for role in roles if role not in overrides], folder, stack)
            directory = options.cache_dir or default_cache_dir()
            cache = open_response_cache(directory, reset=options.reset_cache) if options.use_cache else None
            batch = options.batch
            dispatcher = BatchDispatcher(batch, folder / BATCH_DIR, self.stats) if batch is not None else None
            pool = ClientPool(
                config.models,
                server_urls=started,
                cache=cache,
                stats=self.stats,
                overrides=overrides,
                batch=dispatcher,
                network=options.network,
                on_retry=options.on_retry,
                answers=getattr(config, "answers", None),  # a paraphrase step's owner has none
                rate=options.rate,
                shared_limits=options.shared_limits,
                older_namespace=url_era_namespace,  # cached answers of earlier versions are still found
            )
            self._pool, self._stack = pool, stack
            if options.preflight:
                await pool.preflight(roles)
            if self.store is not None:  # the weights each endpoint serves, as recorded (a change refused)
                recorded_in = options.served_models_dir or self.store.out_dir
                check_served_models(recorded_in, roles, pool.served_models, allow=options.allow_endpoint_change)
        except BaseException:
            await self.close_models()
            raise
        self.prices = load_prices()
        return pool

    def evaluator(self, config: RunConfig | None = None) -> Evaluator:
        """The method of ``config`` (default: the session's), built once (both orders when the task has its
        twin); building it first makes a bad method option fail before any model call."""
        return self._method(config or self.config)[1]

    def _method(self, config: RunConfig) -> tuple[RunConfig, Evaluator, str]:
        found = self._evaluators.get(id(config))
        if found is None:
            # the run's hash (a multi-aspect run's, not its aspect's) when there is a store, computed once
            config_hash = self.store.config_hash if self.store is not None else config.config_hash()
            found = self._evaluators[id(config)] = (config, swapping(config.evaluator()), config_hash)
        return found

    async def judge(self, task: EvaluationTask, item: Item, config: RunConfig | None = None) -> Record:
        """``item`` (its ``task`` rendered) through the method of ``config`` (default: the session's): the
        record, a failed one when the method raised. It is not appended (``append``)."""
        config = config or self.config
        _, evaluator, config_hash = self._method(config)
        pool = self.pool
        with item_in_flight(pool.batch):  # --batch sends its queue when every item in flight waits
            return await evaluate_one(evaluator, item, task, config, pool, config_hash=config_hash)

    def append(self, record: Record) -> None:
        """Append ``record`` to the run directory (counted in the store's totals)."""
        if self.store is None:
            raise RuntimeError("this session has no run directory")
        self.store.append(record)

    def write_summary(self, summary: Mapping[str, Any]) -> None:
        """Write the run directory's ``summary.json``."""
        if self.store is None:
            raise RuntimeError("this session has no run directory")
        self.store.run_dir.write_summary(dict(summary))

    def rate_report(self) -> list[dict[str, Any]]:
        """Each endpoint's limiter, for the summary (none before the models are open)."""
        return self._pool.rate_report() if self._pool is not None else []

    async def close_models(self) -> None:
        """Close the clients and stop what the providers started (idempotent); the store stays open."""
        pool, self._pool = self._pool, None
        stack, self._stack = self._stack, None
        temp, self._temp = self._temp, None
        try:
            if pool is not None:
                await pool.close()
        finally:
            if stack is not None:
                stack.close()
            if temp is not None:
                temp.cleanup()

    async def close(self) -> None:
        """Close the models, then the store (its index saved, its lock released); idempotent."""
        try:
            await self.close_models()
        finally:
            store, self.store = self.store, None
            if store is not None:
                store.close()

    async def __aenter__(self) -> Session:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


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
