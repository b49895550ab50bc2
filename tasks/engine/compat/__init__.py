"""Reading run directories written by earlier versions: the only package that knows older formats.

Each reading says the version in which it will be dropped; until then an older run directory is read (and
resumed) as it is, with no model call.

- Here: the record key ``protocol`` (records of 0.1.0 named their method so) and records with neither key
  (written before records named a method: DEBATE). Dropped in 0.3.0.
- ``hashes``: the config hashes and response-cache namespaces of development versions before 0.1.0 (all four
  roles' models hashed; a user's endpoint hashed by its URL), recognised so that such a run directory moves
  to the current hash and its cached answers are still found. Dropped in 0.2.0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

DEFAULT_METHOD = "debate"  # the method of records that name none
METHOD_KEY_DROPPED_IN = "0.3.0"  # the version that stops reading ``protocol`` / no method in a record


def current_record(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """A result line's JSON object in the current format: ``method`` named (from ``protocol``, or DEBATE
    when the line names none). The object is returned as it is when it is current already."""
    if "method" in obj and obj["method"] is not None:
        return obj
    method = obj.get("protocol") or DEFAULT_METHOD
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if key == "protocol":
            out["method"] = method
        elif key != "method":
            out[key] = value
    out.setdefault("method", method)
    return out
