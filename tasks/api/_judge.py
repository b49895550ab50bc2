"""``Judge``: a long-lived judge for a host program, built once from ``evaluate``'s keywords.

A judge holds, for its whole life, one client pool (its HTTP connections), one response cache and the
endpoints' rate limiters, which it takes from the process-wide registry (``agents/models/shared_limits.py``):
two judges on one endpoint and model, and all their concurrent calls, share one budget. Each call judges one
output (``score``) or one pair (``compare``) through the same method code, prompt and parser as a run, and
returns a typed ``Judgment`` / ``PairJudgment``; the endpoints are checked once, at the first call.

Nothing is written unless ``record_to=DIR``: then every judgment is appended to that run directory as
``debate-eval run`` appends its items (lock, ``config.json``, ``results.jsonl``, ``summary.json`` on close),
and a call whose id that directory already holds under the same configuration is answered from it with no
model call (resume). ``show``, ``report`` and ``meta-eval`` read the directory as any run's.

Every judge of the process runs its calls on one event loop in a background thread (the limiters' waits
belong to one loop): the synchronous forms work in a plain script and inside a running loop (Jupyter) alike,
and the ``*_async`` forms await the same calls from the caller's loop. Cancelling an awaiting caller cancels
its call; a judgment is appended only whole, after its call finished.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import weakref
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from debate_eval._judge_inputs import (
    RUN_ONLY,
    SINGLE_INPUTS,
    check_text,
    inputs_digest,
    item_id_of,
    judgment_digest,
    one_text_per_id,
)
from debate_eval._loop import awaited as _awaited
from debate_eval._loop import blocking as _blocking
from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.own_rows import PAIRWISE_INPUT_ORDER
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.views import Judgment, PairJudgment

T = TypeVar("T")
DATASET = "judge"  # the dataset name of a judge's records
PAIR_INPUTS = PAIRWISE_INPUT_ORDER  # question, input, output_a, output_b
DEFAULT_IN_FLIGHT = 64  # calls in flight per endpoint and model (the shared window's bound) without concurrency=
CANCEL_WAIT_S = 10.0  # the longest a cancelled call waits for its model calls' tasks to stop
_BUILD_LOCK = threading.Lock()  # a judge's configuration is built with its inputs registered under DATASET
# ------------------------------------------------------------------------------------------ the judge


class Judge:
    """A judge built once and called many times: ``score(output, source=...)`` -> ``Judgment``,
    ``compare(a, b, question=...)`` -> ``PairJudgment``, their ``*_async`` twins and ``score_many``.

    The keywords are ``evaluate``'s: ``method`` (default ``debate``), ``aspect``, ``criteria`` (one sentence,
    with ``scale``) or ``template`` (a G-Eval-style file with ``{{source}}``, ``{{output}}``, ``{{reference}}``,
    ``{{context}}``), ``model`` / ``provider`` (and ``base_url``, ``temperature``, ``max_tokens``, ...: every
    ``debate-eval run`` option but those of a dataset, a run directory and scale-out, refused), ``roles`` (a
    model per role, ``{"critic": "gpt-4o"}``) and the method's options (``max_rounds=3``); ``config=FILE``
    reads a ``--config`` TOML file first (the keywords given here win, their defaults too: pass ``method=None``
    to take the file's method).
    ``record_to``: a run directory the judgments are appended to (and resumed
    from); without it nothing is written. ``concurrency`` bounds the calls in flight per endpoint and model.
    Bad options raise ``UserError`` with the command's one-line message. Close it (``close()``, ``with`` or
    ``async with``) to release its connections and its run directory's lock.
    """

    def __init__(
        self,
        method: str = "debate",
        aspect: str = "coherence",
        criteria: str | None = None,
        template: str | os.PathLike[str] | None = None,
        scale: tuple[float, float] | str | None = (1, 5),
        model: str | None = None,
        provider: str | None = None,
        roles: Mapping[str, str] | None = None,
        record_to: str | os.PathLike[str] | None = None,
        **method_options: Any,
    ) -> None:
        from debate_eval.tasks.engine.environment import prepare_environment
        from debate_eval.tasks.engine.request import RunRequest

        for name, value in (("record_to", record_to), ("config", method_options.get("config"))):
            if value is not None and not isinstance(value, (str, os.PathLike)):  # was: a TypeError
                raise UserError(f"Judge(): {name}: expected a path, got {value!r}")
        keywords = {
            "method": method,
            "aspect": aspect,
            "criteria": criteria,
            "template": template,  # the run request checks paths and mappings ("critic=gpt-4o" too)
            "scale": scale,
            "model": model,
            "provider": provider,
            "role_model": roles or None,
            "out": os.fspath(record_to) if record_to is not None else None,
            **method_options,
        }
        config_file = keywords.pop("config", None)  # a --config TOML file under the keywords, as evaluate's
        for name in method_options:  # a file's dataset, out, ... are left to runs of the same file
            if name in RUN_ONLY:
                raise UserError(
                    f"Judge(): {name} is an option of a run over a dataset, not of a judge: {RUN_ONLY[name]}"
                )
        given = {name: value for name, value in keywords.items() if value is not None}
        self._request = RunRequest.from_mapping({**given, "dataset": DATASET}, source="Judge()")
        if config_file is not None:
            from debate_eval.tasks.engine.config_file import read_request_file

            request = read_request_file(config_file).updated(self._request)
            # the file's run options (its fields, limit, shard, ...) serve its runs: left out, as Judge() refuses
            # them (its dataset is the judge's, out is record_to's)
            blank = RunRequest()
            unused = {name: getattr(blank, name) for name in RUN_ONLY if name not in ("dataset", "out")}
            self._request = replace(request, **unused, out=self._request.out)
        if "," in str(aspect) or aspect == "all":
            raise UserError("Judge(): give one aspect (a run judges several with --aspect a,b)")
        prepare_environment(self._request.env_file)
        self.method = self._request.method or "debate"
        self.aspect = str(aspect)
        self.record_to = Path(record_to) if record_to is not None else None
        self._configs: dict[tuple[str, tuple[str, ...], bool], Any] = {}
        self._hashes: dict[int, str] = {}
        self._session: Any = None  # the Session (engine/session.py), opened at the first call
        self._started: asyncio.Lock | None = None
        self._store_config: Any = None
        self._release: weakref.finalize | None = None
        self._closed = False
        if criteria is not None or template is not None:
            self._config(self._single_names({"output": ""}), swap=False)  # bad options fail here, not at a call

    # ------------------------------------------------------------------ configuration

    def _single_names(self, inputs: Mapping[str, str | None]) -> tuple[str, ...]:
        """The inputs a single-score prompt shows: a template's placeholders, else those given (and output)."""
        if self._request.template:
            return ("template",)
        return tuple(name for name in SINGLE_INPUTS if name == "output" or inputs.get(name) is not None)

    def _config(self, names: tuple[str, ...], *, swap: bool, pairwise: bool = False) -> Any:
        """The ``RunConfig`` of judgments with these inputs (built once, as ``run`` builds a run's)."""
        key = ("pairwise" if pairwise else "single", names, swap)
        found = self._configs.get(key)
        if found is not None:
            return found
        from debate_eval.tasks.data.registry import ITEM_LEVEL, DatasetSpec, register_own_file_spec
        from debate_eval.tasks.engine import build

        request = self._request
        if pairwise:
            if request.criteria:
                request = replace(request, criteria=None)  # the pairwise prompt is the method's own
            request = replace(request, swap=swap, template=None, scale=None)
            inputs, task_type = PAIR_INPUTS, "pairwise"
        else:
            if not request.criteria and not request.template:
                raise UserError(
                    'Judge(): score() needs criteria="one sentence: what is a good answer?" (with scale=(LO, HI)) '
                    "or template=FILE, a G-Eval-style prompt with {{output}} (and {{source}}, {{reference}}, "
                    "{{context}})"
                )
            inputs, task_type = (SINGLE_INPUTS if names == ("template",) else names), "single"
        from debate_eval.debates.base import get_method

        kinds = get_method(request.method or "debate").task_types
        if task_type not in kinds:  # was worded for a dataset: "dataset judge is pairwise"
            raise UserError(
                f"Judge.{'compare' if pairwise else 'score'}: method {request.method} judges {' and '.join(kinds)} "
                "items only (`debate-eval methods` lists each method's task types)"
            )
        spec = DatasetSpec(
            name=DATASET,
            relative_path="",
            aspects={self.aspect: None},
            kind="summarization",
            description="judgments of debate_eval.Judge",
            inputs=tuple(inputs),
            task_type=task_type,
            level=ITEM_LEVEL,
            licence="yours",
        )
        with _BUILD_LOCK:
            register_own_file_spec(spec)
            config = build.build_run_config(request)
        self._configs[key] = config
        self._hashes[id(config)] = config.config_hash()  # hashed once: the template and settings, JSON-encoded
        return config

    # ------------------------------------------------------------------ lifetime

    async def _start(self, config: Any) -> None:
        """The session (with ``record_to``, over the run directory) on first use; the endpoints checked once."""
        if self._closed:
            raise UserError("this Judge is closed")
        if self._started is None:
            self._started = asyncio.Lock()
        async with self._started:
            if self._session is None:
                self._session = await self._open_session(config)
        store = self._session.store
        if store is not None and self._hashes[id(config)] != store.config_hash:
            raise UserError(
                f"{self.record_to} records judgments of one configuration; this call's differs (other inputs, "
                "a pairwise call or swap): give it a Judge with another record_to"
            )

    async def _open_session(self, config: Any) -> Any:
        from debate_eval.agents.models.wrappers import print_retry
        from debate_eval.tasks.engine import build
        from debate_eval.tasks.engine.backends.in_process import network_options, session_options
        from debate_eval.tasks.engine.run_config import config_document
        from debate_eval.tasks.engine.session import Session, open_store

        request = self._request
        run_options = build.build_run_options(request, config)  # the run's checks and options, one reading
        store = None
        if self.record_to is not None:
            try:
                store = open_store(  # takes the lock
                    self.record_to,
                    config,
                    config_document(config, run_options),
                    config_hash=self._hashes[id(config)],
                    allow_endpoint_change=request.allow_endpoint_change,
                    earlier_versions=False,
                )
            except UserError as error:  # the directory in use, or another configuration's: a judge's is record_to
                raise UserError(str(error).replace("--out", "record_to")) from None
            self._store_config = config
            # a judge dropped unclosed (a notebook cell run again) lets go of record_to: its lock and index
            self._release = weakref.finalize(self, store.close)
        concurrency = request.concurrency or DEFAULT_IN_FLIGHT
        options = session_options(run_options, network_options(run_options), concurrency, print_retry, None)
        # each endpoint's limiter from the process-wide registry; provider files in record_to, else a folder
        # removed on close; no Batch API (a config file's batch = true is left to its runs)
        options = replace(options, shared_limits=True, work_dir=self.record_to, served_models_dir=None, batch=None)
        return await Session.open(config, options, store=store)

    async def aclose(self) -> None:
        """Release the connections, the run directory's lock and the embedded server, if any (idempotent)."""
        await _awaited(self._aclose())

    async def _aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._release is not None:
            self._release.detach()
        session, self._session = self._session, None
        if session is None:
            return
        try:
            await session.close_models()
            if session.store is not None:
                self._write_summary(session)
        finally:
            await session.close()

    def close(self) -> None:
        """``aclose`` for synchronous code."""
        _blocking(self._aclose())

    def _write_summary(self, session: Any) -> None:
        """``summary.json`` of the run directory: the totals over its judgments, as a run writes them."""
        from debate_eval.tasks.engine.rundir import ResultsWriteError
        from debate_eval.tasks.engine.tally import Tally

        store = session.store
        total = Tally()
        systems = False
        for record in store.run_records():  # one at a time, from the file
            total.add(record)
            systems = systems or bool(record.system_id)
        cost = total.accounting.cost(self._models(total.accounting.roles), session.prices)
        summary = total.to_dict(cost)
        if systems:  # judgments that name their system: the per-system comparison, as a run's summary has it
            from debate_eval.tasks.analysis.systems import run_systems

            block = run_systems([record.systems_row() for record in store.run_records(messages=False)])
            if block:
                summary["systems"] = block
        with contextlib.suppress(ResultsWriteError):
            session.write_summary(summary)

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Judge:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        where = f", record_to={str(self.record_to)!r}" if self.record_to else ""
        return f"Judge(method={self.method!r}, aspect={self.aspect!r}{where})"

    # ------------------------------------------------------------------ calls

    def score(
        self,
        output: str,
        *,
        source: str | None = None,
        reference: str | None = None,
        context: str | None = None,
        id: str | None = None,
        system: str | None = None,
    ) -> Judgment:
        """Judge one output (with its source, reference, context when the prompt shows them): a ``Judgment``.
        ``system``: the system that wrote ``output`` (recorded as the record's ``system_id``)."""
        return _blocking(self._score(output, source=source, reference=reference, context=context, id=id, system=system))

    async def score_async(
        self,
        output: str,
        *,
        source: str | None = None,
        reference: str | None = None,
        context: str | None = None,
        id: str | None = None,
        system: str | None = None,
    ) -> Judgment:
        """``score`` for code that runs an event loop: ``j = await judge.score_async(...)``."""
        return await _awaited(
            self._score(output, source=source, reference=reference, context=context, id=id, system=system)
        )

    def compare(
        self,
        output_a: str,
        output_b: str,
        *,
        question: str | None = None,
        input: str | None = None,
        swap: bool = False,
        id: str | None = None,
    ) -> PairJudgment:
        """Judge which of two outputs is better (``swap``: in both orders): a ``PairJudgment``."""
        return _blocking(self._compare(output_a, output_b, question=question, input=input, swap=swap, id=id))

    async def compare_async(
        self,
        output_a: str,
        output_b: str,
        *,
        question: str | None = None,
        input: str | None = None,
        swap: bool = False,
        id: str | None = None,
    ) -> PairJudgment:
        """``compare`` for code that runs an event loop."""
        return await _awaited(self._compare(output_a, output_b, question=question, input=input, swap=swap, id=id))

    def score_many(
        self, rows: Iterable[Mapping[str, Any] | str], concurrency: int = 8, progress: bool = False
    ) -> list[Judgment]:
        """Judge many outputs, ``concurrency`` at a time, in the order given: each row an output (text) or a
        mapping with ``output`` and any of ``source``, ``reference``, ``context``, ``id``, ``system``;
        ``progress``: a bar on stderr."""
        return _blocking(self._score_many(rows, concurrency, progress))

    async def score_many_async(
        self, rows: Iterable[Mapping[str, Any] | str], concurrency: int = 8, progress: bool = False
    ) -> list[Judgment]:
        """``score_many`` for code that runs an event loop."""
        return await _awaited(self._score_many(rows, concurrency, progress))

    async def _score_many(
        self, rows: Iterable[Mapping[str, Any] | str], concurrency: int, progress: bool
    ) -> list[Judgment]:
        if isinstance(rows, (str, Mapping)):  # not a row per character, nor per key
            kind = "text" if isinstance(rows, str) else "mapping"
            raise UserError(f"score_many: rows is one {kind}, not a list of them: judge one output with score()")
        if not isinstance(rows, Iterable):
            raise UserError(f"score_many: rows must be a list of texts or mappings, got {type(rows).__name__}")
        rows = list(rows)
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise UserError(f"score_many: concurrency={concurrency!r}: give a whole number, 1 or more")
        if self.record_to is not None:
            one_text_per_id(rows, self.record_to)
        # every row checked before the first call: a bad row 21 is refused with nothing judged
        prepared = [self._row(row, number) for number, row in enumerate(rows, start=1)]
        from tqdm import tqdm

        from debate_eval.agents.redaction import environment_snapshot
        from debate_eval.tasks.engine.concurrency import quiet_after_interrupt
        from debate_eval.tasks.engine.heap import collector_for_run

        limit = asyncio.Semaphore(concurrency)
        bar = tqdm(total=len(prepared), unit="item", desc=f"judging {self.aspect}", disable=not progress)

        async def one(config: Any, inputs: dict[str, str], item_id: str | None, system: str | None) -> Judgment:
            async with limit:
                judgment = await self._scored(config, inputs, item_id, system)
            bar.update(1)
            return judgment

        # as a run: the collector set for many debates, the environment's secrets read once (the tasks made
        # inside, so that their contexts hold them)
        with bar, collector_for_run(), environment_snapshot():
            tasks = [asyncio.ensure_future(one(*row)) for row in prepared]
            try:
                return list(await asyncio.gather(*tasks))
            except BaseException:  # as a run stops: an error or Ctrl-C cancels the other calls and awaits
                quiet_after_interrupt()  # them, so none goes on judging (or appending) behind it, and
                for task in tasks:  # AutoGen's cancelled tasks report at debug level only
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                raise

    def _row(self, row: Mapping[str, Any] | str, number: int) -> tuple[Any, dict[str, str], str | None, str | None]:
        """One row of ``score_many`` checked: its configuration, inputs, id and system."""
        call = f"score_many: row {number} (counted from 1)"
        if isinstance(row, str):
            return (*self._single(call, {"output": row}, None), None, None)
        if not isinstance(row, Mapping) or not isinstance(row.get("output"), str):
            raise UserError(f"{call}: expected a text or a mapping with 'output'")
        unknown = sorted(set(row) - {*SINGLE_INPUTS, "id", "system"})
        if unknown:
            raise UserError(f"{call}: unknown key(s) {', '.join(unknown)}")
        given = {name: row.get(name) for name in SINGLE_INPUTS}
        item_id = item_id_of(call, row.get("id"))
        system = None if row.get("system") is None else str(row["system"])
        return (*self._single(call, given, system), item_id, system)

    def _single(self, call: str, given: Mapping[str, Any], system: Any) -> tuple[Any, dict[str, str]]:
        """The configuration and inputs of one output to score, each input checked (``call`` names it)."""
        if system is not None and not isinstance(system, str):
            raise UserError(f"{call}: system must be text, got {type(system).__name__}")
        for name, value in given.items():
            if (value is not None or name == "output") and not isinstance(value, str):
                raise UserError(f"{call}: {name} must be text, got {type(value).__name__}")
            if value is not None:
                check_text(call, name, value, required=name in ("output", "source"))
        config = self._config(self._single_names(given), swap=False)
        inputs = {name: value for name, value in given.items() if value is not None}
        if config.template.source and self._request.template:
            missing = [name for name in config.template.placeholders if name not in inputs]
            if missing:
                shown = ", ".join(missing)
                raise UserError(f"{call}: the template {config.template.source} shows {shown}: give it")
        return config, inputs

    async def _score(
        self,
        output: str,
        *,
        source: str | None = None,
        reference: str | None = None,
        context: str | None = None,
        id: str | None = None,
        system: str | None = None,
    ) -> Judgment:
        given = {"context": context, "source": source, "reference": reference, "output": output}
        config, inputs = self._single("Judge.score", given, system)
        return await self._scored(config, inputs, item_id_of("Judge.score", id), system)

    async def _scored(self, config: Any, inputs: dict[str, str], item_id: str | None, system: str | None) -> Judgment:
        record = await self._judge(config, inputs, item_id, pairwise=False, system=system)
        return Judgment.of(record, config, self._usage(record))

    async def _compare(
        self,
        output_a: str,
        output_b: str,
        *,
        question: str | None,
        input: str | None,
        swap: bool,
        id: str | None,
    ) -> PairJudgment:
        given = {"question": question or "", "input": input or "", "output_a": output_a, "output_b": output_b}
        for name, value in given.items():
            if not isinstance(value, str):
                raise UserError(f"Judge.compare: {name} must be text, got {type(value).__name__}")
            check_text("Judge.compare", name, value, required=False)
        config = self._config(PAIR_INPUTS, swap=bool(swap), pairwise=True)
        record = await self._judge(config, given, item_id_of("Judge.compare", id), pairwise=True)
        return PairJudgment.of(record, config, self._usage(record))

    async def _judge(
        self, config: Any, inputs: dict[str, str], item_id: str | None, *, pairwise: bool, system: str | None = None
    ) -> Record:
        """One item through the method: the stored judgment when ``record_to`` holds it, else a new one
        (appended there whole, once finished)."""
        from debate_eval.agents.models.recording import tracking_call_tasks
        from debate_eval.agents.redaction import environment_snapshot
        from debate_eval.agents.telemetry import tracing_content
        from debate_eval.debates.evaluation import EvaluationTask
        from debate_eval.tasks.data.registry import Item
        from debate_eval.tasks.engine.concurrency import quiet_after_interrupt
        from debate_eval.tasks.engine.pairwise import build_pairwise_task

        digest = judgment_digest(inputs, system)
        item_id = item_id if item_id is not None else f"sha256:{digest[:16]}"
        await self._start(config)
        config_hash = self._hashes[id(config)]
        store = self._session.store
        if store is not None:
            stored = store.get(item_id)
            if stored is not None and stored.config_hash == config_hash and stored.ok:
                if (stored.details or {}).get("judge_inputs_sha256") not in (None, digest):
                    raise UserError(f"{self.record_to}: id {item_id!r} was judged on other inputs; give another id")
                return self._as_this_parser_reads(stored, config, inputs)
        if pairwise:
            task = build_pairwise_task(item_id, inputs, config.template, config.aspect, "summarization", config.swap)
        else:
            task = EvaluationTask(
                item_id=item_id,
                prompt=config.template.render(inputs),
                aspect=config.aspect,
                scale=config.template.scale,
                untrusted=tuple(inputs.values()),
                inputs=dict(inputs),
            )
        item = Item(
            item_id=item_id,
            dataset=DATASET,
            # outputs of several systems on the same inputs form one group: their paired comparison's unit
            group_id=item_id if system is None else "inputs:" + inputs_digest(inputs, exclude="output"),
            system_id=system or "",
            inputs=inputs,
            human_scores={},
            row_index=0,
            task_type="pairwise" if pairwise else "single",
        )
        session = self._session
        # the environment's secrets read once for the call, not at every message (agents/redaction.py); the
        # texts on spans with trace_content=True, as a run's --trace-content (agents/telemetry.py)
        calls: set[asyncio.Task[Any]] = set()  # the model calls in flight, in AutoGen's tasks too
        with environment_snapshot(), tracing_content(self._request.trace_content), tracking_call_tasks(calls):
            try:
                judged = await session.judge(task, item, config)
            except asyncio.CancelledError:  # Ctrl-C: no call goes on (or retries) behind it, and AutoGen's
                quiet_after_interrupt()  # tasks left behind report at debug level only
                others = [call for call in calls if call is not asyncio.current_task()]
                for call in others:
                    call.cancel()
                if others:  # awaited (bounded: a call that ignored its cancellation does not hold this one)
                    await asyncio.wait(others, timeout=CANCEL_WAIT_S)
                raise
        judged = judged.replace(details={**(judged.details or {}), "judge_inputs_sha256": digest})
        if session.store is not None:
            session.append(judged)
        return judged

    def _as_this_parser_reads(self, stored: Record, config: Any, inputs: Mapping[str, str]) -> Record:
        """A stored judgment as this version's parsers read it: one an older parser read is read again from
        its transcript (no model call, as a resume of a run does) and appended, so the directory holds what
        is returned; a record written before versions whose reading is unchanged is returned as it is."""
        from debate_eval.tasks.engine.reread import is_older, reread_record

        if not is_older(stored.parser_version):
            return stored
        again = reread_record(stored, config, inputs)
        if stored.parser_version is None and again.replace(parser_version=None).to_json() == stored.to_json():
            return stored  # read the same way: the line stays as it is, like a resume leaves it
        self._session.append(again)
        return again

    # ------------------------------------------------------------------ results

    def _models(self, roles: Iterable[str]) -> dict[str, str]:
        config = self._store_config or next(iter(self._configs.values()))
        return {role: config.models.for_role(role).model for role in {*roles, *config.roles()}}

    def _usage(self, record: Record) -> tuple[int, int, float | None]:
        from debate_eval.tasks.engine.accounting import Accounting

        usage = dict(record.usage or {})
        accounting = Accounting()
        accounting.add_item(usage)
        cost = accounting.cost(self._models(usage), self._session.prices if self._session else {})
        return record.prompt_tokens(), record.completion_tokens(), cost
