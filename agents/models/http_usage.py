"""What one model call's HTTP answer says that AutoGen's ``RequestUsage`` leaves out.

AutoGen's ``OpenAIChatCompletionClient`` keeps only ``prompt_tokens`` and ``completion_tokens`` of a response's
``usage``; providers that cache prompt prefixes also report ``usage.prompt_tokens_details.cached_tokens``
(billed at a lower rate). ``ObservedClient`` (``recording.py``) opens a ``CallMeta`` with ``observing_call()``
around each completion; the SDK's request task inherits it (a context variable), and ``note_chat_usage``, a
response observer of the HTTP client (``http_client.py``), writes the cached tokens into it (Anthropic's
Messages API answers: ``messages_response.check_messages_answer``). The batch
transport (``batch.py``) fills the same record with ``note_response``.
"""

from __future__ import annotations

import contextlib
import json
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from debate_eval.agents.context_value import bound

CHAT_PATH = "/chat/completions"


@dataclass
class CallMeta:
    """What the HTTP layer learnt about one model call."""

    cached_prompt_tokens: int = 0  # usage.prompt_tokens_details.cached_tokens (Anthropic: cache_read_input_tokens)
    # prompt tokens the provider's own prompt count leaves out: Anthropic's cache reads and writes, which its
    # input_tokens excludes (anthropic/messages_response.py); its provider adds them to the call's prompt tokens
    uncounted_prompt_tokens: int = 0
    batch: bool = False  # answered through the Batch API (billed at the batch rate)


_CALL: ContextVar[CallMeta | None] = ContextVar("debate_eval_call_meta", default=None)


def observing_call() -> contextlib.AbstractContextManager[CallMeta]:
    """A fresh ``CallMeta`` for the model call made inside this block (and the tasks it starts)."""
    return bound(_CALL, CallMeta())


def current_call() -> CallMeta | None:
    """The ``CallMeta`` of the call in progress, if some caller opened one."""
    return _CALL.get()


def token_count(value: Any) -> int:
    """A token count read from JSON: a whole number of at least 0 (0 when missing or unreadable)."""
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        return 0


def cached_tokens(usage: Any) -> int:
    """``usage.prompt_tokens_details.cached_tokens`` of a response's JSON ``usage`` (0 when absent)."""
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
    return token_count(details.get("cached_tokens")) if isinstance(details, dict) else 0


def note_response(body: Any, *, batch: bool = False) -> None:
    """Record the cached prompt tokens of a chat-completion JSON ``body`` in the current call's meta."""
    meta = _CALL.get()
    if meta is None:
        return
    meta.batch = meta.batch or batch
    if isinstance(body, dict):
        meta.cached_prompt_tokens = cached_tokens(body.get("usage"))


def is_chat_request(request: Any) -> bool:
    """A ``POST .../chat/completions`` (an ``httpx``/``httpx2`` request)."""
    return request.method == "POST" and request.url.path.endswith(CHAT_PATH)


def answer_body(request: Any, response: Any, path: str) -> bytes | None:
    """The body of a 200 answer to a ``POST`` whose URL path ends in ``path``, when it has been read and is no
    event stream (a streamed answer is read later, by its caller: ``http_client`` reads every other body
    before the observers see it); None otherwise. Decided from the request line and the response, without
    parsing the request's JSON. The one gate of the response observers (``note_chat_usage``,
    ``responses.check_chat_completion``, ``messages_response.check_messages_answer``)."""
    if response.status_code != 200 or request.method != "POST" or not request.url.path.endswith(path):
        return None
    if not response.is_stream_consumed or "text/event-stream" in response.headers.get("content-type", ""):
        return None
    return response.content


def note_chat_usage(request: Any, response: Any) -> None:
    """Response observer (``http_client.ResponseObserver``): the cached prompt tokens of a successful chat
    completion, into the current call's ``CallMeta``. Most endpoints never send them: no parse then."""
    if _CALL.get() is None:
        return
    content = answer_body(request, response, CHAT_PATH)
    if content is not None and b"prompt_tokens_details" in content:
        with contextlib.suppress(ValueError):
            note_response(json.loads(content))
