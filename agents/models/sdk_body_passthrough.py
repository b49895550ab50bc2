"""An OpenAI SDK client whose chat completions are posted as AutoGen built them, with public APIs only.

For every ``chat.completions.create`` the SDK walks the whole request body (every message of the growing
history) against its ``CompletionCreateParams`` TypedDicts, to apply field aliases and encode files and
dates. A chat body from AutoGen has none of those: it is plain JSON already. At 32-128 debates in flight
that walk was the largest single cost of the event loop (benchmarks/throughput.md).

``PlainBodyClient(sdk_client)`` is the SDK client with ``chat.completions.create`` going through the SDK's
documented method for requests of one's own, ``post`` (same URL, headers, auth, timeout, HTTP client,
response parsing into ``ChatCompletion``, errors), with the body as it is; everything else (``beta``,
streaming, ``close``) is the SDK client unchanged. The run's chat client posts through it
(``plain_body_chat_client``: ``chat_client.OpenAIChatClient``, and AutoGen's client, which it takes through its
public constructor ``BaseOpenAIChatCompletionClient(client=...)``). Nothing is patched: the same JSON reaches
the endpoint (tests/agents/models/test_sdk_body_passthrough.py).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import openai
from autogen_core.models import ModelInfo
from openai.types.chat import ChatCompletion

from debate_eval.agents.models.affinity import session_key
from debate_eval.agents.models.chat_client import OpenAIChatClient

CHAT_ROUTE = "/chat/completions"
# create()'s request options -> the keys of the SDK's public RequestOptions
OPTION_KEYS = {"extra_headers": "headers", "extra_query": "params", "extra_body": "extra_json", "timeout": "timeout"}


class PlainBodyCompletions:
    """``chat.completions`` whose ``create`` posts a non-streamed body as it is (``client.post``), plus the
    debate's session key in ``session_field`` when one is given (``affinity.py``: the OpenAI API's
    ``prompt_cache_key``)."""

    def __init__(self, client: openai.AsyncOpenAI, session_field: str | None = None) -> None:
        self._client = client
        self._session_field = session_field

    async def create(self, **params: Any) -> Any:
        """Post a non-streaming chat completion; a streaming one goes through the SDK as usual."""
        if params.get("stream") is True:
            return await self._client.chat.completions.create(**params)
        options = {OPTION_KEYS[name]: params.pop(name) for name in list(params) if name in OPTION_KEYS}
        body = {key: value for key, value in params.items() if not isinstance(value, openai.NotGiven | openai.Omit)}
        if self._session_field is not None and self._session_field not in body:
            key = session_key()
            if key is not None:
                body[self._session_field] = key
        return await self._client.post(CHAT_ROUTE, body=body, cast_to=ChatCompletion, options=options)


class PlainBodyClient:
    """An ``openai.AsyncOpenAI`` (by delegation) whose ``chat.completions.create`` skips the body walk."""

    def __init__(self, client: openai.AsyncOpenAI, session_field: str | None = None) -> None:
        self.sdk_client = client
        self.chat = SimpleNamespace(completions=PlainBodyCompletions(client, session_field))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sdk_client, name)


def plain_body_chat_client(
    sdk_client: openai.AsyncOpenAI,
    create_args: dict[str, Any],
    model_info: ModelInfo | None = None,
    session_field: str | None = None,
) -> OpenAIChatClient:
    """The OpenAI chat client (``chat_client.OpenAIChatClient``: AutoGen's requests and results) over
    ``PlainBodyClient(sdk_client)`` (``create_args``: ``model`` and the decoding settings sent with every
    request; ``model_info``: required for a model AutoGen does not know; ``session_field``: the body field of the
    debate's session key, if the endpoint reads one)."""
    return OpenAIChatClient(PlainBodyClient(sdk_client, session_field), create_args, model_info)
