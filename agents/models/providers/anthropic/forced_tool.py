"""``ToolAnswerClient``: a structured answer asked for through a forced tool call, for an API with tools but no
response schema (Anthropic's Messages API; see ``provider.py``). Imported when a client is built."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autogen_core import FunctionCall
from autogen_core.models import ChatCompletionClient, CreateResult, LLMMessage

from debate_eval.agents.models.client_layers import DelegatingClient


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
