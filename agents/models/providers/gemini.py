"""``gemini``: Google's Gemini models through their OpenAI-compatible endpoint, with AutoGen's
``OpenAIChatCompletionClient`` (no extra package).

- Key: ``GEMINI_API_KEY`` (or ``GOOGLE_API_KEY``, or the role's own), sent as ``Authorization: Bearer``.
- URL: ``GEMINI_BASE_URL`` or ``--base-url``, default ``https://generativelanguage.googleapis.com/v1beta/openai/``
  (requests go to ``.../chat/completions``).
- Model info: AutoGen's for the Gemini names it knows (``gemini-2.0-flash``, ``gemini-2.5-flash``, ...), a
  plain text model otherwise.
- Sampling: temperature, top_p, seed and max_tokens as sent to OpenAI; a frequency or presence penalty of 0
  (the paper's, and the API's default) is left out, as Gemini 2.x models refuse penalties.
- Gemini 2.5 models think before answering, and the thinking counts against ``--max-tokens``: with a small
  cap the answer can come back empty (the item then fails and a rerun asks again).
- ``--batch`` is refused (Gemini's batch mode has not been tested here).
"""

from __future__ import annotations

from typing import Any

from debate_eval.agents.models.providers import register_provider
from debate_eval.agents.models.providers.openai import OpenAIWireProvider
from debate_eval.agents.models.settings import ModelSettings

GEMINI_OPENAI_URL = "https://generativelanguage.googleapis.com/v1beta/openai/"


@register_provider
class GeminiProvider(OpenAIWireProvider):
    """Gemini through the OpenAI-compatible route."""

    name = "gemini"
    description = "Google Gemini through its OpenAI-compatible endpoint (GEMINI_API_KEY)"
    user_endpoint = True
    key_variables = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    url_variables = ("GEMINI_BASE_URL",)
    default_base_url = GEMINI_OPENAI_URL

    def create_args(self, settings: ModelSettings) -> dict[str, Any]:
        """The OpenAI arguments without penalties of 0."""
        args = settings.sampling.create_args()
        for penalty in ("frequency_penalty", "presence_penalty"):
            if not args.get(penalty):
                args.pop(penalty, None)
        return args
