"""Checksums of a run's ``config.json``, so a hand edit is found and the edited fields are named.

A run writes ``config.json`` with ``checksums``: the SHA-256 of the document without that key, and a short hash
of every field's value (its dotted path: ``result_config.models.scorer.model``). ``edited_fields`` compares a
file with its checksums and names what no longer matches. The file describes the results, so an edit must
never go unseen:

- the run's own command on an edited folder restores ``config.json`` from its configuration (the same config
  hash) and keeps the edited file beside it (``config.json.edited-DATE``), with a note naming the fields;
- another command (say, the edited model) is refused, naming the edited fields, not "unknown fields";
- ``report`` leaves the settings of an edited file out of the page (so it never names a model that never
  ran), ``rescore`` refuses to read one; each says which fields were edited.

Every writer of a run folder's ``config.json`` seals what it writes (``ResultsStore``, ``migrate``, ``endpoints``):
an unsealed rewrite would read as a hand edit.

A ``config.json`` of an earlier version has no checksums: in a run folder, only its ``config_hash`` can be
checked against its ``result_config`` (``result_config_edited``; imported and ensemble runs hash otherwise).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.models.settings import stable_hash

CHECKSUMS = "checksums"
SHORT = 12  # hex digits of a field's hash: enough to tell an edit, short enough to read


def leaf_values(value: Any, separator: str = ".", prefix: str = "") -> dict[str, Any]:
    """Every leaf value of a JSON document by its path, its keys joined by ``separator`` (an empty object or a
    list is a leaf): ``{"a": {"b": 1}}`` -> ``{"a.b": 1}``."""
    if isinstance(value, Mapping) and value:
        found: dict[str, Any] = {}
        for key, item in value.items():
            found.update(leaf_values(item, separator, f"{prefix}{key}{separator}"))
        return found
    return {prefix.rstrip(separator): value}


def _short_hash(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:SHORT]


def _body(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key != CHECKSUMS}


def sealed(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with its ``checksums`` (any old ones replaced)."""
    body = _body(document)
    fields = {path: _short_hash(value) for path, value in leaf_values(body).items()}
    return {**body, CHECKSUMS: {"sha256": stable_hash(body), "fields": fields}}


def edited_fields(document: dict[str, Any]) -> list[str] | None:
    """The fields of ``document`` that differ from its checksums (empty: intact; those of ``result_config``
    first), or None when it has none (a file of an earlier version). A field added or removed counts; edited
    checksums are ``checksums``."""
    sums = document.get(CHECKSUMS)
    if not isinstance(sums, dict) or not isinstance(sums.get("fields"), dict):
        return None
    body = _body(document)
    if stable_hash(body) == sums.get("sha256"):
        return []
    recorded: dict[str, Any] = sums["fields"]
    now = {path: _short_hash(value) for path, value in leaf_values(body).items()}
    edited = [path for path in set(recorded) | set(now) if recorded.get(path) != now.get(path)]
    edited.sort(key=lambda path: (not path.startswith("result_config."), path))  # what changes results first
    return edited or [CHECKSUMS]


def result_config_edited(document: dict[str, Any]) -> bool:
    """Whether ``result_config`` no longer hashes to ``config_hash`` (also for files without checksums)."""
    config, recorded = document.get("result_config"), document.get("config_hash")
    if not isinstance(config, dict) or not isinstance(recorded, str):
        return False
    return stable_hash(config)[: len(recorded)] != recorded


def fields_text(fields: list[str], limit: int = 6) -> str:
    """``a, b, c`` (and how many more)."""
    shown = ", ".join(fields[:limit])
    return shown + (f" and {len(fields) - limit} more" if len(fields) > limit else "")


def edit_note(path: Path, document: dict[str, Any]) -> str | None:
    """One line saying that ``path`` (holding ``document``) was edited by hand and where, or None."""
    edited = edited_fields(document)
    if edited:
        return f"{path} was edited by hand after the run wrote it (changed: {fields_text(edited)})"
    return None
