"""``openai``: any OpenAI-compatible endpoint (OpenAI, vLLM, llama.cpp's server, Ollama, ...), by base URL."""

from __future__ import annotations

from debate_eval.agents.models.providers import Provider, register_provider


@register_provider
class OpenAICompatible(Provider):
    """Requests go to the configured base URL (default: the OpenAI API); a model name is required."""

    name = "openai"
    description = "an OpenAI-compatible endpoint (--base-url, API key from the environment)"
    user_endpoint = True
