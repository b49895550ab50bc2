"""Config hashes and cache namespaces of development versions before 0.1.0, and moving their run directories.
Dropped in 0.2.0 (``REMOVED_IN``).

Three earlier hashes are recognised:

- before the method registry, the config hash counted the models of every role, used or not, and each
  method's configuration as it was then (``pre_registry_config_hash``): such a directory is moved when its
  hash is that of the very configuration being run;
- before URL-free hashing, a user's endpoint entered the hash by its URL (``url_identity``): a directory
  whose ``config.json`` holds a configuration that, with the endpoint URLs taken out (``url_free``), hashes
  to the current one is moved, whatever URL it was run at (the URL is then checked as information by
  ``tasks/engine/endpoints.py``). Their response-cache namespaces are read too (``url_era_namespace``);
- before Fennec's prompts were recorded, a Fennec configuration was hashed without them
  (``pre_prompts_config_hash``): such a directory is moved when its hash is that of the very configuration
  being run with its ``prompts`` taken out. The prompt files shipped with Fennec have not changed since it
  came, so it is read as judged with today's prompts; a directory run with edited prompt files cannot be told
  apart from one run with the shipped ones, and is moved too.

Moving a directory, so that it resumes with no re-evaluation:

1. every line of ``results.jsonl`` whose ``config_hash`` is the old one gets the new one (the file is
   rewritten atomically; lines are otherwise unchanged, and a line that is not JSON is kept as it is);
2. then ``config.json`` is rewritten with the current document and ``migrated_from`` (the old hash), keeping
   the ``models`` it recorded (the endpoint it ran at);

both under the run directory's lock (a live run in it makes this one refuse, naming its owner).

In that order, an interruption between the two steps leaves a directory that the next run migrates again.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.agents.models.providers import all_providers, get_provider
from debate_eval.agents.models.settings import EmbeddedSettings, ModelSettings, public_url, stable_hash
from debate_eval.tasks.engine.lock import RunLock
from debate_eval.tasks.engine.run_config import RunConfig
from debate_eval.tasks.engine.rundir import RunDir

if TYPE_CHECKING:
    from debate_eval.agents.models.pool import ClientPool

REMOVED_IN = "0.2.0"
PRE_REGISTRY_ROLES = ("scorer", "critic", "commander", "tiebreaker")  # every one was hashed then
# The methods that existed before the registry, under their config key: the fields their configuration had
# then, and the value a newer field must have for such a version to have run it.
PRE_REGISTRY_METHODS: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, Any]]] = {
    "debate": (
        ("debate", "multiagent", "tiebreaker", "both"),
        (
            "scorer",
            "critic",
            "commander",
            "tiebreaker",
            "max_rounds",
            "commander_llm",
            "reask",
            "marker_case_sensitive",
        ),
        {"fidelity": "paper"},
    ),
    "geval": (("geval",), ("use_logprobs", "top_logprobs", "samples"), {}),
}
# ChatEval is not there: its paper mode changed since (two referees, a bounded re-ask), so a ChatEval run
# directory of that version is another configuration, refused rather than mixed.


def url_identity(settings: ModelSettings, embedded: EmbeddedSettings | None = None) -> dict[str, Any]:
    """A model's identity as versions before URL-free hashing gave it: a user's endpoint identified by its
    public URL (None for the default endpoint)."""
    identity = settings.identity(embedded)
    if get_provider(settings.provider).user_endpoint:
        identity["endpoint"] = public_url(settings.base_url) if settings.base_url else None
    return identity


def url_era_namespace(pool: ClientPool, settings: ModelSettings, variant: str = "") -> str | None:
    """The response-cache namespace versions before URL-free hashing used (the endpoint's public URL in it,
    and a hash of a URL with credentials), read when the current one has no answer; None when it is the same
    (``ClientPool(older_namespace=...)``)."""
    data: dict[str, Any] = {"identity": url_identity(settings, pool.config.embedded), "variant": variant}
    if settings.base_url and public_url(settings.base_url) != settings.base_url:
        data["endpoint_sha256"] = stable_hash(settings.base_url)
    old = stable_hash(data)[:32]
    return None if old == pool.namespace_for(settings, variant) else old


def pre_registry_result_config(config: RunConfig) -> dict[str, Any] | None:
    """The result config as versions before the registry wrote it (None for a configuration no such version
    ran): ``debate`` and ``geval`` always (null when unused), ``chateval`` only when set, and the models of all
    four roles, used or not."""
    if getattr(config, "aspect_configs", None):  # no earlier version ran several aspects in one run
        return None
    method = config.method
    known = PRE_REGISTRY_METHODS.get(str(method.config_key))
    if known is None or method.name not in known[0]:
        return None
    fields, keys, defaults = method.config_dict(config.method_config), known[1], known[2]
    # the fields an earlier version wrote; a newer field holding anything but None or its value in
    # ``defaults`` means no earlier version ran this configuration
    newer = {key: value for key, value in fields.items() if key not in keys and value is not None}
    if any(defaults.get(key, object()) != value for key, value in newer.items()) or not set(keys) <= set(fields):
        return None
    view = {key: fields[key] for key in keys}
    current = config.method_result_config()
    what = {key: value for key, value in current.items() if key not in ("models", method.config_key)}
    models = {role: url_identity(config.models.for_role(role), config.models.embedded) for role in PRE_REGISTRY_ROLES}
    return {**what, "debate": None, "geval": None, method.config_key: view, "models": dict(sorted(models.items()))}


def pre_registry_config_hash(config: RunConfig) -> str | None:
    """The hash a version before the registry gave this configuration (None: no such version ran it)."""
    earlier = pre_registry_result_config(config)
    return stable_hash(earlier)[:16] if earlier is not None else None


def _without_fennec_prompts(result_config: dict[str, Any]) -> dict[str, Any]:
    """``result_config`` with Fennec's ``prompts`` taken out (of every aspect's too), as earlier versions hashed it."""
    fennec, aspects = result_config.get("fennec"), result_config.get("aspects")
    out = dict(result_config)
    if isinstance(fennec, dict):
        out["fennec"] = {key: value for key, value in fennec.items() if key != "prompts"}
    if isinstance(aspects, dict):
        out["aspects"] = {aspect: _without_fennec_prompts(config) for aspect, config in aspects.items()}
    return out


def pre_prompts_config_hash(config: RunConfig) -> str | None:
    """The hash a version before Fennec's prompts were recorded gave this configuration (None: not Fennec)."""
    if config.method.config_key != "fennec":
        return None
    return stable_hash(_without_fennec_prompts(config.result_config()))[:16]


def move_earlier_run(out_dir: Path, config: RunConfig, document: dict[str, Any]) -> bool:
    """Move ``out_dir`` from an earlier hash of ``config`` to its current one; True when it did. ``document``
    is the current ``config.json`` content. Anything else (no directory, another configuration, an
    unreadable config.json) is left for the results store to judge."""
    new = config.config_hash()
    existing = RunDir(out_dir).config_if_readable()
    if existing is None or existing.get("config_hash") == new:
        return False
    old = existing.get("config_hash")
    if old is not None and old == pre_registry_config_hash(config):
        reason = "only the roles the method calls count"
    elif old is not None and _url_era_hash(existing) == new:
        reason = "the endpoint URL no longer counts: provider, model and sampling do, the URL stays in config.json"
    elif old is not None and old == pre_prompts_config_hash(config):
        reason = "Fennec's prompt texts now count; it is read as judged with the shipped prompts"
    else:
        return False
    with RunLock(out_dir):  # no run may append while the lines are rewritten
        results = RunDir(out_dir).results_path
        if results.exists():
            _rehash_lines(results, old, new)
        kept = {"models": existing["models"]} if isinstance(existing.get("models"), dict) else {}
        RunDir(out_dir).write_config({**document, **kept, "migrated_from": {"config_hash": old}})
    print(
        f"debate-eval: {out_dir}: written by an earlier version (config hash {old}); same configuration, "
        f"now hashed {new} ({reason}); its results are kept",
        file=sys.stderr,
    )
    return True


def url_free(result_config: dict[str, Any]) -> dict[str, Any]:
    """``result_config`` (as ``config.json`` holds it) with the endpoint URL of every role that used a user's
    endpoint taken out, as the current hash leaves it out."""
    models = result_config.get("models")
    if not isinstance(models, dict):
        return result_config
    user_endpoints = {name for name, provider in all_providers().items() if provider.user_endpoint}
    moved = {
        role: {**model, "endpoint": None}
        if isinstance(model, dict)
        and model.get("provider") in user_endpoints
        and isinstance(model.get("endpoint"), str)
        else model
        for role, model in models.items()
    }
    return {**result_config, "models": moved}


def _url_era_hash(existing: dict[str, Any]) -> str | None:
    """The current hash of the configuration an URL-era ``config.json`` holds (None: it is not one, or its
    ``result_config`` does not hash to its own ``config_hash``, so it cannot be trusted to)."""
    result_config = existing.get("result_config")
    if not isinstance(result_config, dict) or stable_hash(result_config)[:16] != existing.get("config_hash"):
        return None
    return stable_hash(url_free(result_config))[:16]


def _rehash_lines(path: Path, old: str, new: str) -> None:
    lines = path.read_bytes().split(b"\n")
    out: list[bytes] = []
    for raw in lines:  # the JSON object of each line, every other key kept as it is (no Record round trip)
        try:
            line = json.loads(raw) if raw.strip() else None
        except (ValueError, UnicodeDecodeError):
            line = None
        if isinstance(line, dict) and line.get("config_hash") == old:
            line["config_hash"] = new
            raw = json.dumps(line, ensure_ascii=False).encode("utf-8")
        out.append(raw)
    tmp = path.with_suffix(".jsonl.migrate.tmp")
    with tmp.open("wb") as handle:
        handle.write(b"\n".join(out))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
