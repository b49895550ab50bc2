"""The ``litellm`` provider's client: an AutoGen ``ChatCompletionClient`` whose ``create`` is one
``litellm.acompletion`` (``litellm_provider.py`` says what it serves)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

from autogen_core.models import CreateResult

from debate_eval.agents.models.chat_client import token_logprobs
from debate_eval.agents.models.http_usage import cached_tokens
from debate_eval.agents.models.providers.litellm_provider import LOCAL_COST_MAP
from debate_eval.agents.models.providers.one_call_client import OneCallClient, message_role, message_text
from debate_eval.agents.models.rate_client import note_rate_limit_headers
from debate_eval.agents.models.settings import ModelSettings

PROVIDER_HEADER_PREFIX = "llm_provider-"  # how LiteLLM passes on the provider's own response headers


def import_litellm() -> Any:
    """``litellm``, imported with its packaged price map (no network at import) unless the user chose."""
    os.environ.setdefault(*LOCAL_COST_MAP)
    import litellm

    return litellm


def chat_messages(messages: Sequence[Any]) -> list[dict[str, str]]:
    """AutoGen's messages as OpenAI chat messages (text only)."""
    return [{"role": message_role(message), "content": message_text(message)} for message in messages]


def provider_headers(response: Any) -> dict[str, str]:
    """The provider's response headers LiteLLM passed on (``_hidden_params``' ``additional_headers``,
    ``llm_provider-`` prefix removed)."""
    hidden = getattr(response, "_hidden_params", None) or {}
    found: dict[str, str] = {}
    for name, value in dict(hidden.get("additional_headers") or {}).items():
        key = str(name).removeprefix(PROVIDER_HEADER_PREFIX)
        found.setdefault(key.lower(), str(value))
    return found


class LiteLLMClient(OneCallClient):
    """One ``litellm.acompletion`` per ``create``: the role's model, ``api_base``, key, timeout, sampling (with
    ``logprobs``/``top_logprobs``, read back as the OpenAI client reads them); no LiteLLM retries (the run's
    ``RetryingClient`` retries LiteLLM's errors, which are the OpenAI SDK's)."""

    def __init__(self, settings: ModelSettings, base_url: str | None, create_args: Mapping[str, Any]) -> None:
        super().__init__(settings)
        self.base_url = base_url
        self.create_args = dict(create_args)

    async def create(self, messages: Sequence[Any], **kwargs: Any) -> CreateResult:
        """One completion through LiteLLM, as AutoGen's ``CreateResult``."""
        litellm = import_litellm()
        request: dict[str, Any] = {**self.create_args, **dict(kwargs.get("extra_create_args") or {})}
        key = self.settings.configured_key()
        if key:
            request["api_key"] = key
        if self.base_url:
            request["api_base"] = self.base_url
            request.setdefault("api_key", "not-needed")  # a keyless local server still needs a key for the SDK
        response = await litellm.acompletion(
            model=self.settings.model,
            messages=chat_messages(messages),
            timeout=self.settings.timeout_s,
            num_retries=0,
            max_retries=0,
            drop_params=True,  # a sampling option the provider does not take is left out, not an error
            **request,
        )
        await note_rate_limit_headers(SimpleNamespace(headers=provider_headers(response)))  # what the hook reads
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        details = usage.model_dump() if hasattr(usage, "model_dump") else {}
        call_usage = self.add_usage(prompt, completion, cached_tokens(details) if usage is not None else None)
        choice = response.choices[0]
        finish = str(choice.finish_reason or "stop")
        return CreateResult(
            finish_reason=finish if finish in ("stop", "length", "content_filter") else "unknown",  # type: ignore[arg-type]
            content=choice.message.content or "",
            usage=call_usage,
            cached=False,
            logprobs=token_logprobs(getattr(choice, "logprobs", None)),
        )

    def count_tokens(self, messages: Sequence[Any], **kwargs: Any) -> int:
        """LiteLLM's count for the model."""
        return int(import_litellm().token_counter(model=self.settings.model, messages=chat_messages(messages)))
