"""Make the shared test data of tests/tasks (``audit_data``) importable by the tests below this folder (the
tests run with --import-mode=importlib, so a test module's folder is not on sys.path by itself)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
