"""The client layer that puts every model call through its endpoint's ``RateLimiter``, and the HTTP hook
that hands it the rate-limit headers of the answer.

``RateLimitedClient`` sits below ``RetryingClient`` (each attempt, retries included, waits for the budget)
and above AutoGen's client. It estimates the call's tokens (``token_estimate``: the prompt, plus the call's
``max_tokens`` or the mean completion so far), waits in ``RateLimiter.acquire``, and opens a ``Ticket`` in a
context variable for the call; the SDK's request task inherits it, and ``note_rate_limit_headers`` (an
httpx response event hook, a public API) writes the answer's parsed headers into it. After the call, or
its error (a 429's headers and ``retry-after`` included), the limiter learns from the ticket.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import openai
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage

from debate_eval.agents.context_value import bound
from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.models.rate_headers import parse_rate_limit_headers
from debate_eval.agents.models.rate_limit import TOKEN_MARGIN, RateLimiter, Ticket
from debate_eval.agents.models.token_estimate import count_prompt_tokens, encoder_name

_TICKET: ContextVar[Ticket | None] = ContextVar("debate_eval_rate_ticket", default=None)
_ENCODERS_READY: set[str] = set()  # models whose token encoding is loaded (tiktoken may go to the network)


def open_ticket(ticket: Ticket) -> contextlib.AbstractContextManager[Ticket]:
    """Make ``ticket`` the one the HTTP hook fills for requests made inside this block."""
    return bound(_TICKET, ticket)


async def note_rate_limit_headers(response: Any) -> None:
    """httpx response event hook: parse the rate-limit headers into the current call's ticket, if any."""
    ticket = _TICKET.get()
    if ticket is not None:
        ticket.headers = parse_rate_limit_headers(response.headers)


def add_rate_limit_hook(http_client: Any) -> Any:
    """Add ``note_rate_limit_headers`` to an httpx client's response hooks (idempotent); returns the client."""
    hooks = dict(http_client.event_hooks)
    responses = list(hooks.get("response", []))
    if note_rate_limit_headers not in responses:
        hooks["response"] = [*responses, note_rate_limit_headers]
        http_client.event_hooks = hooks
    return http_client


class RateLimitedClient(DelegatingClient):
    """Waits for the endpoint's budget and window before each call; tells the limiter how it went."""

    def __init__(
        self, inner: ChatCompletionClient, limiter: RateLimiter, *, model: str, max_tokens: int | None = None
    ) -> None:
        super().__init__(inner)
        self.limiter = limiter
        self.model = model
        self.max_tokens = max_tokens

    def estimate_tokens(self, messages: Sequence[LLMMessage], extra_create_args: Mapping[str, Any]) -> float:
        """Prompt tokens plus the completion tokens the call may count against the token budget, with a margin."""
        cap = extra_create_args.get("max_tokens") or extra_create_args.get("max_completion_tokens")
        completion = self.limiter.completion_estimate(cap or self.max_tokens)
        return (count_prompt_tokens(messages, self.model) + completion) * TOKEN_MARGIN

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the call once the budget allows it."""
        if self.model not in _ENCODERS_READY:  # the first lookup may download a file: not on the event loop
            await asyncio.to_thread(encoder_name, self.model)
            _ENCODERS_READY.add(self.model)
        estimate = self.estimate_tokens(messages, kwargs.get("extra_create_args") or {})
        ticket = await self.limiter.acquire(estimate)
        try:
            with open_ticket(ticket):
                result = await self.inner.create(messages, **kwargs)
        except BaseException as error:
            status = getattr(error, "status_code", None)
            if ticket.headers is None and isinstance(error, openai.APIStatusError):
                ticket.headers = parse_rate_limit_headers(error.response.headers)
            await self.limiter.release(ticket, rate_limited=status == 429)
            raise
        usage = result.usage
        await self.limiter.release(
            ticket,
            used_tokens=usage.prompt_tokens + usage.completion_tokens,
            completion_tokens=usage.completion_tokens,
        )
        return result
