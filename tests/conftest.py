"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The repository's parent folder holds ``shared/data`` in the development checkout (tests/ -> repo -> parent).
_DEFAULT_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The folder with the real dataset files: ``$DEBATE_EVAL_DATA_DIR``, else ``../shared/data``.

    Skips the test when the folder is missing, or fails it when ``DEBATE_EVAL_REQUIRE_DATA=1``.
    """
    data_dir = Path(os.environ.get("DEBATE_EVAL_DATA_DIR") or _DEFAULT_SHARED_DATA)
    if not data_dir.is_dir():
        reason = (
            f"real dataset folder {data_dir} not found; set DEBATE_EVAL_DATA_DIR to a folder with "
            "summeval/summeval.json and topical_chat/topical_chat.json (or run `debate-eval data download`)"
        )
        if os.environ.get("DEBATE_EVAL_REQUIRE_DATA") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return data_dir
