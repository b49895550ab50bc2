"""Fixtures of the fault suite; its tools live in ``faultkit.py`` (importable: this folder is on sys.path)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from faultkit import cli, fault_env, server_factory

__all__ = ["cli", "fault_env", "server_factory"]
