"""The one place that turns model settings into AutoGen model clients.

``ClientPool`` builds one client stack per distinct set of settings and credentials (see ``wrappers``
for the layers), shares it between debates, and hands each debate an ``ObservedClient`` per role. The
innermost client is the role's provider's (``agents/models/providers``: OpenAI-compatible, Azure, Anthropic,
Gemini, Ollama, embedded, scripted), built over the run's HTTP client (``ClientPool.http_client``: the
network layer's ``agents/models/http_client.py``: proxies, CA bundle, deadline, answer cap, observers). Two roles share
a stack only when every setting and credential is equal (``ModelSettings.client_identity``: a role with its
own key, URL, organisation or provider gets its own client); they share cached answers when the model and
sampling are equal (``namespace_for``: no key in it). Every stack that talks to the embedded server shares
one ``ConcurrencyLimit`` of its parallel slots, so ``--concurrency`` sets the debates in flight while the
server never gets more requests than it has slots. Tests (and users who bring their own client) can pass
ready clients per role with ``overrides``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autogen_core import CacheStore
from autogen_core.models import ChatCompletionClient
from autogen_ext.models.cache import ChatCompletionCache

from debate_eval.agents.models.answer_check import AnswerCheckClient
from debate_eval.agents.models.answer_format import FREE, AnswerFormat, AnswerPlan, current_answer_task
from debate_eval.agents.models.batch import BatchDispatcher
from debate_eval.agents.models.chat_client import OpenAIChatClient
from debate_eval.agents.models.http_client import HttpOptions, NetworkOptions, build_http_client
from debate_eval.agents.models.preflight import Endpoint, check_endpoints
from debate_eval.agents.models.providers import get_provider
from debate_eval.agents.models.providers.anthropic.messages_response import check_messages_answer
from debate_eval.agents.models.rate_client import RateLimitedClient, add_rate_limit_hook
from debate_eval.agents.models.rate_limit import RateLimiter, RateOptions
from debate_eval.agents.models.responses import CHAT_OBSERVERS
from debate_eval.agents.models.served_model import ServedModel
from debate_eval.agents.models.settings import (
    EMBEDDED,
    OPENAI,
    ModelConfig,
    ModelSettings,
    public_url,
    stable_hash,
    with_sampling,
)
from debate_eval.agents.models.wrappers import (
    CallRecord,
    ConcurrencyLimit,
    LimitedClient,
    NamespacedStore,
    ObservedClient,
    RetryingClient,
    RetryListener,
    RetryPolicy,
    TransportStats,
    print_retry,
)
from debate_eval.agents.redaction import register_secrets

CACHE_DIR_ENV = "DEBATE_EVAL_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$DEBATE_EVAL_CACHE_DIR``, else ``~/.cache/debate-eval/llm-cache`` (XDG_CACHE_HOME respected)."""
    if os.environ.get(CACHE_DIR_ENV):
        return Path(os.environ[CACHE_DIR_ENV]).expanduser()
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "debate-eval" / "llm-cache"


def provider_http_client(options: HttpOptions | None = None) -> Any:
    """The HTTP client every provider's SDK sends through (the network layer's ``build_http_client`` with the
    chat completion check and cached-token observer, and the Messages API's (``messages_response``): proxies and
    CA bundle from the environment, the deadline, the answer cap). Providers never build their own;
    ``ClientPool.http_client`` shares one per run."""
    return build_http_client(options, (*CHAT_OBSERVERS, check_messages_answer))


def build_client(settings: ModelSettings, base_url: str | None, http: Any = None) -> ChatCompletionClient:
    """The provider's AutoGen client for ``settings`` at ``base_url`` over ``http`` (the SDK's HTTP client);
    a provider whose optional SDK is missing fails in one line naming its extra."""
    provider = get_provider(settings.provider)
    provider.check_installed()
    return provider.build_client(settings, base_url, http)


def build_openai_client(settings: ModelSettings, base_url: str | None, http_client: Any = None) -> OpenAIChatClient:
    """The OpenAI-compatible chat client for ``settings`` (``chat_client.py``: AutoGen's requests and results;
    SDK retries off: ``RetryingClient`` retries); ``http_client``: the SDK's HTTP client (the run's observing or
    batching transport)."""
    return get_provider(OPENAI).build_client(settings, base_url, http_client)  # type: ignore[no-any-return]


def build_checked_client(
    settings: ModelSettings, base_url: str | None, network: NetworkOptions | None = None, *, rate_hook: bool = False
) -> ChatCompletionClient:
    """The provider's client over a fresh HTTP client of the network layer (``provider_http_client``), whose
    200 answers that are no completion raise (``agents/models/responses.py``); ``rate_hook``: the answers'
    rate-limit headers go to the call's ``RateLimiter`` ticket (``rate_client``)."""
    options = (network or NetworkOptions()).http_options(settings.timeout_s)
    http = provider_http_client(options)
    return build_client(settings, base_url, add_rate_limit_hook(http) if rate_hook else http)


def enable_fast_path() -> bool:
    """Turn ``--fast-path`` on (``agents/models/fast_path.py``) if the installed versions are the tested ones;
    otherwise print one line and keep the default path. The module is imported only here: the default path
    never imports a private module."""
    try:
        from debate_eval.agents.models import fast_path
    except ImportError as exc:  # an internal it imports has moved
        problem: str | None = f"an internal it imports is missing ({exc})"
    else:
        problem = fast_path.fast_path_problem()
    if problem is not None:
        print(f"debate-eval: --fast-path is off: {problem}; using the default path", file=sys.stderr)
        return False
    fast_path.quiet_idle_telemetry()
    return True


@dataclass
class _Stack:
    raw: ChatCompletionClient  # the provider's client (closed with the pool)
    shared: ChatCompletionClient  # the whole stack over it


class ClientPool:
    """Builds, shares and closes the model clients of a run."""

    def __init__(
        self,
        config: ModelConfig,
        *,
        server_urls: Mapping[str, str] | None = None,
        embedded_base_url: str | None = None,
        cache: CacheStore[Any] | None = None,
        stats: TransportStats | None = None,
        retry: RetryPolicy | None = None,
        overrides: Mapping[str, ChatCompletionClient] | None = None,
        batch: BatchDispatcher | None = None,
        network: NetworkOptions | None = None,
        on_retry: RetryListener | None = print_retry,
        rate: RateOptions | None = None,
        answers: AnswerPlan | None = None,
        shared_limits: bool = False,
        older_namespace: Callable[[ClientPool, ModelSettings, str], str | None] | None = None,
    ) -> None:
        """``batch``: queue every model call for the Batch API (``run --batch``) instead of sending it;
        ``network``: answer cap, connection pool, ``--fast-path``; ``on_retry``: told of every retry (default:
        one line on stderr; see ``agents/models/retry.py``); ``rate``: budgets and the most calls in flight per
        endpoint and model (``agents/models/rate_limit.py``); ``answers``: the run's answer formats
        (``--answer-format``; None: every answer free); ``shared_limits``: take each endpoint's limiter from
        the process-wide registry (``agents/models/shared_limits.py``) instead of one of this pool's own;
        ``older_namespace``: the cache namespace an earlier version gave a role's settings (and variant), read
        when the current one has no answer (None: no other)."""
        self.config = config
        self.older_namespace = older_namespace
        self.server_urls = dict(server_urls or {})  # provider name -> the server started for the run
        if embedded_base_url is not None:
            self.server_urls[EMBEDDED] = embedded_base_url
        self.cache = cache
        self.stats = stats or TransportStats()
        self.retry = retry
        self.overrides = dict(overrides or {})
        self.embedded_slots = ConcurrencyLimit(config.embedded.parallel)  # shared by every embedded stack
        self._stacks: dict[str, _Stack] = {}
        self._keys: dict[tuple[Any, ...], tuple[str, str]] = {}  # ``shared``'s namespace and stack key, by settings
        self._http_clients: dict[HttpOptions, Any] = {}  # one connection pool per deadline, shared by stacks
        self.batch = batch
        self.network = network or NetworkOptions()
        self.on_retry = on_retry
        if batch is not None:  # refused before the first call, in one line
            for settings in config.roles.values():
                get_provider(settings.provider).check_batch()
        self.fast_path = self.network.fast_path and enable_fast_path()
        self.rate = rate or RateOptions()
        self.limiters: dict[tuple[str, str, str], RateLimiter] = {}  # (provider, endpoint, model) -> limiter
        self.shared_limits = shared_limits
        register_secrets(config.secrets())  # masked in everything the run writes or prints (agents.redaction)
        self.answers = answers
        self.served_models: dict[str, ServedModel] = {}  # by role, from the endpoint check (``preflight``)

    def settings_for(self, role: str, sampling: Mapping[str, Any] | None = None) -> ModelSettings:
        """The settings a role's requests use (``sampling`` changes some decoding fields)."""
        settings = self.config.for_role(role)
        return with_sampling(settings, **sampling) if sampling else settings

    def namespace_for(self, settings: ModelSettings, variant: str = "") -> str:
        """Cache namespace: a hash of everything besides the messages that changes the answer (provider, model,
        sampling, ``variant``): no URL, no key, so every spelling of an endpoint shares its answers."""
        return stable_hash({"identity": settings.identity(self.config.embedded), "variant": variant})[:32]

    def shared(self, role: str, variant: str = "", sampling: Mapping[str, Any] | None = None) -> ChatCompletionClient:
        """The shared client stack for ``role``.

        ``variant`` separates cache entries of otherwise identical requests (e.g. one per G-Eval sample);
        ``sampling`` changes decoding fields (e.g. ``top_logprobs``) for this stack only.
        """
        if role in self.overrides:
            return self.overrides[role]
        settings = self.settings_for(role, sampling)
        # the namespace and client identity are hashes of the settings (JSON, SHA-256): worked out once per
        # settings, variant, embedded model and key value, not for every item
        memo = (settings, variant, self.config.embedded, settings.configured_key())
        known = self._keys.get(memo)
        if known is None:
            namespace = self.namespace_for(settings, variant)
            # own credentials, own client; same model, same cache
            known = self._keys[memo] = (namespace, f"{namespace}:{settings.client_identity()}")
        namespace, key = known
        stack = self._stacks.get(key)
        if stack is None:
            older = self.older_namespace(self, settings, variant) if self.older_namespace else None
            stack = self._build(settings, namespace, older)
            self._stacks[key] = stack
        return stack.shared

    def for_debate(
        self,
        role: str,
        log: list[CallRecord],
        variant: str = "",
        sampling: Mapping[str, Any] | None = None,
        *,
        answer: str | None = None,
        items: int = 0,
        scale: tuple[float, float] | None = None,
    ) -> ObservedClient:
        """A per-debate client for ``role`` that records every call into ``log``; ``answer``: the kind of
        answer it writes when the run constrains answers (default: the role's, see ``AnswerPlan``), ``items``
        the length of a criteria list, ``scale`` its scores' scale when not the item's."""
        return self.observe(self.shared(role, variant, sampling), role, log, answer=answer, items=items, scale=scale)

    def observe(
        self,
        inner: ChatCompletionClient,
        label: str,
        log: list[CallRecord],
        *,
        settings_role: str | None = None,
        answer: str | None = None,
        items: int = 0,
        scale: tuple[float, float] | None = None,
    ) -> ObservedClient:
        """``inner`` (a stack of this pool, or an override) recorded as ``label`` into ``log``, asking for the
        answer format of ``label`` (settings: ``settings_role``'s, default ``label``'s) when the run has one."""
        fmt = self.answer_format(label, settings_role or label, answer, items, scale)
        settings = self.settings_for(settings_role or label)
        named = {"model": settings.model, "provider": settings.provider}  # for the call's span (agents.telemetry)
        if fmt is None:
            return ObservedClient(inner, label, log, **named)
        provider = get_provider(settings.provider)
        return ObservedClient(
            inner, label, log, request_args=provider.answer_request(fmt), answer_format=fmt.to_dict(), **named
        )

    def answer_format(
        self,
        role: str,
        settings_role: str,
        kind: str | None = None,
        items: int = 0,
        scale: tuple[float, float] | None = None,
    ) -> AnswerFormat | None:
        """The answer format of one call by ``role`` for the item being evaluated, or None (free answers)."""
        if self.answers is None:
            return None
        settings = self.settings_for(settings_role)
        provider = get_provider(settings.provider)
        # the kinds' caps replace the default cap of a provider constrained by default (the embedded model's 256)
        toy = provider.auto_answer_mode != FREE
        return self.answers.format_for(
            role,
            settings_role,
            kind,
            configured_cap=settings.sampling.max_tokens,
            provider_cap=provider.default_max_tokens if toy else None,
            task=current_answer_task(),
            items=items,
            scale=scale,
        )

    def _base_url(self, settings: ModelSettings) -> str | None:
        return get_provider(settings.provider).base_url(settings, self.server_urls.get(settings.provider))

    def http_client(self, settings: ModelSettings) -> Any:
        """The HTTP client of ``settings``' requests: one per deadline, shared by every stack of the run (one
        connection pool, sized to the open-file limit), with the chat completion check and cached tokens."""
        options = self.network.http_options(settings.timeout_s)
        client = self._http_clients.get(options)
        if client is None or client.is_closed:
            client = self._http_clients[options] = provider_http_client(options)
        return client

    def _build(self, settings: ModelSettings, namespace: str, older_namespace: str | None = None) -> _Stack:
        base_url = self._base_url(settings)
        if self.batch is not None:  # the SDK's requests go to the batch queue (cache and retries stay above)
            get_provider(settings.provider).check_batch()
            raw = build_client(settings, base_url, self.batch.http_client(settings, base_url))
        else:  # reads usage.prompt_tokens_details.cached_tokens, which AutoGen's RequestUsage drops
            http = self.http_client(settings)
            if settings.replica_urls and base_url:  # one session per replica (``affinity.py``)
                http.route_replicas((base_url, *settings.replica_urls))
            raw = build_client(settings, base_url, add_rate_limit_hook(http))
        policy = self.retry or RetryPolicy(max_retries=settings.max_retries)
        transport: ChatCompletionClient = raw
        own_layers = get_provider(settings.provider).own_call_layers  # inspect: its max_connections, its cache
        if get_provider(settings.provider).shares_slots:  # a queued request waits here, not against its timeout
            transport = LimitedClient(raw, self.embedded_slots)
        elif (
            self.batch is None and not own_layers
        ):  # each attempt waits for the endpoint's budget (the Batch API has its own)
            limiter = self.limiter_for(settings, base_url)
            transport = RateLimitedClient(raw, limiter, model=settings.model, max_tokens=settings.sampling.max_tokens)
        where = public_url(base_url) if base_url else f"the {settings.provider} default endpoint"
        retrying = RetryingClient(
            transport, policy, self.stats, on_retry=self.on_retry, endpoint=f"{where}, model {settings.model}"
        )
        shared: ChatCompletionClient = AnswerCheckClient(retrying)  # tool calls, content filter, secrets
        if self.cache is not None and not own_layers:  # the library's own cache answers (inspect's cache)
            fallbacks = (older_namespace,) if older_namespace else ()
            shared = ChatCompletionCache(shared, NamespacedStore(self.cache, namespace, fallbacks))
        return _Stack(raw=raw, shared=shared)

    def limiter_for(self, settings: ModelSettings, base_url: str | None) -> RateLimiter:
        """The rate limiter of ``settings``' endpoint and model, shared by every role and stack that uses them."""
        key = (settings.provider, public_url(base_url) if base_url else "", settings.model)
        limiter = self.limiters.get(key)
        if limiter is None and self.shared_limits:
            from debate_eval.agents.models.shared_limits import shared_limiter

            limiter = self.limiters[key] = shared_limiter(settings, base_url, self.rate)
        elif limiter is None:
            name = f"{settings.model} at {key[1] or settings.provider}"
            limiter = RateLimiter(name, max_in_flight=self.rate.max_in_flight, rpm=self.rate.rpm, tpm=self.rate.tpm)
            self.limiters[key] = limiter
        return limiter

    def rate_status(self) -> str:
        """The live budgets of the endpoints in use, for the progress line (empty when none is known)."""
        known = [lim for lim in self.limiters.values() if lim.requests is not None or lim.tokens is not None]
        return "; ".join(limiter.status() for limiter in known)

    def rate_report(self) -> list[dict[str, Any]]:
        """What each endpoint's rate limiter did (for ``summary.json``)."""
        return [limiter.report() for limiter in self.limiters.values()]

    async def preflight(self, roles: list[str]) -> None:
        """One tiny request per distinct endpoint, retried like the run's (see ``agents/models/preflight.py``);
        then what each answering endpoint serves, in ``served_models``."""
        endpoints = [
            Endpoint(role, self.settings_for(role), self._base_url(self.settings_for(role)))
            for role in roles
            if role not in self.overrides and get_provider(self.settings_for(role).provider).checks_endpoint
        ]

        def factory(settings: ModelSettings, base_url: str | None) -> ChatCompletionClient:
            if self.batch is not None or get_provider(settings.provider).shares_slots:
                return build_checked_client(settings, base_url, self.network)
            # the check is the endpoint's first call: its answer's rate-limit headers (what is left, when it
            # resets) set the budget the first wave of calls starts from (``rate_limit``)
            client = build_checked_client(settings, base_url, self.network, rate_hook=True)
            limiter = self.limiter_for(settings, base_url)
            return RateLimitedClient(client, limiter, model=settings.model, max_tokens=1)

        self.served_models = await check_endpoints(
            endpoints, factory, self.retry, self.stats, on_retry=self.on_retry, identify=self.served_model
        )
        replicas = [Endpoint(e.role, e.settings, url) for e in endpoints for url in e.settings.replica_urls]
        if replicas:  # every replica answers too (what each serves is the first URL's, as the run assumes)
            await check_endpoints(replicas, factory, self.retry, self.stats, on_retry=self.on_retry)

    async def served_model(self, settings: ModelSettings, base_url: str | None) -> ServedModel:
        """What ``settings``' endpoint serves under its model name (the provider's ``served_model``, through the
        run's HTTP client); best effort."""
        provider = get_provider(settings.provider)
        return await provider.served_model(settings, base_url, self.http_client(settings), self.config.embedded)

    async def close(self) -> None:
        """Close every client built by the pool."""
        for stack in self._stacks.values():
            await stack.raw.close()
        self._stacks.clear()
        for client in self._http_clients.values():
            await client.aclose()
        self._http_clients.clear()
        if self.fast_path:
            from debate_eval.agents.models.fast_path import restore_telemetry

            restore_telemetry()
        if self.batch is not None:
            await self.batch.close()
