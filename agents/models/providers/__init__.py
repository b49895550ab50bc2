"""Model providers: client factories. One module per provider; each builds the AutoGen ``ChatCompletionClient``
its endpoint needs.

==============  ==========================================================================================
``openai``      any OpenAI-compatible endpoint (``--base-url`` / ``OPENAI_API_KEY``): OpenAI, vLLM, SGLang,
                LM Studio, llama.cpp's server, a LiteLLM proxy; AutoGen's OpenAI client
``azure``       Azure OpenAI (endpoint, deployment, api-version, key or Entra token);
                ``AzureOpenAIChatCompletionClient``
``anthropic``   Anthropic's native Messages API; ``AnthropicChatCompletionClient`` (extra ``[anthropic]``)
``gemini``      Google's OpenAI-compatible Gemini endpoint; AutoGen's OpenAI client
``ollama``      Ollama through its OpenAI-compatible route (``/v1``); AutoGen's OpenAI client
``embedded``    the embedded llama.cpp server (no key, no URL): started for the run, its slots shared
``scripted``    the scripted test server (``--provider scripted``): canned replies per role, no model at all
``inspect``     inspect_ai's models (``--model openai/gpt-4o``, ``role:grader``): inspect's ``generate``
``litellm``     LiteLLM's providers by LiteLLM model name (``--model anthropic/...``): ``litellm.acompletion``
``deepeval``    a model object of the host program (deepeval's ``DeepEvalBaseLLM``), registered in the process
==============  ==========================================================================================

A provider says where a role's requests go (``base_url``), which variables hold its key and URL, what server
to start for a run (``start``), what identifies its model in config hashes and cache keys
(``endpoint_identity``: never a URL, so ``localhost`` and ``127.0.0.1`` are the same run), which request
options it sends (``create_args``: the place for provider-specific options, e.g. structured output), and how
its client is built (``build_client``). The HTTP client every provider's SDK uses comes from the pool
(``agents/models/pool.py``), never from a provider: proxies, CA bundles, deadlines and observation live there.
Built-ins are registered lazily (``BUILTIN_MODULES``), so importing this package is cheap.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.agents.lazy_modules import LazyModules

if TYPE_CHECKING:
    from autogen_core.models import ChatCompletionClient

    from debate_eval.agents.models.answer_format import AnswerFormat
    from debate_eval.agents.models.served_model import ServedModel
    from debate_eval.agents.models.settings import EmbeddedSettings, ModelConfig, ModelSettings

BUILTIN_MODULES = (
    "debate_eval.agents.models.providers.openai",
    "debate_eval.agents.models.providers.azure",
    "debate_eval.agents.models.providers.anthropic.provider",
    "debate_eval.agents.models.providers.gemini",
    "debate_eval.agents.models.providers.ollama",
    "debate_eval.agents.models.providers.embedded",
    "debate_eval.agents.models.providers.scripted",
    "debate_eval.agents.models.providers.inspect_models",
    "debate_eval.agents.models.providers.litellm_provider",
    "debate_eval.agents.models.providers.callable_models",
)


class Provider:
    """One kind of model endpoint. Subclass, set ``name``, override what differs, ``@register_provider``."""

    name: str = ""
    description: str = ""
    default_model: str | None = None  # the model name when none is configured (None: one is required)
    default_max_tokens: int | None = None  # a completion cap when none is configured
    default_timeout_s: float = 120.0  # a call's timeout when none is configured (--timeout)
    shares_slots: bool = False  # requests wait for the server's parallel slots (one limit per run)
    user_endpoint: bool = False  # requests go to the user's endpoint (URL, key), not a server of the run's own
    key_variables: tuple[str, ...] = ()  # where the API key is read from after DEBATE_EVAL_<ROLE>_API_KEY
    url_variables: tuple[str, ...] = ()  # where the base URL is read from after the flags and the role's own
    default_base_url: str | None = None  # the endpoint when no URL is configured
    supports_batch: bool = False  # run --batch (the OpenAI Batch API routes /v1/files, /v1/batches)
    extra: str | None = None  # the pip extra that installs its SDK (``debate-eval[NAME]``), None: always there
    sdk_module: str | None = None  # the module the extra provides (checked before a client is built)
    # how `--answer-format auto` requests this provider's answers: "grammar" (the embedded toy model) or "free"
    auto_answer_mode: str = "free"
    # the answer formats it can request (answer_request): "json" (a response schema), "grammar" (llama.cpp's)
    answer_modes: tuple[str, ...] = ("json",)
    # the provider's library caches and limits connections itself (inspect_ai): the pool leaves out its response
    # cache and rate limiter for it (retries and the answer check stay)
    own_call_layers: bool = False
    # the run's endpoint check (one tiny request before the first call) applies; False for a model of the host
    # program or of another library's eval, which has no endpoint of the run's to check
    checks_endpoint: bool = True

    def answer_modes_of(self, model: str | None) -> tuple[str, ...]:
        """The answer formats this provider can request of ``model``: ``answer_modes``, less what the
        provider's own tables say the model cannot take (checked before the first call of a run)."""
        return self.answer_modes

    def endpoint_identity(self, settings: ModelSettings, embedded: EmbeddedSettings) -> Any:
        """What, besides provider and model name, identifies the model in config hashes and cache keys.

        Never the URL (``localhost`` or ``127.0.0.1``, one port or another, reach the same model) and never a
        secret; None for a user's endpoint. A server of the run's own names what it serves (a GGUF checksum).
        """
        return None

    async def served_model(
        self, settings: ModelSettings, base_url: str | None, http_client: Any, embedded: EmbeddedSettings
    ) -> ServedModel:
        """What identifies the weights served under ``settings.model`` (``agents/models/served_model.py``),
        asked of the server through ``http_client`` (the run's: proxies, CA bundle) with the role's key, at
        most ``settings.timeout_s``; best effort: a server that says nothing gives None and the reason. This
        default: none (the provider's API names no weights)."""
        from debate_eval.agents.models.served_model import ServedModel

        return ServedModel.unknown(f"the {self.name} API reports no weight identity")

    def role_settings(self, prefix: str, env: Mapping[str, str]) -> dict[str, Any]:
        """Provider-specific ``ModelSettings`` fields of one role, from its variables (``prefix`` is
        ``DEBATE_EVAL_<ROLE>_``) and the provider's own (e.g. Azure's deployment and api-version)."""
        return {}

    def start(self, config: ModelConfig, roles: list[str], out_dir: Path, stack: contextlib.ExitStack) -> str | None:
        """Start what the run needs for ``roles`` (stopped when ``stack`` closes); the base URL it serves at,
        or None when nothing is started."""
        return None

    def base_url(self, settings: ModelSettings, started: str | None) -> str | None:
        """Where ``settings``' requests go, given what ``start`` returned."""
        return settings.base_url or self.default_base_url

    def create_args(self, settings: ModelSettings) -> dict[str, Any]:
        """The request options sent with every call of ``settings``' role, in this provider's API.

        The one place for provider-specific request options: sampling mapped to what the API accepts, and
        options such as structured output (a subclass, or a wrapper of this method, adds them here).
        """
        return settings.sampling.create_args()

    def check_installed(self) -> None:
        """Raise a one-line ``UserError`` naming the extra when the provider's SDK is not installed."""
        if self.sdk_module and importlib.util.find_spec(self.sdk_module) is None:
            raise UserError(
                f"the {self.name} provider needs the Python package {self.sdk_module!r}: "
                f"pip install 'debate-eval[{self.extra or self.name}]'"
            )

    def check_batch(self) -> None:
        """Raise a one-line ``UserError`` when ``run --batch`` cannot use this provider."""
        if not self.supports_batch:
            raise UserError(f"--batch is not available with the {self.name} provider; run without --batch")

    def build_client(self, settings: ModelSettings, base_url: str | None, http_client: Any) -> ChatCompletionClient:
        """AutoGen's client for ``settings`` at ``base_url``; its SDK's requests go through ``http_client``
        (the run's HTTP client: proxies, CA bundle, observation) and its own retries are off (the pool's
        ``RetryingClient`` retries)."""
        raise NotImplementedError(f"provider {self.name!r} builds no client")

    def answer_request(self, fmt: AnswerFormat) -> dict[str, Any]:
        """Provider-specific request options (AutoGen ``extra_create_args``) that ask for ``fmt``: its
        completion cap, and its grammar or JSON schema. The default speaks the OpenAI-compatible dialects:
        ``grammar`` is llama.cpp's ``grammar`` field (GBNF, sent in the body), ``json`` is OpenAI's
        ``response_format`` with a strict JSON schema (OpenAI, Azure, Gemini's OpenAI route, llama.cpp, vLLM,
        SGLang). A kind with no schema (a critique, a list, free text) is only capped."""
        from debate_eval.agents.models.answer_format import GRAMMAR, json_schema_response_format

        args: dict[str, Any] = {}
        if fmt.max_tokens is not None:
            args["max_tokens"] = fmt.max_tokens
        if fmt.mode == GRAMMAR:
            grammar = fmt.grammar()
            if grammar is not None:
                args["extra_body"] = {"grammar": grammar}
        elif fmt.json_schema() is not None:
            args["response_format"] = json_schema_response_format(fmt)
        return args


_REGISTRY: dict[str, Provider] = {}
_BUILTINS = LazyModules(BUILTIN_MODULES)
P = TypeVar("P")


def register_provider(provider: P) -> P:
    """Register a ``Provider`` instance or (as a class decorator) an instance of the class."""
    instance = provider() if isinstance(provider, type) else provider
    if not isinstance(instance, Provider) or not instance.name:
        raise TypeError(f"register_provider: {provider!r} is not a named Provider")
    _REGISTRY[instance.name] = instance
    return provider


def all_providers() -> dict[str, Provider]:
    """Every registered provider by name: the built-ins in ``BUILTIN_MODULES`` order (whichever was imported
    first), then the others in the order they were registered."""
    _BUILTINS.load()
    rank = {module: index for index, module in enumerate(BUILTIN_MODULES)}
    return dict(sorted(_REGISTRY.items(), key=lambda item: rank.get(type(item[1]).__module__, len(rank))))


def get_provider(name: str) -> Provider:
    """The provider called ``name``; a ``UserError`` lists the valid names otherwise."""
    _BUILTINS.load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UserError(f"unknown model provider {name!r}; providers are: {', '.join(all_providers())}") from None


def start_providers(
    config: ModelConfig, roles: Iterable[str], out_dir: Path, stack: contextlib.ExitStack
) -> Mapping[str, str]:
    """Start what every provider of ``roles`` needs; ``{provider name: base URL}`` of what was started."""
    by_provider: dict[str, list[str]] = {}
    for role in roles:
        by_provider.setdefault(config.for_role(role).provider, []).append(role)
    started: dict[str, str] = {}
    for name, members in by_provider.items():
        url = get_provider(name).start(config, members, out_dir, stack)
        if url is not None:
            started[name] = url
    return started
