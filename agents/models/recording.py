"""Recording of every completion: ``CallRecord``, the per-debate ``ObservedClient`` and ``recording_calls``
(the runner's per-item log, kept even when an item fails). See ``wrappers``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage

from debate_eval.agents.context_value import bound
from debate_eval.agents.models.affinity import role_call
from debate_eval.agents.models.answer_check import UnusableAnswerError, redacted_result
from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.models.http_usage import observing_call
from debate_eval.agents.redaction import REDACTED
from debate_eval.agents.telemetry import CallSpan, model_call

# what a call's record holds in a transcript, in this order (``answer_format`` after them, when set)
RECORDED_FIELDS = (
    "role",
    "cached",
    "prompt_tokens",
    "completion_tokens",
    "cached_prompt_tokens",
    "batch",
    "finish_reason",
    "latency_s",
    "redactions",
)


@dataclass
class CallRecord:
    """One completion as seen by an agent."""

    role: str
    cached: bool
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    latency_s: float
    logprobs: list[dict[str, Any]] | None = None
    cached_prompt_tokens: int = 0  # prompt tokens the provider served from its prefix cache
    batch: bool = False  # answered through the Batch API
    redactions: int = 0  # secrets masked in the answer (``agents.redaction``)
    answer_format: dict[str, Any] | None = None  # what the call was asked to write (AnswerFormat.to_dict), if set

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (logprobs omitted: they are large and kept only where a protocol uses them)."""
        data = {name: getattr(self, name) for name in RECORDED_FIELDS}
        data["latency_s"] = round(self.latency_s, 4)
        return {**data, "answer_format": self.answer_format} if self.answer_format else data


_ITEM_CALLS: ContextVar[list[CallRecord] | None] = ContextVar("debate_eval_item_calls", default=None)


def recording_calls(log: list[CallRecord]) -> contextlib.AbstractContextManager[list[CallRecord]]:
    """Add every ``CallRecord`` made in this context to ``log`` too (the runner's per-item log).

    Tasks started inside the context (AutoGen's agent runtime) inherit it, so the calls of an item that fails
    half-way are still known.
    """
    return bound(_ITEM_CALLS, log)


_CALL_TASKS: ContextVar[set[asyncio.Task[Any]] | None] = ContextVar("debate_eval_call_tasks", default=None)


def tracking_call_tasks(tasks: set[asyncio.Task[Any]]) -> contextlib.AbstractContextManager[set[asyncio.Task[Any]]]:
    """Keep in ``tasks``, while it waits for its answer, the task of every model call made in this context.

    AutoGen's agent runtime makes a debate's calls in tasks of its own, which cancelling the debate leaves
    running (and retrying); a ``Judge``, on a loop other calls share, cancels these instead of every task."""
    return bound(_CALL_TASKS, tasks)


@contextlib.contextmanager
def _call_task() -> Iterator[None]:
    """The current task in the ``tracking_call_tasks`` set for the duration of one call."""
    tasks, task = _CALL_TASKS.get(), asyncio.current_task()
    if tasks is None or task is None:
        yield
        return
    tasks.add(task)
    try:
        yield
    finally:
        tasks.discard(task)


class ObservedClient(DelegatingClient):
    """Appends a ``CallRecord`` to ``log`` for every completion (one wrapper per debate and role), and to the
    log of ``recording_calls`` when one is active.

    ``request_args`` (AutoGen ``extra_create_args``: an answer format's cap and grammar or schema, built by
    the provider) are added to every request; they sit above the response cache, so they are part of its key.
    ``answer_format`` (a JSON-ready description of that format) is recorded with each call. ``model`` and
    ``provider`` name what answers, for the call's span when the run is traced (``agents.telemetry``).
    """

    def __init__(
        self,
        inner: ChatCompletionClient,
        role: str,
        log: list[CallRecord],
        *,
        request_args: Mapping[str, Any] | None = None,
        answer_format: dict[str, Any] | None = None,
        model: str | None = None,
        provider: str | None = None,
    ) -> None:
        super().__init__(inner)
        self.role = role
        self.log = log
        self.request_args = dict(request_args or {})
        self.answer_format = answer_format
        self.model = model
        self.provider = provider

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request (with ``request_args``) and record its result (also when its answer was refused:
        its tokens count)."""
        if self.request_args:
            kwargs["extra_create_args"] = merged_args(self.request_args, kwargs.get("extra_create_args") or {})
        started = time.perf_counter()
        # the transport notes cached prompt tokens and batch answers in ``meta``; it sends the role's session key;
        # the call's span only when the run is traced (agents/telemetry.py)
        with model_call(self.role, self.model, self.provider, messages) as span:
            with observing_call() as meta, role_call(self.role), _call_task():
                try:
                    result = await self.inner.create(messages, **kwargs)
                except UnusableAnswerError as refused:
                    self._record(refused.result, started, meta, span)
                    raise
            if isinstance(result.content, str):  # an answer cached by an earlier version may hold a secret
                result = redacted_result(result)
            self._record(result, started, meta, span)
        return result

    def _record(self, result: CreateResult, started: float, meta: Any, span: CallSpan | None = None) -> None:
        logprobs = None
        if result.logprobs:
            logprobs = [entry.model_dump() for entry in result.logprobs]
        record = CallRecord(
            role=self.role,
            cached=bool(result.cached),
            prompt_tokens=result.usage.prompt_tokens,
            completion_tokens=result.usage.completion_tokens,
            finish_reason=str(result.finish_reason),
            latency_s=time.perf_counter() - started,
            logprobs=logprobs,
            cached_prompt_tokens=0 if result.cached else meta.cached_prompt_tokens,
            batch=meta.batch and not result.cached,
            redactions=result.content.count(REDACTED) if isinstance(result.content, str) else 0,
            answer_format=self.answer_format,
        )
        if span is not None:
            span.result(
                input_tokens=record.prompt_tokens,
                output_tokens=record.completion_tokens,
                cached=record.cached,
                finish_reason=record.finish_reason,
                answer=result.content,
            )
        self.log.append(record)
        item_log = _ITEM_CALLS.get()
        if item_log is not None and item_log is not self.log:
            item_log.append(record)  # the same object: a protocol's later relabelling shows in both


def merged_args(base: Mapping[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``base`` updated by ``extra``; their ``extra_body`` dicts are merged (``extra``'s keys win)."""
    merged = {**base, **extra}
    if isinstance(base.get("extra_body"), Mapping) and isinstance(extra.get("extra_body"), Mapping):
        merged["extra_body"] = {**base["extra_body"], **extra["extra_body"]}
    return merged
