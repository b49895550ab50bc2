"""Defaults of the HTTP layer that the command line shows in its help, apart from ``http_client`` so that
``run --help`` does not load httpx and ssl (benchmarks/startup.md)."""

from __future__ import annotations

DEFAULT_MAX_ANSWER_BYTES = 1_000_000
