"""``litellm``: every role through ``litellm.acompletion`` (extra ``[litellm]``): LiteLLM's 100+ providers by
its model names (``--model anthropic/claude-sonnet-4-5``, ``bedrock/...``, ``openai/<model>`` with
``--base-url`` for any OpenAI-compatible server), each provider's key read by LiteLLM from its usual variable
(``ANTHROPIC_API_KEY``, ...) unless ``DEBATE_EVAL_<ROLE>_API_KEY`` or ``LITELLM_API_KEY`` gives one.

The client sits under the run's layers as any provider's: the rate limiter (which reads the answer's
rate-limit headers, as LiteLLM passes them on), the retries (LiteLLM's own are off; its errors are the OpenAI
SDK's classes), the response cache, the answer check and the redaction of secrets.
"""

from __future__ import annotations

from typing import Any

from debate_eval.agents.models.providers import Provider, register_provider
from debate_eval.agents.models.settings import ModelSettings

LITELLM = "litellm"
# LiteLLM reads its price map from its own package, not the network, unless the user says otherwise
LOCAL_COST_MAP = ("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@register_provider
class LiteLLMProvider(Provider):
    """LiteLLM's ``acompletion``: ``--model`` is a LiteLLM model name; ``--base-url`` its ``api_base``."""

    name = LITELLM
    description = "LiteLLM's providers by LiteLLM model name (--model anthropic/claude-sonnet-4-5; extra [litellm])"
    extra = LITELLM
    sdk_module = LITELLM
    user_endpoint = True
    key_variables = ("LITELLM_API_KEY",)
    url_variables = ("LITELLM_API_BASE",)

    def build_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> Any:
        """A ``LiteLLMClient`` (LiteLLM keeps its own HTTP clients)."""
        from debate_eval.agents.models.providers.litellm_client import LiteLLMClient

        return LiteLLMClient(settings, base_url, self.create_args(settings))
