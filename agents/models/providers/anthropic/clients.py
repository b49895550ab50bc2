"""The Anthropic provider's layers right above AutoGen's client, below the response cache (so an answer replayed
from the cache carries the same counts and the text answer). Imported when a client is built.

- ``CacheCountedClient``: a Claude call's prompt tokens, cached ones included. AutoGen's Anthropic client
  reports ``usage.input_tokens`` as the prompt tokens, and Anthropic's ``input_tokens`` leaves out the tokens
  read from or written to its prompt cache; this layer adds them back (``CallMeta.uncounted_prompt_tokens``,
  noted by the HTTP layer, ``messages_response.py``), so a call's prompt tokens mean what they mean for every
  other provider: all the tokens of its prompt, of which ``cached_prompt_tokens`` were served from the cache.
- ``ToolAnswerClient``: a structured answer asked for through a forced tool call, for an API with tools but no
  response schema (Anthropic's Messages API; see ``provider.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autogen_core import FunctionCall
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage, RequestUsage

from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.models.http_usage import current_call


class CacheCountedClient(DelegatingClient):
    """Adds the prompt tokens the HTTP layer saw outside ``input_tokens`` to each result's prompt tokens."""

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request; count the answer's cache reads and writes as prompt tokens."""
        meta = current_call()
        if meta is not None:
            meta.uncounted_prompt_tokens = 0  # this attempt's answer alone (retries reuse the call's meta)
        result = await super().create(messages, **kwargs)
        if meta is None:
            return result
        extra, meta.uncounted_prompt_tokens = meta.uncounted_prompt_tokens, 0
        if extra <= 0:
            return result
        usage = RequestUsage(result.usage.prompt_tokens + extra, result.usage.completion_tokens)
        return result.model_copy(update={"usage": usage})


class ToolAnswerClient(DelegatingClient):
    """Takes the answer tool out of ``extra_create_args[key]`` (its name, description and ``parameters``: the
    answer's JSON schema), sends it as the request's only tool with ``tool_choice`` "required", and returns the
    tool call's arguments (JSON) as the answer's text with finish reason ``stop``. Requests without the key
    pass through unchanged. It sits below the response cache, so the cache keeps the text answer."""

    def __init__(self, inner: ChatCompletionClient, key: str) -> None:
        super().__init__(inner)
        self.key = key

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request; with an answer tool, as a forced tool call whose arguments become the text."""
        extra = dict(kwargs.get("extra_create_args") or {})
        tool = extra.pop(self.key, None)
        if tool is None:
            return await super().create(messages, **kwargs)
        kwargs.update(extra_create_args=extra, tools=[tool], tool_choice="required")
        result = await super().create(messages, **kwargs)
        calls = [c for c in result.content if isinstance(c, FunctionCall)] if isinstance(result.content, list) else []
        if not calls:
            return result
        return result.model_copy(update={"content": calls[0].arguments, "finish_reason": "stop", "thought": None})
