"""A Claude call's prompt tokens, cached ones included.

AutoGen's Anthropic client reports ``usage.input_tokens`` as the prompt tokens, and Anthropic's
``input_tokens`` leaves out the tokens read from or written to its prompt cache. ``CacheCountedClient``
adds them back (``CallMeta.uncounted_prompt_tokens``, noted by the HTTP layer, ``messages_response.py``), so
a call's prompt tokens mean what they mean for every other provider: all the tokens of its prompt, of which
``cached_prompt_tokens`` were served from the cache. It sits right above AutoGen's client, below the
response cache, so an answer replayed from the cache carries the same counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autogen_core.models import CreateResult, LLMMessage, RequestUsage

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
