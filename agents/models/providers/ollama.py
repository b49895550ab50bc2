"""``ollama``: a model served by Ollama, through Ollama's OpenAI-compatible route (``/v1/chat/completions``)
and AutoGen's ``OpenAIChatCompletionClient``.

Why not AutoGen's ``OllamaChatCompletionClient`` (the native ``/api/chat``): it builds the ``ollama``
package's client from the host alone (autogen-ext 0.7.5 passes no headers, timeout or HTTP client to it), so
the run's HTTP client (proxies, CA bundle, usage observation, the pool's limits), an API key for an Ollama
behind a gateway and the timeout could only be set by replacing a private attribute; and the ``ollama``
package speaks through ``httpx`` 0.x, not the ``httpx2`` the OpenAI and Anthropic SDKs share. The OpenAI
route reports the same token usage (``prompt_eval_count`` / ``eval_count`` as ``usage``) and takes the same
sampling options (temperature, top_p, seed, penalties, max_tokens). What it cannot set is the context length
(``num_ctx``): set ``OLLAMA_CONTEXT_LENGTH`` on the server (or a Modelfile's ``PARAMETER num_ctx``), since
Ollama's default context (a few thousand tokens) truncates long prompts silently.

- Host: ``OLLAMA_HOST`` or ``--base-url`` (``http://127.0.0.1:11434``, ``127.0.0.1:11434``, or with
  ``/v1``), default ``http://127.0.0.1:11434``.
- Key: none for a local server; ``OLLAMA_API_KEY`` (or the role's own) when a gateway wants one.
- Model: required, as Ollama names it (``llama3.1:8b``).
"""

from __future__ import annotations

from typing import Any

from debate_eval.agents.models.providers import register_provider
from debate_eval.agents.models.providers.openai import OpenAIWireProvider
from debate_eval.agents.models.served_model import ServedModel, failure_reason, from_ollama_tags
from debate_eval.agents.models.settings import EmbeddedSettings, ModelSettings

OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434"


def ollama_root(host: str) -> str:
    """The server's root URL from an ``OLLAMA_HOST``-style value (scheme optional, ``/v1`` optional)."""
    url = host.strip()
    if "://" not in url:
        url = f"http://{url}"
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


@register_provider
class OllamaProvider(OpenAIWireProvider):
    """Ollama's OpenAI-compatible route."""

    name = "ollama"
    description = "a model served by Ollama (OLLAMA_HOST, default http://127.0.0.1:11434; its OpenAI route)"
    user_endpoint = True
    key_variables = ("OLLAMA_API_KEY",)
    url_variables = ("OLLAMA_HOST",)
    default_base_url = OLLAMA_DEFAULT_HOST

    def base_url(self, settings: ModelSettings, started: str | None) -> str:
        """``ROOT/v1`` of the configured host."""
        return ollama_root(settings.base_url or OLLAMA_DEFAULT_HOST) + "/v1"

    async def served_model(
        self, settings: ModelSettings, base_url: str | None, http_client: Any, embedded: EmbeddedSettings
    ) -> ServedModel:
        """The model's ``digest`` from ``GET ROOT/api/tags`` (``served_model.from_ollama_tags``)."""
        root = ollama_root(base_url or settings.base_url or OLLAMA_DEFAULT_HOST)
        try:
            body = await self.get_json(settings, base_url, http_client, f"{root}/api/tags")
        except Exception as error:  # best effort: a gateway without the route still runs
            return ServedModel.unknown(failure_reason("GET /api/tags", error))
        return from_ollama_tags(body, settings.model)
