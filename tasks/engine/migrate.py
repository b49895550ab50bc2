"""Run directories written by earlier versions: recognise their config hash and move them to the current one.

Two earlier hashes are recognised:

- up to commit 0afcb53 the config hash counted the models of every role, used or not
  (``RunConfig.legacy_config_hash``): such a directory is moved when its hash is that of the very
  configuration being run;
- up to URL-free hashing (issue 20, item 6) a user's endpoint entered the hash by its URL
  (``ModelSettings.legacy_identity``): a directory whose ``config.json`` holds a configuration that, with the
  endpoint URLs taken out (``url_free``), hashes to the current one is moved, whatever URL it was run at
  (the URL is then checked as information by ``tasks/engine/endpoints.py``).

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
from typing import Any

from debate_eval.agents.models.providers import all_providers
from debate_eval.agents.models.settings import stable_hash
from debate_eval.tasks.engine.config_checksum import sealed
from debate_eval.tasks.engine.lock import RunLock
from debate_eval.tasks.engine.results import CONFIG_FILE, RESULTS_FILE, write_json_atomic
from debate_eval.tasks.engine.run_config import RunConfig


def migrate_legacy_run(out_dir: Path, config: RunConfig, document: dict[str, Any]) -> bool:
    """Move ``out_dir`` from an earlier hash of ``config`` to its current one; True when it did. ``document``
    is the current ``config.json`` content. Anything else (no directory, another configuration, an
    unreadable config.json) is left for the results store to judge."""
    new = config.config_hash()
    existing = _read_config(out_dir)
    if existing is None or existing.get("config_hash") == new:
        return False
    old = existing.get("config_hash")
    if old is not None and old == config.legacy_config_hash():
        reason = "only the roles the method calls count"
    elif old is not None and _url_era_hash(existing) == new:
        reason = "the endpoint URL no longer counts: provider, model and sampling do, the URL stays in config.json"
    else:
        return False
    with RunLock(out_dir):  # no run may append while the lines are rewritten
        results = out_dir / RESULTS_FILE
        if results.exists():
            _rehash_lines(results, old, new)
        kept = {"models": existing["models"]} if isinstance(existing.get("models"), dict) else {}
        write_json_atomic(out_dir / CONFIG_FILE, sealed({**document, **kept, "migrated_from": {"config_hash": old}}))
    print(
        f"debate-eval: {out_dir}: written by an earlier version (config hash {old}); same configuration, "
        f"now hashed {new} ({reason}); its results are kept",
        file=sys.stderr,
    )
    return True


def _read_config(out_dir: Path) -> dict[str, Any] | None:
    try:
        existing = json.loads((out_dir / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return existing if isinstance(existing, dict) else None


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
    for raw in lines:
        try:
            record = json.loads(raw) if raw.strip() else None
        except (ValueError, UnicodeDecodeError):
            record = None
        if isinstance(record, dict) and record.get("config_hash") == old:
            record["config_hash"] = new
            raw = json.dumps(record, ensure_ascii=False).encode("utf-8")
        out.append(raw)
    tmp = path.with_suffix(".jsonl.migrate.tmp")
    with tmp.open("wb") as handle:
        handle.write(b"\n".join(out))
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
