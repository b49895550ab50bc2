"""Make the shared record factories (``analysis_factories``, ``report_records``) importable by the analysis
tests, and give the report's browser tests their ``browser`` fixture (headless Chromium over the DevTools pipe,
``tests/support/chromium_driver.py``)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture
def browser() -> Iterator[Any]:
    """A headless Chromium. Without one the test skips, except in CI (``CI=true``) or with
    ``DEBATE_EVAL_REQUIRE_BROWSER=1``, where it fails."""
    from support import chromium_driver as cdp

    executable = cdp.find_chromium()
    if executable is None:
        reason = "headless Chromium not found (apt-get install chromium, or set CHROMIUM=/path/to/chromium)"
        if os.environ.get("CI") == "true" or os.environ.get("DEBATE_EVAL_REQUIRE_BROWSER") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    with cdp.Browser(executable) as instance:
        yield instance
