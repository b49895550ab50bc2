"""Anthropic Messages API answers (``POST .../v1/messages``) as the run's HTTP client reads them.

``check_messages_answer`` is a response observer of the run's HTTP client (``http_client.py``), beside the
chat-completion ones of ``responses.py`` and ``http_usage.py``. On a 200, non-streamed answer whose body is a
Messages API ``message`` it does two things:

- **Prompt cache usage** (into the current call's ``CallMeta``): Anthropic reports cache hits as
  ``usage.cache_read_input_tokens`` and cache writes as ``usage.cache_creation_input_tokens``, and, unlike
  OpenAI's ``prompt_tokens`` (which includes ``prompt_tokens_details.cached_tokens``), its ``input_tokens``
  counts neither. To keep one definition for every provider, a call's prompt tokens are all the tokens of its
  prompt, ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens``, and its cached prompt
  tokens are ``cache_read_input_tokens`` (priced at ``cached_input_per_million``, which for Claude is
  Anthropic's cache-read price). Cache writes are priced as ordinary input: Anthropic bills them at 1.25x
  (5-minute cache) or 2x (1-hour cache) the input price, so the estimate is low by that share of them. The
  two cache counts that ``input_tokens`` leaves out are noted as ``CallMeta.uncounted_prompt_tokens``; the
  Anthropic provider adds them to the call's prompt tokens (``CacheCountedClient``, ``clients.py``).
- **Empty answers**: a ``message`` with no content blocks, or none but empty text blocks (no ``tool_use``),
  raises ``EmptyAnswerError``, as an empty chat completion does (``responses.py``): final, not retried, never
  cached; the item fails in one line and a rerun asks again.
- **Refusals**: a ``stop_reason`` other than an answer's (``end_turn``, ``max_tokens``, ``stop_sequence``,
  ``tool_use``, ``pause_turn``), e.g. ``refusal``, raises ``RefusedAnswerError`` the same way, whatever partial
  text the message holds: a refusal's "Score: 5" is no score, and the item's error names the stop reason.

Any other body (an error object, not JSON) is left to the ``anthropic`` SDK, which reports it itself.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

from debate_eval.agents.models.http_usage import answer_body, current_call, token_count
from debate_eval.agents.models.responses import EmptyAnswerError
from debate_eval.agents.models.settings import public_url

MESSAGES_PATH = "/v1/messages"


def _messages_answer(request: httpx2.Request, response: httpx2.Response) -> dict[str, Any] | None:
    """The JSON ``message`` of a 200 answer to a non-streamed ``POST .../v1/messages`` (None otherwise)."""
    content = answer_body(request, response, MESSAGES_PATH)
    if content is None:
        return None
    try:
        body = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None
    return body if isinstance(body, dict) and body.get("type") == "message" else None


def _blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body.get("content")
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def is_empty_answer(body: dict[str, Any]) -> bool:
    """No content block with text or a tool call (``content`` ``[]``, or only empty or blank text blocks)."""
    return not any(
        block.get("type") == "tool_use"
        or (block.get("type") == "text" and isinstance(block.get("text"), str) and block["text"].strip())
        for block in _blocks(body)
    )


ANSWERED_STOP_REASONS = ("end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn")


class RefusedAnswerError(EmptyAnswerError):
    """The Messages API stopped for another reason than an answer (``stop_reason: refusal``, ...): whatever
    partial text it holds (even "Score: 5") is no answer; final, never cached, recorded with its reason."""


def check_messages_answer(request: httpx2.Request, response: httpx2.Response) -> None:
    """Response observer (``http_client.ResponseObserver``): note a Messages API answer's cache usage in the
    current call's ``CallMeta`` (``cached_prompt_tokens``: cache reads; ``uncounted_prompt_tokens``: reads and
    writes) and raise ``EmptyAnswerError`` when it holds no answer."""
    body = _messages_answer(request, response)
    if body is None:
        return
    meta, usage = current_call(), body.get("usage")
    if meta is not None and isinstance(usage, dict):
        meta.cached_prompt_tokens = token_count(usage.get("cache_read_input_tokens"))
        meta.uncounted_prompt_tokens = meta.cached_prompt_tokens + token_count(usage.get("cache_creation_input_tokens"))
    stop = body.get("stop_reason")
    if stop is not None and stop not in ANSWERED_STOP_REASONS:  # a refusal: its partial text is no answer
        partial = sum(len(str(block.get("text") or "")) for block in _blocks(body) if block.get("type") == "text")
        raise RefusedAnswerError(
            f"the model at {public_url(str(request.url))} did not answer (stop_reason={stop}; "
            f"{partial} characters of partial text not used); a rerun asks again",
            request,
            str(stop),
        )
    if not is_empty_answer(body):
        return
    hint = "; raise --max-tokens" if stop == "max_tokens" else "; a rerun asks again"
    finish = "length" if stop == "max_tokens" else (str(stop) if stop is not None else None)  # as AutoGen maps it
    raise EmptyAnswerError(
        f"the model at {public_url(str(request.url))} returned an empty answer (stop_reason={stop}){hint}",
        request,
        finish,
    )
