"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# The repository's parent folder holds ``shared/data`` in the development checkout (tests/ -> repo -> parent).
_DEFAULT_SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data_dir() -> Path:
    """The folder with the real dataset files: ``$DEBATE_EVAL_DATA_DIR``, else ``../shared/data``, else the
    folder ``debate-eval data download`` fills (``~/.cache/debate-eval/data``).

    Skips the test when no folder is found, or fails it when ``DEBATE_EVAL_REQUIRE_DATA=1``.
    """
    from debate_eval.tasks.data.datasets import default_data_dir

    candidates = [Path(os.environ["DEBATE_EVAL_DATA_DIR"])] if os.environ.get("DEBATE_EVAL_DATA_DIR") else []
    candidates += [_DEFAULT_SHARED_DATA, default_data_dir()]
    data_dir = next((c for c in candidates if (c / "summeval" / "summeval.json").is_file()), candidates[0])
    if not data_dir.is_dir():
        reason = (
            f"real dataset folder {data_dir} not found; set DEBATE_EVAL_DATA_DIR to a folder with "
            "summeval/summeval.json and topical_chat/topical_chat.json (or run `debate-eval data download`)"
        )
        if os.environ.get("DEBATE_EVAL_REQUIRE_DATA") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return data_dir


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shared_data_dir: Path) -> Path:
    """A clean environment for command-line runs: no model settings from the developer's environment or
    .env, the real data, a private response cache, and ``tmp_path`` as the working directory."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "DEBATE_EVAL_")) and name != "DEBATE_EVAL_REQUIRE_DATA":
            monkeypatch.delenv(name)
    monkeypatch.setenv("DEBATE_EVAL_DATA_DIR", str(shared_data_dir))
    monkeypatch.setenv("DEBATE_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path
