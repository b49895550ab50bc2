"""What the clients of one call per ``create`` share (the ``litellm``, ``inspect`` and ``deepeval`` providers,
and ``--fidelity authors-code``'s ``LiteralClient``): an AutoGen ``ChatCompletionClient`` whose ``create`` is one
call of another library or SDK, not streamed, on a plain text model, counting the tokens of every call so far;
and the role of each AutoGen message."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import Any

from autogen_core.models import AssistantMessage, ChatCompletionClient, CreateResult, RequestUsage, SystemMessage

from debate_eval.agents.models.http_usage import current_call
from debate_eval.agents.models.providers.openai import GENERIC_MODEL_INFO
from debate_eval.agents.models.settings import ModelSettings


def message_role(message: Any) -> str:
    """``system``, ``user`` or ``assistant``: the role of an AutoGen message (a function result is the user's)."""
    if isinstance(message, SystemMessage):
        return "system"
    return "assistant" if isinstance(message, AssistantMessage) else "user"


def message_text(message: Any) -> str:
    """An AutoGen message's content as text."""
    return message.content if isinstance(message.content, str) else str(message.content)


class OneCallClient(ChatCompletionClient):
    """A client whose subclass's ``create`` is one call of another library; the rest is shared: not streamed
    (``create_stream`` is one ``create``), nothing to close, a plain text model, the usage of every call so far
    (``add_usage``)."""

    def __init__(self, settings: ModelSettings | None = None) -> None:
        self.settings = settings  # the role's settings (None: a client that keeps its own, ``LiteralClient``)
        self._usage = self._last = RequestUsage(prompt_tokens=0, completion_tokens=0)

    def add_usage(self, prompt: int, completion: int, cached: int | None = None) -> RequestUsage:
        """Count one call's tokens into the total (``cached``, when known: its cached prompt tokens, noted in the
        current call's ``CallMeta``); the call's own usage."""
        meta = current_call()
        if meta is not None and cached is not None:
            meta.cached_prompt_tokens = cached
        self._usage = RequestUsage(
            prompt_tokens=self._usage.prompt_tokens + prompt,
            completion_tokens=self._usage.completion_tokens + completion,
        )
        self._last = RequestUsage(prompt_tokens=prompt, completion_tokens=completion)
        return self._last

    def create_stream(self, messages: Sequence[Any], **kwargs: Any) -> AsyncGenerator[Any, None]:
        """Not streamed: one ``create`` (the debates do not stream)."""

        async def one() -> AsyncGenerator[CreateResult, None]:
            yield await self.create(messages, **kwargs)

        return one()

    async def close(self) -> None:
        """Nothing to close: the other library keeps its own clients (a client over an SDK closes it)."""

    def total_usage(self) -> RequestUsage:
        """Tokens of every call so far."""
        return self._usage

    actual_usage = total_usage

    def count_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        """A rough count (four characters a token): nothing here trims a context by tokens."""
        return sum(len(str(message.content)) for message in messages) // 4

    def remaining_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        """Unknown to this client: a large number."""
        return 1_000_000

    @property
    def model_info(self) -> Any:
        """A plain text model."""
        return GENERIC_MODEL_INFO

    capabilities = model_info  # type: ignore[assignment]
