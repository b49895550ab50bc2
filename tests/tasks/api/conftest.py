"""Fixtures of the public API's tests: every run on the scripted provider (canned replies, no model)."""

from __future__ import annotations

from pathlib import Path

import pytest

SCRIPTED = {"provider": "scripted", "no_progress": True}


@pytest.fixture
def rows() -> list[dict[str, object]]:
    """Four rows of a user's own data, with columns named otherwise than the fields."""
    return [
        {"doc": f"Article {i}: the council met on Monday and approved the budget.", "summ": f"Summary {i}.", "y": i}
        for i in range(1, 5)
    ]


FIELDS = {"source": "doc", "output": "summ", "human": "y"}


@pytest.fixture
def api_env(isolated_env: Path) -> Path:
    """The clean environment of command-line runs (tests/conftest.py), for API runs."""
    return isolated_env
