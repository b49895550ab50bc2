"""The ``deepeval`` provider's client: an AutoGen ``ChatCompletionClient`` over a registered model object
(``callable_models.py``): each call's messages as one prompt text, its answer the object's."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from autogen_core.models import CreateResult

from debate_eval.agents.models.providers.callable_models import MODEL_OBJECTS
from debate_eval.agents.models.providers.one_call_client import OneCallClient, message_role, message_text


def prompt_text(messages: Sequence[Any]) -> str:
    """The call's messages as one text, each under its role (``System:``, ``User:``, ``Assistant:``)."""
    return "\n\n".join(f"{message_role(message).capitalize()}: {message_text(message)}" for message in messages)


class CallableModelClient(OneCallClient):
    """One ``a_generate`` (else ``generate``, in a thread) of the registered object per ``create``; no token
    counts (the object reports none)."""

    async def create(self, messages: Sequence[Any], **kwargs: Any) -> CreateResult:
        """The object's answer to the messages as one prompt."""
        model = MODEL_OBJECTS.registered(self.settings.model)
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
            usage=self.add_usage(0, 0),
            cached=False,
        )

    def count_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        """A rough count (four characters a token)."""
        return len(prompt_text(messages)) // 4
