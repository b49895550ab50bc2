"""``DIR/audit.json``: what an audit folder holds, kept across invocations.

The data every judge of the folder is measured on (dataset, aspect, selection; the paraphrase model and
count; the injection variants) and, per judge, its method, models, config hash, the facets asked for and its
sub-runs (folder and config hash, so the card reads only their records). A later invocation on the same folder
adds or updates judges; one with other data is refused in one line (a card compares judges on the same items).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.results import write_json_atomic
from debate_eval.tasks.engine.rundir import AUDIT_FILE, RunDir

SHARED_KEYS = ("dataset", "aspect", "selection")  # must be equal for every judge of a folder
KIND = "debate-eval audit"


def read_audit(out: Path) -> dict[str, Any]:
    """The folder's ``audit.json`` (an empty document when there is none)."""
    path = out / AUDIT_FILE
    if not path.is_file():
        results = RunDir(out).results_path
        if results.is_file() and results.stat().st_size > 0:
            raise UserError(
                f"{out} is a run directory (it holds {results.name}), not an audit folder; use another --out"
            )
        return {"kind": KIND, "judges": [], "commands": []}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UserError(f"{path}: cannot read it ({type(error).__name__}); use another --out") from None
    if not isinstance(document, dict) or document.get("kind") != KIND:
        raise UserError(f"{path}: not written by `debate-eval audit`; use another --out")
    return document


def check_shared(document: Mapping[str, Any], shared: Mapping[str, Any], out: Path) -> None:
    """Refuse other data than the folder's (dataset, aspect, selection) in one line."""
    if not document.get("judges"):
        return
    for key in SHARED_KEYS:
        if document.get(key) != shared.get(key):
            raise UserError(
                f"{out} holds an audit of other data ({key}: {document.get(key)!r}, asked: {shared.get(key)!r}); a "
                "card compares judges on the same items: use the same data and selection, or another --out"
            )


def shared_setting(document: Mapping[str, Any], key: str, asked: Any, default: Any, out: Path, flag: str) -> Any:
    """A setting every judge of the folder shares (paraphrases, injection variants): the folder's, unless the
    invocation asks for another one (refused) or the folder has none yet (the asked or default value)."""
    held = document.get(key)
    if held is None:
        return default if asked is None else asked
    if asked is not None and asked != held:
        raise UserError(
            f"{out}: its judges were audited with {flag} {held!r} (asked: {asked!r}); every judge of a folder sees "
            "the same texts: use the same value, or another --out"
        )
    return held


def upsert_judge(document: dict[str, Any], judge: Mapping[str, Any]) -> None:
    """Add ``judge`` (by label), or update it; the facets asked are the union over invocations."""
    judges = document.setdefault("judges", [])
    for index, existing in enumerate(judges):
        if existing.get("label") == judge["label"]:
            facets = list(dict.fromkeys([*existing.get("facets", []), *judge.get("facets", [])]))
            runs = {**existing.get("runs", {}), **judge.get("runs", {})}
            judges[index] = {**existing, **judge, "facets": facets, "runs": runs}
            return
    judges.append(dict(judge))


def write_audit(out: Path, document: Mapping[str, Any]) -> None:
    """Write ``audit.json`` atomically."""
    write_json_atomic(out / AUDIT_FILE, dict(document))
