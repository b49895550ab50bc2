"""Records are read through the typed ``Record`` (``tasks/engine/record.py``), never by string key, and the
history of older formats lives in the compat package (``tasks/engine/compat/``) only.

No package module but the record module reads a result record as a dict (``record["..."]`` or
``record.get(...)``): every reader takes the record's fields as attributes.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ("agents", "debates", "tasks")
RECORD_MODULE = "tasks/engine/record.py"
BY_KEY = re.compile(r"record\[\"|record\.get\(")


def package_files() -> list[Path]:
    """Every Python module of the package."""
    return sorted(path for folder in PACKAGE for path in (ROOT / folder).rglob("*.py"))


def reading_by_key() -> set[str]:
    """The package modules (paths from the repository root) that read a record by string key."""
    return {
        path.relative_to(ROOT).as_posix() for path in package_files() if BY_KEY.search(path.read_text(encoding="utf-8"))
    }


def test_no_module_reads_a_record_by_key() -> None:
    found = reading_by_key() - {RECORD_MODULE}
    assert found == set(), "read result records through debate_eval.tasks.engine.record.Record"


COMPAT = "tasks/engine/compat/"
LEGACY = re.compile(r"legacy", re.IGNORECASE)


def test_no_legacy_outside_the_compat_package() -> None:
    """Older formats, hashes and migrations are the compat package's (each with the version that drops it)."""
    found = sorted(
        path.relative_to(ROOT).as_posix()
        for path in package_files()
        if not path.relative_to(ROOT).as_posix().startswith(COMPAT) and LEGACY.search(path.read_text(encoding="utf-8"))
    )
    assert found == [], "reading earlier versions belongs in tasks/engine/compat/"


def test_compat_says_when_each_reading_is_dropped() -> None:
    from debate_eval.tasks.engine import compat
    from debate_eval.tasks.engine.compat import hashes

    assert compat.METHOD_KEY_DROPPED_IN and hashes.REMOVED_IN
    assert "Dropped in" in (compat.__doc__ or "") and "Dropped in" in (hashes.__doc__ or "")


def test_the_check_finds_a_read_by_key() -> None:
    assert BY_KEY.search('x = record["score"]') and BY_KEY.search("record.get('score')")
    assert not BY_KEY.search("record.score")
