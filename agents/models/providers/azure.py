"""``azure``: Azure OpenAI through AutoGen's ``AzureOpenAIChatCompletionClient`` (the OpenAI SDK's
``AsyncAzureOpenAI``).

- Endpoint: ``AZURE_OPENAI_ENDPOINT`` or ``--base-url`` (``https://RESOURCE.openai.azure.com``); requests go
  to ``/openai/deployments/DEPLOYMENT/chat/completions?api-version=VERSION``.
- Deployment: ``DEBATE_EVAL_<ROLE>_DEPLOYMENT``, else ``AZURE_OPENAI_DEPLOYMENT``, else the model name.
  ``--model`` names the model behind the deployment (``gpt-4o``): it is what prices and the config hash use.
- api-version: ``DEBATE_EVAL_<ROLE>_API_VERSION``, else ``AZURE_OPENAI_API_VERSION``, else
  ``OPENAI_API_VERSION``, else ``DEFAULT_API_VERSION`` (a generally available version).
- Credentials: ``AZURE_OPENAI_API_KEY`` (or the role's own key), sent as the ``api-key`` header; with no key,
  a Microsoft Entra ID token from ``azure-identity``'s ``DefaultAzureCredential`` (``pip install
  'debate-eval[azure]'``), sent as ``Authorization: Bearer``.
- ``--batch`` is refused (Azure's Batch API needs a global-batch deployment; it has not been tested here).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers import Provider, register_provider
from debate_eval.agents.models.providers.openai import with_model_info
from debate_eval.agents.models.settings import ModelSettings

DEFAULT_API_VERSION = "2024-10-21"
ENTRA_SCOPE = "https://cognitiveservices.azure.com/.default"


def entra_token_provider() -> Any:
    """A bearer-token provider from ``azure-identity``'s ``DefaultAzureCredential`` (environment, managed
    identity, Azure CLI, ...); one line naming the extra when the package is missing.

    The synchronous credential: its async twin needs ``aiohttp`` besides. It caches the token and refreshes it
    shortly before it expires (about hourly), the only moment it holds up the event loop.
    """
    try:
        from azure.identity import DefaultAzureCredential, get_bearer_token_provider
    except ImportError:
        raise UserError(
            "the azure provider with no API key (AZURE_OPENAI_API_KEY) signs in with Microsoft Entra ID, which "
            "needs the Python package 'azure-identity': pip install 'debate-eval[azure]'"
        ) from None
    return get_bearer_token_provider(DefaultAzureCredential(), ENTRA_SCOPE)


@register_provider
class AzureProvider(Provider):
    """Azure OpenAI: endpoint, deployment, api-version, key or Entra ID token."""

    name = "azure"
    description = "Azure OpenAI (AZURE_OPENAI_ENDPOINT, deployment, api-version; key or Entra ID token)"
    user_endpoint = True
    key_variables = ("AZURE_OPENAI_API_KEY",)
    url_variables = ("AZURE_OPENAI_ENDPOINT",)

    def role_settings(self, prefix: str, env: Mapping[str, str]) -> dict[str, Any]:
        """The role's deployment (None: the model name) and api-version."""
        deployment = env.get(prefix + "DEPLOYMENT") or env.get("AZURE_OPENAI_DEPLOYMENT") or None
        version = (
            env.get(prefix + "API_VERSION")
            or env.get("AZURE_OPENAI_API_VERSION")
            or env.get("OPENAI_API_VERSION")
            or DEFAULT_API_VERSION
        )
        return {"deployment": deployment, "api_version": version}

    def build_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> Any:
        """AutoGen's ``AzureOpenAIChatCompletionClient`` for the role's deployment (SDK retries off)."""
        from autogen_ext.models.openai import AzureOpenAIChatCompletionClient

        if not base_url:
            raise UserError("the azure provider needs an endpoint: set AZURE_OPENAI_ENDPOINT or pass --base-url")
        kwargs: dict[str, Any] = {
            "model": settings.model,
            "azure_endpoint": base_url,
            "azure_deployment": settings.deployment or settings.model,
            "api_version": settings.api_version or DEFAULT_API_VERSION,
            "timeout": settings.timeout_s,
            "max_retries": 0,
            "include_name_in_message": False,
            **self.create_args(settings),
        }
        key = settings.configured_key()
        if key:
            kwargs["api_key"] = key
        else:
            kwargs["azure_ad_token_provider"] = entra_token_provider()
        if http_client is not None:
            kwargs["http_client"] = http_client
        return with_model_info(AzureOpenAIChatCompletionClient, kwargs)
