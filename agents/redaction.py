"""Keep secrets out of logs, transcripts, results and error messages."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

_SECRET_NAME = re.compile(r"(API_KEY|TOKEN|SECRET|PASSWORD)$", re.IGNORECASE)
_KEY_SHAPES = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+[A-Za-z0-9_\-\.]{8,})")


def secret_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of environment variables that look like secrets (``*_API_KEY``, ``*TOKEN``, ...)."""
    env = os.environ if environ is None else environ
    values = {value for name, value in env.items() if _SECRET_NAME.search(name) and len(value) >= 6}
    return sorted(values, key=len, reverse=True)


def redact(text: str, environ: Mapping[str, str] | None = None) -> str:
    """``text`` with every secret value from the environment, and anything shaped like a key, masked."""
    for value in secret_values(environ):
        text = text.replace(value, "***")
    return _KEY_SHAPES.sub(lambda m: m.group(0)[:3] + "***", text)
