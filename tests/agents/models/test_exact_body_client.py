"""``LiteralClient``: a request holds model, messages and the given arguments, nothing else (read at a
recording endpoint)."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest
from autogen_core.models import AssistantMessage, FunctionExecutionResultMessage, SystemMessage, UserMessage

from debate_eval.agents.models.exact_body_client import LiteralClient, wire_messages
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer


def test_the_body_is_exactly_model_messages_and_the_arguments_given() -> None:
    async def call(base_url: str) -> str:
        sdk = openai.AsyncOpenAI(api_key="not-needed", base_url=base_url, max_retries=0)
        client = LiteralClient(sdk, "m", {"temperature": 0})
        messages = [
            SystemMessage(content="S"),
            UserMessage(content="P\r\n", source="u"),
            AssistantMessage(content="A", source="a"),
        ]
        result = await client.create(messages, extra_create_args={"max_tokens": 10, "stop": None, "n": 1})
        await client.close()
        return str(result.content)

    with ScriptedOpenAIServer(reply=lambda request: "fine") as server:
        content = asyncio.run(call(server.base_url))
    assert content == "fine"
    (body,) = server.requests
    assert json.dumps(body, sort_keys=True) == json.dumps(
        {
            "model": "m",
            "messages": [
                {"role": "system", "content": "S"},
                {"role": "user", "content": "P\r\n"},
                {"role": "assistant", "content": "A"},
            ],
            "temperature": 0,
            "max_tokens": 10,
            "stop": None,
            "n": 1,
        },
        sort_keys=True,
    )  # no "stream", no "name", 0 not 0.0, null kept


def test_only_text_messages_and_no_tools() -> None:
    with pytest.raises(ValueError, match="text messages only"):
        wire_messages([FunctionExecutionResultMessage(content=[])])
    client = LiteralClient(openai.AsyncOpenAI(api_key="x", base_url="http://127.0.0.1:9/v1"), "m")
    with pytest.raises(ValueError, match="no tools"):
        asyncio.run(client.create([UserMessage(content="P", source="u")], json_output=True))
