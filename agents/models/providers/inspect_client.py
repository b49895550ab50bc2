"""The ``inspect`` provider's client: an AutoGen ``ChatCompletionClient`` over an inspect_ai ``Model``
(``inspect_models.py`` says where its calls run)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from autogen_core.models import CreateResult

from debate_eval.agents.models.providers.inspect_models import HOST, Host, resolve_model
from debate_eval.agents.models.providers.one_call_client import OneCallClient, message_role, message_text

SAMPLING_FIELDS = ("temperature", "top_p", "frequency_penalty", "presence_penalty", "seed")
# inspect's stop reason -> AutoGen's finish reason (any other: "unknown")
FINISH_REASONS = {"stop": "stop", "max_tokens": "length", "model_length": "length", "content_filter": "content_filter"}


def chat_messages(messages: Sequence[Any]) -> list[Any]:
    """AutoGen's messages as inspect's chat messages (system, user, assistant; text only)."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "assistant": ChatMessageAssistant, "user": ChatMessageUser}
    return [kinds[message_role(message)](content=message_text(message)) for message in messages]


class InspectModelClient(OneCallClient):
    """An AutoGen ``ChatCompletionClient`` over an inspect ``Model``: ``create`` is one ``generate``."""

    async def create(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        """One ``generate`` of the role's inspect model, on the inspect eval's loop when a scorer opened
        ``calls_from_here``, with the role's sampling (temperature, top_p, penalties, seed, completion cap); the
        answer as AutoGen's ``CreateResult`` with inspect's usage."""
        from inspect_ai.model import GenerateConfig

        sampling = {name: getattr(self.settings.sampling, name) for name in SAMPLING_FIELDS}
        cap = dict(kwargs.get("extra_create_args") or {}).get("max_tokens")
        config = GenerateConfig(**sampling, max_tokens=self.settings.sampling.max_tokens if cap is None else cap)
        host = HOST.get()
        if host is None or host.loop is asyncio.get_running_loop():
            output = await self._generate(messages, config)
        else:
            output = await _run_on(host, self._generate(messages, config))
        usage = output.usage
        prompt = int(usage.input_tokens) if usage is not None else 0
        completion = int(usage.output_tokens) if usage is not None else 0
        cached = int(usage.input_tokens_cache_read or 0) if usage is not None else None
        call_usage = self.add_usage(prompt, completion, cached)
        finish = output.choices[0].stop_reason if output.choices else "stop"
        return CreateResult(
            finish_reason=FINISH_REASONS.get(finish, "unknown"),
            content=output.completion,
            usage=call_usage,
            cached=False,
        )

    async def _generate(self, messages: Sequence[Any], config: Any) -> Any:
        model = resolve_model(self.settings.model)
        return await model.generate(chat_messages(messages), config=config)


async def _run_on(host: Host, work: Any) -> Any:
    """Await ``work`` run as a task of ``host``'s loop in a copy of ``host``'s context (cancelling this cancels
    it): ``asyncio.run_coroutine_threadsafe``, called in that context, which the task it starts inherits."""
    return await asyncio.wrap_future(host.context.copy().run(asyncio.run_coroutine_threadsafe, work, host.loop))
