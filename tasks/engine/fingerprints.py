"""The served-model fingerprints of a run, recorded in ``config.json`` and checked on resume.

The endpoint check before a run asks each endpoint what weights it serves under the role's model name
(``agents/models/served_model.py``: vLLM's ``root``, llama.cpp's ``meta``, Ollama's digest, the embedded
GGUF's checksum). The answer is no part of the config hash (``show``, ``rescore`` and ``ablate`` compute the
hash without a server); ``config.json`` keeps it as ``models.roles.ROLE.served_model``, and a resume compares
it with the recorded one, beside the URL check (``endpoints.py``):

- both known and equal, or either unknown: the run resumes (a note when a known one can no longer be read);
- both known and different: refused in one line, since the results there came from other weights, unless
  ``--allow-endpoint-change`` accepts it; then it resumes, with a note, and ``config.json`` records the change
  under ``endpoint_changes`` (``"what": "served model"``).

A known fingerprint is kept when the current one is unknown, so the file keeps naming the weights of its results.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.served_model import ServedModel
from debate_eval.tasks.engine.rundir import RunDir

ALLOW_FLAG = "--allow-endpoint-change"  # accepts a URL move to another server (endpoints.py) or other weights
SERVED_MODEL = "served_model"


@dataclass(frozen=True)
class FingerprintChange:
    """One role whose endpoint serves other weights than it did."""

    role: str
    was: ServedModel
    now: ServedModel


def recorded_served_models(models: Any) -> dict[str, ServedModel]:
    """The served models a ``config.json`` ``models`` block records, by role (roles without one left out)."""
    roles = models.get("roles") if isinstance(models, Mapping) else None
    if not isinstance(roles, Mapping):
        return {}
    found = {}
    for role, block in roles.items():
        served = ServedModel.from_dict(block.get(SERVED_MODEL)) if isinstance(block, Mapping) else None
        if served is not None:
            found[role] = served
    return found


def with_recorded_served_models(current: Mapping[str, Any], recorded: Mapping[str, Any]) -> dict[str, Any]:
    """``current`` (a ``models`` block) with the ``served_model`` of each role ``recorded`` has one for, so a
    rewrite of the block (an endpoint move) keeps them."""
    roles = current.get("roles")
    was_roles = recorded.get("roles")
    if not isinstance(roles, Mapping) or not isinstance(was_roles, Mapping):
        return dict(current)
    merged = {}
    for role, block in roles.items():
        was = was_roles.get(role)
        if isinstance(block, Mapping) and isinstance(was, Mapping) and SERVED_MODEL in was:
            block = {**block, SERVED_MODEL: was[SERVED_MODEL]}
        merged[role] = block
    return {**current, "roles": merged}


def check_served_models(
    out_dir: Path,
    roles: Iterable[str],
    served: Mapping[str, ServedModel],
    *,
    allow: bool,
    stream: TextIO | None = None,
) -> list[FingerprintChange]:
    """Compare what ``roles``' endpoints serve now (``served``, from the endpoint check; a role missing is
    unknown) with what ``out_dir``'s ``config.json`` records; refuse a change without ``allow``; record the
    current fingerprints. Call it while holding the run lock (the results store's). The changes found."""
    run_dir = RunDir(out_dir)
    config_path, existing = run_dir.config_path, run_dir.config_if_readable()  # the results store has checked it
    models = existing.get("models") if existing is not None else None
    if not isinstance(models, dict) or not isinstance(models.get("roles"), dict):
        return []
    recorded = recorded_served_models(models)
    out = stream or sys.stderr
    changes: list[FingerprintChange] = []
    updated = dict(models["roles"])
    for role in sorted(set(roles)):
        block = updated.get(role)
        if not isinstance(block, dict):
            continue
        was = recorded.get(role)
        now = served.get(role) or ServedModel.unknown("not asked: no endpoint check")
        if was is not None and was.fingerprint is not None:
            if now.fingerprint is None:
                print(
                    f"debate-eval: note: {config_path}: the {role}'s served model was {was.describe()} and cannot "
                    f"be checked now ({now.reason}); resuming",
                    file=out,
                )
                continue  # the recorded fingerprint names the weights of the results
            if now.fingerprint != was.fingerprint:
                changes.append(FingerprintChange(role, was, now))
        if role in served:
            updated[role] = {**block, SERVED_MODEL: now.to_dict()}
    if changes and not allow:
        change = changes[0]
        raise UserError(
            f"{config_path}: the {change.role}'s endpoint served {change.was.describe()} and now serves "
            f"{change.now.describe()}: the results there came from other weights; pass {ALLOW_FLAG} to resume with "
            "the new weights (noted in config.json), or use a new --out"
        )
    document = {**existing, "models": {**models, "roles": updated}}
    if changes:
        document["endpoint_changes"] = [*(existing.get("endpoint_changes") or []), *_notes(config_path, changes, out)]
    if document != existing:
        run_dir.write_config(document)
    return changes


def _notes(config_path: Path, changes: list[FingerprintChange], out: TextIO) -> list[dict[str, Any]]:
    """Print one note per accepted change; the ``endpoint_changes`` entries that record them."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    how = f"accepted by {ALLOW_FLAG}"
    entries = []
    for change in changes:
        print(
            f"debate-eval: note: {config_path}: the {change.role}'s endpoint now serves {change.now.describe()} "
            f"(was {change.was.describe()}): {how}; resuming with the results already there",
            file=out,
        )
        entries.append(
            {
                "role": change.role,
                "what": "served model",
                "from": change.was.to_dict(),
                "to": change.now.to_dict(),
                "how": how,
                "at": stamp,
            }
        )
    return entries
