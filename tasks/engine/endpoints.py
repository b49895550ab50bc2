"""Where a run's models were reached, checked on resume.

The config hash names a model by provider, model name and sampling, not by the URL it was reached at, so a
run directory resumes whether its server is spelled ``localhost`` or ``127.0.0.1``. The URL (and an Azure
deployment) stays in ``config.json`` (``models.roles.ROLE.base_url``) as information, and a resume compares it
with the current one, role by role:

- the same server (the same host, or two loopback names, on any port, with the same path): the run
  resumes, with a note, and ``config.json`` records the new address;
- another server: refused in one line, since the same model name may be another model there, unless
  ``--allow-endpoint-change`` says the move is deliberate; then it resumes, with a note, and
  ``config.json`` records the change under ``endpoint_changes``.

What the endpoint serves (its served-model fingerprint, where it reports one) is checked once the endpoint
check has asked it, with the same flag (``fingerprints.py``).
"""

from __future__ import annotations

import ipaddress
import sys
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers import get_provider
from debate_eval.tasks.engine.fingerprints import ALLOW_FLAG, with_recorded_served_models
from debate_eval.tasks.engine.lock import RunLock
from debate_eval.tasks.engine.run_config import RunConfig
from debate_eval.tasks.engine.rundir import RunDir

LOOPBACK_NAMES = {"localhost", "ip6-localhost", "ip6-loopback"}


@dataclass(frozen=True)
class Move:
    """One role's endpoint, as recorded and as now."""

    role: str
    was: str
    now: str


def is_loopback(host: str) -> bool:
    """``localhost`` and the other loopback names, ``127.0.0.0/8``, ``::1`` (and ``0.0.0.0``, which a client
    reaches on this machine)."""
    host = host.lower().strip("[]")
    if host in LOOPBACK_NAMES:
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def same_server(was: str, now: str) -> bool:
    """The same host (or two loopback names) and the same path; the port and scheme may differ."""
    a, b = urllib.parse.urlsplit(was), urllib.parse.urlsplit(now)
    if a.path.rstrip("/") != b.path.rstrip("/"):
        return False
    host_a, host_b = (a.hostname or "").lower(), (b.hostname or "").lower()
    return host_a == host_b or (is_loopback(host_a) and is_loopback(host_b))


def _where(model: Mapping[str, Any]) -> str | None:
    """A recorded model's endpoint as compared: its public URL (the provider's default when none), with an
    Azure deployment after it."""
    provider = model.get("provider")
    url = model.get("base_url")
    if not url and isinstance(provider, str):
        try:
            url = get_provider(provider).default_base_url
        except UserError:
            url = None
    if not isinstance(url, str) or not url:
        return None
    deployment = model.get("deployment")
    return f"{url} (deployment {deployment})" if deployment else url


def endpoint_moves(recorded: Mapping[str, Any], current: Mapping[str, Any], roles: list[str]) -> list[Move]:
    """The roles (of ``roles``) whose endpoint in ``current`` differs from ``recorded`` (``config.json``'s
    ``models`` blocks)."""
    was_roles, now_roles = recorded.get("roles"), current.get("roles")
    if not isinstance(was_roles, dict) or not isinstance(now_roles, dict):
        return []
    moves = []
    for role in roles:
        was, now = was_roles.get(role), now_roles.get(role)
        if not isinstance(was, dict) or not isinstance(now, dict):
            continue
        was_where, now_where = _where(was), _where(now)
        if was_where and now_where and was_where != now_where:
            moves.append(Move(role, was_where, now_where))
    return moves


def check_endpoint_moves(
    out_dir: Path, config: RunConfig, document: Mapping[str, Any], *, allow: bool, stream: TextIO | None = None
) -> list[Move]:
    """Compare the endpoints ``out_dir``'s results were made at with ``document``'s (the run's ``config.json``
    content); refuse another server without ``allow``; record an accepted move in ``config.json``. The moves
    found (none when the directory has no results of this configuration)."""
    run_dir = RunDir(out_dir)
    existing = run_dir.config_if_readable() if run_dir.has_results() else None
    if existing is None:
        return []  # no results, or an unreadable config.json: the results store reports it
    if existing.get("config_hash") != document.get("config_hash"):
        return []  # another configuration: the results store refuses it
    recorded, current = existing.get("models"), document.get("models")
    if not isinstance(recorded, dict) or not isinstance(current, dict):
        return []
    moves = endpoint_moves(recorded, current, sorted(set(config.roles())))
    if not moves:
        return []
    elsewhere = [move for move in moves if not same_server(move.was, move.now)]
    if elsewhere and not allow:
        move = elsewhere[0]
        raise UserError(
            f"{out_dir}: the {move.role}'s endpoint was {move.was} and is now {move.now}: the same model name may "
            f"be another model there; pass {ALLOW_FLAG} to resume at the new endpoint (noted in config.json), or "
            "use a new --out"
        )
    changes = list(existing.get("endpoint_changes") or [])
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    for move in moves:
        how = "the same server" if same_server(move.was, move.now) else f"accepted by {ALLOW_FLAG}"
        changes.append({"role": move.role, "from": move.was, "to": move.now, "how": how, "at": stamp})
        print(
            f"debate-eval: note: {out_dir}: the {move.role}'s endpoint is now {move.now} (was {move.was}): {how}; "
            "resuming with the results already there",
            file=stream or sys.stderr,
        )
    with RunLock(out_dir):  # no other run may write config.json meanwhile
        models = with_recorded_served_models(current, recorded)  # the weights' fingerprints stay (fingerprints.py)
        run_dir.write_config({**existing, "models": models, "endpoint_changes": changes})
    return moves
