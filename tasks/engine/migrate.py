"""Run directories written by earlier versions: recognise their config hash and move them to the current one.

Up to commit 0afcb53 the config hash counted the models of every role, used or not (see
``RunConfig.legacy_config_hash``). A run directory whose ``config.json`` carries the old hash of the very
configuration being run is migrated before the run opens it, so it resumes with no re-evaluation:

1. every line of ``results.jsonl`` whose ``config_hash`` is the old one gets the new one (the file is
   rewritten atomically; lines are otherwise unchanged, and a line that is not JSON is kept as it is);
2. then ``config.json`` is rewritten with the current document and ``migrated_from`` (the old hash);

both under the run directory's lock (a live run in it makes this one refuse, naming its owner).

In that order, an interruption between the two steps leaves a directory that the next run migrates again.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from debate_eval.tasks.engine.lock import RunLock
from debate_eval.tasks.engine.results import CONFIG_FILE, RESULTS_FILE, write_json_atomic
from debate_eval.tasks.engine.run_config import RunConfig


def migrate_legacy_run(out_dir: Path, config: RunConfig, document: dict[str, Any]) -> bool:
    """Move ``out_dir`` from ``config``'s legacy hash to its current one; True when it did. ``document``
    is the current ``config.json`` content. Anything else (no directory, another configuration, an
    unreadable config.json) is left for the results store to judge."""
    old, new = config.legacy_config_hash(), config.config_hash()
    config_path = out_dir / CONFIG_FILE
    if old is None or old == new or not config_path.is_file():
        return False
    try:
        existing = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(existing, dict) or existing.get("config_hash") != old:
        return False
    with RunLock(out_dir):  # no run may append while the lines are rewritten
        results = out_dir / RESULTS_FILE
        if results.exists():
            _rehash_lines(results, old, new)
        write_json_atomic(config_path, {**document, "migrated_from": {"config_hash": old}})
    print(
        f"debate-eval: {out_dir}: written by an earlier version (config hash {old}); same configuration, "
        f"now hashed {new} (only the roles the method calls count); its results are kept",
        file=sys.stderr,
    )
    return True


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
