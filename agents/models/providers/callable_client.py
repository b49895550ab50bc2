"""The ``deepeval`` provider's client: an AutoGen ``ChatCompletionClient`` over a registered model object
(``callable_models.py``): each call's messages as one prompt text, its answer the object's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from autogen_core.models import AssistantMessage, ChatCompletionClient, CreateResult, RequestUsage, SystemMessage

from debate_eval.agents.models.providers.callable_models import registered_model
from debate_eval.agents.models.providers.openai import GENERIC_MODEL_INFO
from debate_eval.agents.models.settings import ModelSettings


def prompt_text(messages: Sequence[Any]) -> str:
    """The call's messages as one text, each under its role (``System:``, ``User:``, ``Assistant:``)."""
    parts = []
    for message in messages:
        role = "System" if isinstance(message, SystemMessage) else "User"
        if isinstance(message, AssistantMessage):
            role = "Assistant"
        content = message.content if isinstance(message.content, str) else str(message.content)
        parts.append(f"{role}: {content}")
    return "\n\n".join(parts)


class CallableModelClient(ChatCompletionClient):
    """One ``a_generate`` (else ``generate``, in a thread) of the registered object per ``create``."""

    def __init__(self, settings: ModelSettings) -> None:
        self.settings = settings

    async def create(self, messages: Sequence[Any], **kwargs: Any) -> CreateResult:
        """The object's answer to the messages as one prompt."""
        model = registered_model(self.settings.model)
        prompt = prompt_text(messages)
        if callable(getattr(model, "a_generate", None)):
            answer = await model.a_generate(prompt)
        else:
            answer = await asyncio.to_thread(model.generate, prompt)
        if isinstance(answer, tuple):  # deepeval's native models answer (text, cost): the cost is not counted
            answer = answer[0]
        return CreateResult(
            finish_reason="stop",
            content=answer if isinstance(answer, str) else str(answer),
            usage=RequestUsage(prompt_tokens=0, completion_tokens=0),
            cached=False,
        )

    def create_stream(self, messages: Sequence[Any], **kwargs: Any) -> AsyncGenerator[Any, None]:
        """Not streamed: one ``create``."""

        async def one() -> AsyncGenerator[Any, None]:
            yield await self.create(messages, **kwargs)

        return one()

    async def close(self) -> None:
        """Nothing to close: the object is the host program's."""

    def actual_usage(self) -> RequestUsage:
        """No token counts: the object reports none."""
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def total_usage(self) -> RequestUsage:
        """No token counts: the object reports none."""
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def count_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        """A rough count (four characters a token)."""
        return len(prompt_text(messages)) // 4

    def remaining_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        """Unknown: a large number."""
        return 1_000_000

    @property
    def capabilities(self) -> Any:  # type: ignore[override]
        """A plain text model."""
        return GENERIC_MODEL_INFO

    @property
    def model_info(self) -> Any:
        """A plain text model."""
        return GENERIC_MODEL_INFO
