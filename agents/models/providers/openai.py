"""``openai``: any OpenAI-compatible endpoint (OpenAI, vLLM, SGLang, LM Studio, llama.cpp's server, a LiteLLM
proxy, ...), by base URL, through ``OpenAIChatClient`` (``agents/models/chat_client.py``: AutoGen's OpenAI client's
requests and results) over the SDK's ``AsyncOpenAI``, its bodies posted as they are (``sdk_body_passthrough.py``).

``OpenAIWireProvider`` is the base of every provider that speaks OpenAI chat completions (this one, Gemini,
Ollama, the embedded and the scripted servers): they differ in where requests go and which variables hold
the key, not in the client.
"""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from debate_eval.agents.models.providers import Provider, register_provider
from debate_eval.agents.models.served_model import ServedModel, failure_reason, from_openai_models
from debate_eval.agents.models.settings import EmbeddedSettings, ModelSettings

if TYPE_CHECKING:  # AutoGen loads when a client is made: the provider registry (run --help) stays light
    from autogen_core.models import ModelInfo

OPENAI_API_URL = "https://api.openai.com/v1"
T = TypeVar("T")
# AutoGen's ModelInfo is a TypedDict: this literal is one (family "unknown" is ModelFamily.UNKNOWN)
GENERIC_MODEL_INFO: ModelInfo = {
    "vision": False,
    "function_calling": False,
    "json_output": False,
    "family": "unknown",
    "structured_output": False,
}


def with_model_info(client_class: Callable[..., T], kwargs: dict[str, Any], info: ModelInfo = GENERIC_MODEL_INFO) -> T:
    """``client_class(**kwargs)``, AutoGen's client; for a model name AutoGen does not know (its documented
    "model_info is required" ``ValueError``) again with ``info`` (default ``GENERIC_MODEL_INFO``: a plain text
    model). (Public API only: AutoGen's model table is a private module.)"""
    try:
        return client_class(**kwargs)
    except ValueError as exc:
        if "model_info is required" not in str(exc):
            raise
    return client_class(**kwargs, model_info=info)


class OpenAIWireProvider(Provider):
    """A provider whose endpoint speaks OpenAI chat completions; ``build_client`` makes ``OpenAIChatClient`` over
    ``sdk_body_passthrough.PlainBodyClient`` (public APIs: the SDK's ``post``, AutoGen's public interfaces)."""

    def client_options(self, settings: ModelSettings) -> dict[str, Any]:
        """Client settings besides model, URL, key and HTTP client (e.g. the OpenAI organisation)."""
        return {}

    def build_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> Any:
        """The OpenAI-compatible client for ``settings`` (SDK retries off: ``RetryingClient`` retries).

        The base URL is always given, so AutoGen never picks one from the model's name (it sends a
        ``claude-*`` or ``gemini-*`` model to Anthropic's or Google's URL when none is given). With
        ``settings.sampling.literal`` (``--fidelity authors-code``) a ``LiteralClient`` instead: the same SDK
        settings, and requests that hold only model, messages and the set fields (AutoGen's client always
        adds ``"stream": false``).
        """
        sdk_client = self.sdk_client(settings, base_url, http_client)
        if settings.sampling.literal:
            from debate_eval.agents.models.exact_body_client import LiteralClient

            return LiteralClient(sdk_client, settings.model, self.create_args(settings))
        from debate_eval.agents.models.sdk_body_passthrough import plain_body_chat_client

        create_args = {"model": settings.model, **self.create_args(settings)}
        kwargs = {"sdk_client": sdk_client, "create_args": create_args}
        field = self.session_body_field(base_url)
        if field is not None:
            kwargs["session_field"] = field
        return with_model_info(plain_body_chat_client, kwargs)

    def session_body_field(self, base_url: str | None) -> str | None:
        """The body field that carries a debate's session key to this endpoint (``affinity.py``), or None: only
        the OpenAI API reads one (``prompt_cache_key``); other servers get the key in headers only."""
        return None

    async def get_json(self, settings: ModelSettings, base_url: str | None, http_client: Any, route: str) -> Any:
        """The JSON answer to ``GET route`` (relative to ``base_url``, or an absolute URL) through the SDK's
        documented request method (``AsyncOpenAI.get``: the role's key, ``http_client``, no retries), within
        the role's timeout."""
        sdk = self.sdk_client(settings, base_url, http_client)  # not closed: that would close the shared client
        return await asyncio.wait_for(sdk.get(route, cast_to=object), settings.timeout_s)

    def sdk_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> Any:
        """The ``openai.AsyncOpenAI`` of both clients: key, URL, timeout, no SDK retries (the stack retries),
        this provider's options and the shared HTTP client."""
        import openai

        kwargs: dict[str, Any] = {
            "base_url": base_url or OPENAI_API_URL,
            "api_key": settings.api_key(),
            "timeout": settings.timeout_s,
            "max_retries": 0,
            **self.client_options(settings),
        }
        if http_client is not None:
            kwargs["http_client"] = http_client
        return openai.AsyncOpenAI(**kwargs)


class RunServerProvider(OpenAIWireProvider):
    """A server the run starts itself (``start``: the embedded and scripted ones), whose requests go where it
    serves; it takes a llama.cpp grammar or a JSON schema."""

    answer_modes = ("grammar", "json")

    def base_url(self, settings: ModelSettings, started: str | None) -> str:
        """The server started for this run."""
        if started is None:
            raise RuntimeError(f"the {self.name} server must be started before its clients are built")
        return started


@register_provider
class OpenAICompatible(OpenAIWireProvider):
    """Requests go to the configured base URL (default: the OpenAI API); a model name is required."""

    name = "openai"
    answer_modes = ("grammar", "json")  # llama.cpp's grammar field (any llama.cpp server), or a response schema
    description = "an OpenAI-compatible endpoint (--base-url, API key from the environment)"
    user_endpoint = True
    key_variables = ("OPENAI_API_KEY",)
    url_variables = ("OPENAI_BASE_URL",)
    supports_batch = True
    default_base_url = OPENAI_API_URL

    async def served_model(
        self, settings: ModelSettings, base_url: str | None, http_client: Any, embedded: EmbeddedSettings
    ) -> ServedModel:
        """vLLM's ``root`` or llama.cpp's ``meta`` from ``GET /models`` (``served_model.from_openai_models``);
        none for the OpenAI API itself (its ``/models`` names no weights)."""
        host = urllib.parse.urlsplit(base_url or OPENAI_API_URL).hostname or ""
        if host == "api.openai.com":
            return ServedModel.unknown("the OpenAI API reports no weight identity")
        try:
            body = await self.get_json(settings, base_url, http_client, "/models")
        except Exception as error:  # best effort: a server without the route still runs
            return ServedModel.unknown(failure_reason("GET /models", error))
        return from_openai_models(body, settings.model)

    def session_body_field(self, base_url: str | None) -> str | None:
        """``prompt_cache_key`` for the OpenAI API itself (its prompt cache routes by it)."""
        from debate_eval.agents.models.affinity import BODY_FIELD, OPENAI_API_HOST

        host = urllib.parse.urlsplit(base_url or OPENAI_API_URL).hostname or ""
        return BODY_FIELD if host == OPENAI_API_HOST else None

    def role_settings(self, prefix: str, env: Mapping[str, str]) -> dict[str, Any]:
        """The OpenAI organisation: ``DEBATE_EVAL_<ROLE>_ORGANIZATION``, else ``OPENAI_ORG_ID``."""
        organization = env.get(prefix + "ORGANIZATION") or env.get("OPENAI_ORG_ID") or None
        return {"organization": organization} if organization else {}

    def client_options(self, settings: ModelSettings) -> dict[str, Any]:
        """The organisation header (``OpenAI-Organization``) when one is set."""
        return {"organization": settings.organization} if settings.organization else {}
