"""``LiteralClient``: a model client that sends a chat completion with exactly the fields it is given.

``--fidelity authors-code`` must put on the wire what the authors' scripts sent. AutoGen's
``OpenAIChatCompletionClient`` always adds ``"stream": false`` to a request (it passes ``stream=False`` to the
SDK), so its requests can never have the authors' keys. This client is a plain ``ChatCompletionClient``
(autogen_core's public interface) over the OpenAI SDK's public ``chat.completions.create``: the body holds
``model``, ``messages`` and the create arguments (the client's own, then the call's ``extra_create_args``)
and nothing else; values are sent as given (``0`` stays ``0``, ``None`` becomes ``null``). Messages are
plain ``{"role", "content"}`` objects (no ``name``), which is how both of the authors' clients (pyautogen
0.1 and ChatEval's agentverse) wrote them.

Only text is supported (system, user and assistant messages with string content): the authors' flows never
send anything else. Everything else about a call (HTTP client, timeout, retries above it, cache, recording)
is the same as for AutoGen's client; what it shares with the other one-call clients (a plain text model, the
usage of every call) is ``OneCallClient``'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import openai
from autogen_core import CancellationToken
from autogen_core.models import AssistantMessage, CreateResult, LLMMessage, RequestUsage, SystemMessage, UserMessage
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from debate_eval.agents.models.providers.one_call_client import OneCallClient

_FINISH_REASONS: dict[str | None, Literal["stop", "length", "function_calls", "content_filter", "unknown"]] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "function_calls",
    "function_call": "function_calls",
}
_ROLES = {SystemMessage: "system", UserMessage: "user", AssistantMessage: "assistant"}


def wire_messages(messages: Sequence[LLMMessage]) -> list[dict[str, str]]:
    """The messages as the request's ``messages`` array: ``{"role", "content"}`` per message, text only."""
    wire: list[dict[str, str]] = []
    for message in messages:
        role = next((name for kind, name in _ROLES.items() if isinstance(message, kind)), None)
        if role is None:
            raise ValueError(f"LiteralClient sends text messages only, not {type(message).__name__}")
        if not isinstance(message.content, str):
            raise ValueError(f"LiteralClient sends text messages only; a {role} message holds {type(message.content)}")
        wire.append({"role": role, "content": message.content})
    return wire


class LiteralClient(OneCallClient):
    """Sends ``model``, ``messages`` and the given create arguments, nothing else (see the module docstring)."""

    def __init__(self, client: openai.AsyncOpenAI, model: str, create_args: Mapping[str, Any] | None = None) -> None:
        """``client``: the SDK client (its HTTP client, base URL, key and timeout); ``create_args``: the fields
        every request carries besides ``model`` and ``messages``."""
        super().__init__()
        self._client = client
        self._model = model
        self._create_args = dict(create_args or {})

    def request_body(self, messages: Sequence[LLMMessage], extra_create_args: Mapping[str, Any] = {}) -> dict[str, Any]:
        """The JSON body a call with these arguments sends."""
        return {"model": self._model, "messages": wire_messages(messages), **self._create_args, **extra_create_args}

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = [],
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        """One chat completion; tools and structured output are refused (the authors' flows use neither)."""
        if tools or json_output:
            raise ValueError("LiteralClient sends plain chat completions: no tools, no structured output")
        result = await self._client.chat.completions.create(**self.request_body(messages, extra_create_args))
        choice = result.choices[0]
        usage = self.add_usage(
            getattr(result.usage, "prompt_tokens", 0) or 0, getattr(result.usage, "completion_tokens", 0) or 0
        )
        return CreateResult(
            finish_reason=_FINISH_REASONS.get(choice.finish_reason, "unknown"),
            content=choice.message.content or "",
            usage=usage,
            cached=False,
        )

    async def close(self) -> None:
        """Close the SDK client."""
        await self._client.close()

    def actual_usage(self) -> RequestUsage:
        """Usage of the latest call."""
        return self._last
