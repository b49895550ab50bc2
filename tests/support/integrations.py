"""The optional integrations' libraries in tests: skip without them, fail without them in CI's venv of them."""

from __future__ import annotations

import os
from typing import Any

import pytest

REQUIRE_INTEGRATIONS = "DEBATE_EVAL_REQUIRE_INTEGRATIONS"  # CI's integrations venv: a missing library fails


def integration_library(module: str, extra: str) -> Any:
    """Import ``module``, the library of an optional extra: the calling test module is skipped with the reason
    when it is missing, unless ``DEBATE_EVAL_REQUIRE_INTEGRATIONS=1`` (CI's venv with the extras), where the
    import error fails it. Call it at module level (the variable is read before fixtures clean the
    environment)."""
    if os.environ.get(REQUIRE_INTEGRATIONS) == "1":
        import importlib

        return importlib.import_module(module)
    return pytest.importorskip(module, reason=f"{module} is not installed: pip install 'debate-eval[{extra}]'")
