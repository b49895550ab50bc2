"""What the one-call clients share: message roles and texts, and the tokens of every call summed."""

from __future__ import annotations

import asyncio
from typing import Any

from autogen_core.models import AssistantMessage, SystemMessage, UserMessage

from debate_eval.agents.models.providers.one_call_client import OneCallClient, message_role, message_text
from debate_eval.agents.models.settings import ModelSettings


def test_each_message_has_its_role_and_text() -> None:
    messages = [
        SystemMessage(content="rules"),
        UserMessage(content="question", source="user"),
        AssistantMessage(content="answer", source="judge"),
    ]
    assert [message_role(message) for message in messages] == ["system", "user", "assistant"]
    assert [message_text(message) for message in messages] == ["rules", "question", "answer"]


class Counted(OneCallClient):
    """A client whose calls are only counted."""

    async def create(self, messages: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def count_tokens(self, messages: Any, **kwargs: Any) -> int:
        return 0


def test_the_usage_is_each_call_and_their_sum() -> None:
    client = Counted(ModelSettings(provider="deepeval", model="m"))
    first = client.add_usage(3, 4)
    second = client.add_usage(10, 1)
    assert (first.prompt_tokens, first.completion_tokens) == (3, 4)
    assert (second.prompt_tokens, second.completion_tokens) == (10, 1)
    assert (client.total_usage().prompt_tokens, client.total_usage().completion_tokens) == (13, 5)
    asyncio.run(client.close())
