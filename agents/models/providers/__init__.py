"""Model providers: where a role's requests go, and what has to run for them. One module per provider.

==============  ==========================================================================================
``openai``      any OpenAI-compatible endpoint (``--base-url`` / an API key); nothing is started
``embedded``    the embedded llama.cpp server (no key, no URL): started for the run, its slots shared
``scripted``    the scripted test server (``--provider scripted``): canned replies per role, no model at all
==============  ==========================================================================================

Every provider speaks the OpenAI chat-completions protocol, so one client type (AutoGen's
``OpenAIChatCompletionClient``) serves them all; a provider says where the requests go (``base_url``), what
server to start for a run (``start``), how its endpoint enters the config hash (``endpoint_identity``) and
its defaults. Built-ins are registered lazily (``BUILTIN_MODULES``), so importing this package is cheap.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from debate_eval.agents.errors import UserError

if TYPE_CHECKING:
    from debate_eval.agents.models.settings import EmbeddedSettings, ModelConfig, ModelSettings

BUILTIN_MODULES = (
    "debate_eval.agents.models.providers.openai",
    "debate_eval.agents.models.providers.embedded",
    "debate_eval.agents.models.providers.scripted",
)


class Provider:
    """One kind of model endpoint. Subclass, set ``name``, override what differs, ``@register_provider``."""

    name: str = ""
    description: str = ""
    default_model: str | None = None  # the model name when none is configured (None: one is required)
    default_max_tokens: int | None = None  # a completion cap when none is configured
    shares_slots: bool = False  # requests wait for the server's parallel slots (one limit per run)
    user_endpoint: bool = False  # requests go to the user's --base-url with the user's API key

    def endpoint_identity(self, settings: ModelSettings, embedded: EmbeddedSettings) -> Any:
        """What identifies the endpoint in config hashes and cache keys (never a secret)."""
        from debate_eval.agents.models.settings import public_url

        return public_url(settings.base_url) if settings.base_url else None

    def start(self, config: ModelConfig, roles: list[str], out_dir: Path, stack: contextlib.ExitStack) -> str | None:
        """Start what the run needs for ``roles`` (stopped when ``stack`` closes); the base URL it serves at,
        or None when nothing is started."""
        return None

    def base_url(self, settings: ModelSettings, started: str | None) -> str | None:
        """Where ``settings``' requests go, given what ``start`` returned."""
        return settings.base_url


_REGISTRY: dict[str, Provider] = {}
_LOADED = False
P = TypeVar("P")


def register_provider(provider: P) -> P:
    """Register a ``Provider`` instance or (as a class decorator) an instance of the class."""
    instance = provider() if isinstance(provider, type) else provider
    if not isinstance(instance, Provider) or not instance.name:
        raise TypeError(f"register_provider: {provider!r} is not a named Provider")
    _REGISTRY[instance.name] = instance
    return provider


def _load() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for module in BUILTIN_MODULES:
            importlib.import_module(module)


def all_providers() -> dict[str, Provider]:
    """Every registered provider by name."""
    _load()
    return dict(_REGISTRY)


def get_provider(name: str) -> Provider:
    """The provider called ``name``; a ``UserError`` lists the valid names otherwise."""
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UserError(f"unknown model provider {name!r}; providers are: {', '.join(_REGISTRY)}") from None


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
