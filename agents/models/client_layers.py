"""Client layers that pass every call through: the base ``DelegatingClient``, the slot limit of the embedded
server (``LimitedClient``) and the namespaced cache view (``NamespacedStore``). See ``wrappers`` for the stack."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from autogen_core import CacheStore
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,  # type: ignore[attr-defined]
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import Tool, ToolSchema


class DelegatingClient(ChatCompletionClient):
    """Forwards everything to ``inner``; subclasses override ``create``."""

    def __init__(self, inner: ChatCompletionClient) -> None:
        self.inner = inner

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward a completion request (the keyword arguments of ``ChatCompletionClient.create``)."""
        return await self.inner.create(messages, **kwargs)

    def create_stream(  # type: ignore[override]
        self, messages: Sequence[LLMMessage], **kwargs: Any
    ) -> AsyncGenerator[str | CreateResult, None]:
        """Forward a streaming request (no retries, no recording: the debates do not stream)."""
        return self.inner.create_stream(messages, **kwargs)

    async def close(self) -> None:
        """Close the wrapped client."""
        await self.inner.close()

    def actual_usage(self) -> RequestUsage:
        """Usage of the wrapped client."""
        return self.inner.actual_usage()

    def total_usage(self) -> RequestUsage:
        """Usage of the wrapped client."""
        return self.inner.total_usage()

    def count_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        """Token count from the wrapped client."""
        return self.inner.count_tokens(messages, tools=tools)

    def remaining_tokens(self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = []) -> int:
        """Remaining tokens from the wrapped client."""
        return self.inner.remaining_tokens(messages, tools=tools)

    @property
    def capabilities(self) -> ModelCapabilities:  # type: ignore[override]
        """Capabilities of the wrapped client."""
        return self.inner.capabilities

    @property
    def model_info(self) -> ModelInfo:
        """Model info of the wrapped client."""
        return self.inner.model_info


# ----------------------------------------------------------------------------------------- concurrency


class ConcurrencyLimit:
    """At most ``limit`` requests at once over every client that shares it.

    The semaphore is made on first use, on the running event loop (and again if a later run uses another).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def semaphore(self) -> asyncio.Semaphore:
        """The semaphore of the running event loop."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._semaphore, self._loop = asyncio.Semaphore(self.limit), loop
        return self._semaphore


class LimitedClient(DelegatingClient):
    """Waits for a free slot of ``limit`` before each request (the request's timeout starts after the wait)."""

    def __init__(self, inner: ChatCompletionClient, limit: ConcurrencyLimit) -> None:
        super().__init__(inner)
        self.limit = limit

    async def create(self, messages: Sequence[LLMMessage], **kwargs: Any) -> CreateResult:  # type: ignore[override]
        """Forward the request once a slot is free."""
        async with self.limit.semaphore():
            return await self.inner.create(messages, **kwargs)


# ------------------------------------------------------------------------------------------------ cache


class NamespacedStore(CacheStore[Any]):
    """A view of a cache store where every key is prefixed with a namespace (a hash of the settings).

    ``fallbacks``: earlier namespaces of the same settings (e.g. from before the URL left the namespace), read
    when this one has no entry; writes go to this namespace only.
    """

    def __init__(self, inner: CacheStore[Any], namespace: str, fallbacks: Sequence[str] = ()) -> None:
        self.inner = inner
        self.namespace = namespace
        self.fallbacks = tuple(fallbacks)

    def get(self, key: str, default: Any = None) -> Any:
        """Look ``key`` up in this namespace, then in the fallbacks."""
        if not self.fallbacks:
            return self.inner.get(f"{self.namespace}:{key}", default)
        missing = object()
        for namespace in (self.namespace, *self.fallbacks):
            value = self.inner.get(f"{namespace}:{key}", missing)
            if value is not missing:
                return value
        return default

    def set(self, key: str, value: Any) -> None:
        """Store ``value`` under ``key`` in this namespace."""
        self.inner.set(f"{self.namespace}:{key}", value)
