"""Make the shared record factories (``analysis_factories``, ``report_records``) importable by the analysis
tests, and give the report's browser tests their ``browser`` fixture (headless Chromium over the DevTools pipe,
``scripts/chromium_driver.py``)."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


def _chromium_driver() -> Any:
    """``scripts/chromium_driver.py`` as the module ``chromium_driver``."""
    if "chromium_driver" in sys.modules:
        return sys.modules["chromium_driver"]
    path = Path(__file__).resolve().parents[3] / "scripts" / "chromium_driver.py"
    spec = importlib.util.spec_from_file_location("chromium_driver", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["chromium_driver"] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture
def browser() -> Iterator[Any]:
    """A headless Chromium. Without one the test skips, except in CI (``CI=true``) or with
    ``DEBATE_EVAL_REQUIRE_BROWSER=1``, where it fails."""
    cdp = _chromium_driver()
    executable = cdp.find_chromium()
    if executable is None:
        reason = "headless Chromium not found (apt-get install chromium, or set CHROMIUM=/path/to/chromium)"
        if os.environ.get("CI") == "true" or os.environ.get("DEBATE_EVAL_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    with cdp.Browser(executable) as instance:
        yield instance
