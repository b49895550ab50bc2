"""The provider tests' wire fakes live in ``wire_fakes.py`` (importable: this folder is on sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
