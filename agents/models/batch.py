"""``run --batch``: the debates still run as AutoGen teams, but their model calls go out as Batch API batches.

Each role's ``OpenAIChatCompletionClient`` (AutoGen) gets an HTTP transport, ``BatchTransport``, that does not
send a chat completion: it hands the request body to the run's ``BatchDispatcher`` and answers the SDK with
the batch's line once it is back, so AutoGen parses it as any answer, and the cache and retry layers above it
(``ChatCompletionCache`` read before queueing and written after; ``RetryingClient`` retries a failed line,
which puts it into the next batch) work unchanged.

The runner marks each item it evaluates with ``item_in_flight(dispatcher)``. The queue goes out as one batch
per endpoint and model when every item in flight waits on a model call (or ``max_requests`` are queued, or
``wait_s`` passed since the first one), so a DEBATE run with n rounds needs about 2n + 1 batches whatever the
number of items. Requests are keyed by a stable hash of their body; ``BatchState`` keeps the submissions and
answers in the run directory, so a rerun of a killed run polls the batches already submitted (or finds one
created just before the kill by its metadata) instead of paying again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Coroutine, Iterator
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx2
import openai

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.batch_api import CHAT_ENDPOINT, FINAL_STATUSES, BatchEndpoint, LineOutcome, batch_error
from debate_eval.agents.models.batch_state import DONE, PREPARED, SUBMITTED, UPLOADED, BatchState, Submission
from debate_eval.agents.models.batch_state import request_key as request_key
from debate_eval.agents.models.http_client import HttpOptions, build_http_client
from debate_eval.agents.models.http_usage import is_chat_request, note_response
from debate_eval.agents.models.settings import EMBEDDED, ModelSettings, public_url, stable_hash
from debate_eval.agents.models.wrappers import TransportStats

BATCH_DIR = "batch"  # in the run directory
DEFAULT_URL = "https://api.openai.com/v1"
MAX_POLL_FAILURES = 20  # polls in a row that fail (after the SDK's own retries) before the lines fail
TRANSIENT = (openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError, openai.RateLimitError)


@dataclass(frozen=True)
class BatchOptions:
    """How ``--batch`` groups and polls (does not change results)."""

    max_requests: int = 50_000  # per batch (OpenAI's limit)
    wait_s: float | None = None  # send the queue this long after its first request even if items still work
    poll_s: float = 30.0  # between status polls
    completion_window: str = "24h"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json."""
        return asdict(self)


@dataclass(slots=True, eq=False)  # each item is itself: waiters are removed by identity
class _Item:
    """One item in flight: how many of its model calls wait for an answer."""

    outstanding: int = 0


_ITEM: ContextVar[_Item | None] = ContextVar("debate_eval_batch_item", default=None)


@contextlib.contextmanager
def item_in_flight(dispatcher: BatchDispatcher | None) -> Iterator[None]:
    """Count the item evaluated inside this block as in flight (the runner's hook; nothing without --batch)."""
    if dispatcher is None:
        yield
        return
    token = _ITEM.set(_Item())
    dispatcher.in_flight += 1
    try:
        yield
    finally:
        _ITEM.reset(token)
        dispatcher.in_flight -= 1
        dispatcher.kick()  # the others may all be waiting now


class BatchTransport(httpx2.AsyncBaseTransport):
    """The SDK's transport under ``--batch``: a chat completion waits for its line of a batch."""

    def __init__(self, dispatcher: BatchDispatcher, endpoint: BatchEndpoint) -> None:
        self.dispatcher = dispatcher
        self.endpoint = endpoint

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Queue a chat completion and answer with its batch line."""
        if not is_chat_request(request):
            body = {"error": {"message": f"--batch queues chat completions only, not {request.url.path}"}}
            return httpx2.Response(400, json=body, request=request)
        body = json.loads(await request.aread())
        if body.get("stream") is False:
            del body["stream"]
        outcome = await self.dispatcher.request(self.endpoint, body)
        if outcome.status == 200:
            note_response(outcome.body, batch=True)
        return httpx2.Response(outcome.status, json=outcome.body, request=request)


class BatchDispatcher:
    """Queues the run's model calls, sends them as batches, polls them and hands the answers back."""

    def __init__(self, options: BatchOptions, directory: Path, stats: TransportStats | None = None) -> None:
        self.options = options
        self.state = BatchState.load(directory)
        self.stats = stats or TransportStats()
        self.in_flight = 0  # items the runner is evaluating
        self.waiting = 0  # of those, items with a model call waiting for its answer
        self._queue: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}  # (endpoint, model) -> key -> body
        self._futures: dict[str, asyncio.Future[LineOutcome]] = {}
        self._waiters: dict[str, list[_Item]] = {}
        self._endpoints: dict[str, BatchEndpoint] = {}
        self._active: set[str] = set()  # submissions being driven (uploaded, created or polled)
        self._tasks: set[asyncio.Task[None]] = set()
        self._timer: asyncio.TimerHandle | None = None

    # -------------------------------------------------------------------------------------- wiring

    def http_client(self, settings: ModelSettings, base_url: str | None) -> httpx2.AsyncClient:
        """The SDK HTTP client for one role's stack: its chat completions go to the batch queue."""
        if settings.provider == EMBEDDED:
            raise UserError("--batch needs an endpoint with the Batch API routes; the embedded model has none")
        identity = f"{public_url(base_url) if base_url else DEFAULT_URL} key=${settings.api_key_env}"
        if base_url and public_url(base_url) != base_url:  # credentials in the URL: keep such endpoints apart
            identity += f" {stable_hash(base_url)[:12]}"
        if identity not in self._endpoints:
            client = openai.AsyncOpenAI(  # files and batches: no answer cap (a batch's output file is large)
                api_key=settings.api_key() or "not-needed",
                base_url=base_url,
                max_retries=5,
                timeout=120,
                http_client=build_http_client(HttpOptions(deadline_s=None, max_answer_bytes=None)),
            )
            self._endpoints[identity] = BatchEndpoint(identity, client, self.options.completion_window)
        # the SDK's chat completions go to the queue: a transport that never touches the network
        return openai.DefaultAsyncHttpx2Client(transport=BatchTransport(self, self._endpoints[identity]))

    async def close(self) -> None:
        """Stop polling (submitted batches stay in the run directory for a rerun) and close the endpoints."""
        if self._timer is not None:
            self._timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for endpoint in self._endpoints.values():
            await endpoint.close()

    # ------------------------------------------------------------------------------------ requests

    async def request(self, endpoint: BatchEndpoint, body: dict[str, Any]) -> LineOutcome:
        """The answer to one chat-completion request body, through a batch (or the run's saved answers)."""
        key = request_key(endpoint.identity, body)
        self._endpoints.setdefault(endpoint.identity, endpoint)
        stored = self.state.results.get(key)
        if stored is not None:
            return LineOutcome(200, stored)
        future = self._futures.get(key)
        if future is None:
            future = asyncio.get_running_loop().create_future()
            self._futures[key] = future
            submission = self.state.open_submission_of(key)
            if submission is not None:
                self._drive_later(submission, endpoint, resumed=True)
            else:
                self._queue.setdefault((endpoint.identity, str(body.get("model", ""))), {})[key] = body
                self._arm_timer()
        item = _ITEM.get()
        if item is not None:
            self._waiters.setdefault(key, []).append(item)
            self._count(item, +1)
        try:
            self.kick()
            return await asyncio.shield(future)
        finally:
            if item is not None and item in self._waiters.get(key, []):  # left before the answer (cancelled)
                self._waiters[key].remove(item)
                self._count(item, -1)

    def _count(self, item: _Item, delta: int) -> None:
        item.outstanding += delta
        if delta > 0 and item.outstanding == 1:
            self.waiting += 1
        elif delta < 0 and item.outstanding == 0:
            self.waiting -= 1

    def _resolve(self, key: str, outcome: LineOutcome) -> None:
        for item in self._waiters.pop(key, []):  # no longer waiting from now on, before the waiters resume
            self._count(item, -1)
        future = self._futures.pop(key, None)
        if future is not None and not future.done():
            future.set_result(outcome)

    @property
    def queued(self) -> int:
        """Requests waiting to be sent."""
        return sum(len(group) for group in self._queue.values())

    def kick(self) -> None:
        """Send the queue when every item in flight waits on a call, or when it holds ``max_requests``."""
        queued = self.queued
        if queued and (self.waiting >= self.in_flight or queued >= self.options.max_requests):
            self.flush()

    def flush(self) -> None:
        """Send everything queued now: one batch per endpoint and model (split at ``max_requests``)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        groups, self._queue = self._queue, {}
        size = self.options.max_requests
        for (identity, model), requests in groups.items():
            keys = list(requests)
            for start in range(0, len(keys), size):
                chunk = {key: requests[key] for key in keys[start : start + size]}
                self._spawn(self._submit(self._endpoints[identity], model, chunk))

    def _arm_timer(self) -> None:
        if self.options.wait_s is not None and self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.options.wait_s, self._timer_fired)

    def _timer_fired(self) -> None:
        self._timer = None
        if self.queued:
            self.flush()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---------------------------------------------------------------------------------- submissions

    async def _submit(self, endpoint: BatchEndpoint, model: str, requests: dict[str, dict[str, Any]]) -> None:
        lines = [{"custom_id": key, "method": "POST", "url": CHAT_ENDPOINT, "body": b} for key, b in requests.items()]
        submission, _ = self.state.prepare(endpoint.identity, model, lines)
        self.stats.batches += 1
        self.stats.batch_requests += len(lines)
        self._active.add(submission.id)
        await self._drive(submission, endpoint, resumed=False)

    def _drive_later(self, submission: Submission, endpoint: BatchEndpoint, *, resumed: bool) -> None:
        if submission.id in self._active:
            return
        self._active.add(submission.id)
        if submission.status == SUBMITTED:
            self.stats.batches_resumed += 1
        self._spawn(self._drive(submission, endpoint, resumed=resumed))

    async def _drive(self, sub: Submission, endpoint: BatchEndpoint, *, resumed: bool) -> None:
        """Upload, create, poll and answer one submission, from whatever step it reached."""
        try:
            if sub.status == PREPARED:
                file_id = await endpoint.upload(self.state.input_file(sub), f"debate-eval-{sub.id}.jsonl")
                self.state.update(sub, status=UPLOADED, file_id=file_id)
            if sub.status == UPLOADED:
                batch_id = await endpoint.find(sub.id) if resumed else None  # created just before a kill?
                if batch_id is not None:
                    self.stats.batches_resumed += 1
                else:
                    batch_id = await endpoint.create(str(sub.file_id), sub.id)
                self.state.update(sub, status=SUBMITTED, batch_id=batch_id)
            batch = await self._poll(sub, endpoint)
            outcomes = await endpoint.outcomes(batch)
            missing = LineOutcome.failed(400 if batch.status == "failed" else 503, batch_error(batch), batch.status)
        except asyncio.CancelledError:
            raise
        except openai.APIStatusError as exc:  # the batch itself was refused
            outcomes, missing = {}, LineOutcome.failed(exc.status_code, f"batch {sub.id}: {exc.message}")
        except Exception as exc:  # connection lost for good, or an unexpected answer: the lines may be retried
            outcomes, missing = {}, LineOutcome.failed(503, f"batch {sub.id}: {type(exc).__name__}: {exc}")
            if sub.status == SUBMITTED:  # still running at the provider: a retry (or a rerun) polls it again
                for key in sub.keys:
                    self._resolve(key, missing)
                return
        finally:
            self._active.discard(sub.id)
        answers = {key: outcomes[key].body for key in sub.keys if key in outcomes and outcomes[key].status == 200}
        self.stats.batch_failed_lines += len(sub.keys) - len(answers)
        self.state.save_results(answers)
        self.state.update(sub, status=DONE)
        for key in sub.keys:
            self._resolve(key, outcomes.get(key, missing))

    async def _poll(self, sub: Submission, endpoint: BatchEndpoint) -> Any:
        """The batch once it reached a final status; transient polling errors are retried."""
        failures = 0
        while True:
            try:
                batch = await endpoint.retrieve(str(sub.batch_id))
            except TRANSIENT:
                failures += 1
                self.stats.retries["batch_poll"] += 1
                if failures > MAX_POLL_FAILURES:
                    raise
                await asyncio.sleep(min(60.0, self.options.poll_s * failures))
                continue
            failures = 0
            if batch.status != sub.batch_status:
                self.state.update(sub, batch_status=batch.status)
            if batch.status in FINAL_STATUSES:
                return batch
            await asyncio.sleep(self.options.poll_s)
