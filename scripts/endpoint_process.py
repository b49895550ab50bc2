"""The rate-limited scripted endpoint in a child process, as the benchmarks run it (a real endpoint's work
does not compete with the client's event loop): ``with EndpointProcess([...flags]) as endpoint``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SERVER_MODULE = "support.rate_limited_server"  # tests/support (fake endpoints), not part of the package
TESTS = Path(__file__).resolve().parents[1] / "tests"


class EndpointProcess:
    """``python -m SERVER_MODULE FLAGS`` in a child process; ``base_url`` is the URL it prints first. It stops
    when its standard input closes (``close``, or the end of a ``with`` block)."""

    def __init__(self, flags: Sequence[str]) -> None:
        command = [sys.executable, "-m", SERVER_MODULE, *flags]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the endpoint did not start: {self.base_url!r}")

    def stats(self) -> dict[str, Any]:
        """The endpoint's counters and its log of answered requests (``GET /rate/stats``)."""
        with urllib.request.urlopen(self.base_url.removesuffix("/v1") + "/rate/stats", timeout=30) as response:
            return json.loads(response.read())

    def close(self) -> None:
        """Close its standard input and wait for it."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)

    def __enter__(self) -> EndpointProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
