"""A scripted server's reply that can stop a run where a test wants it: ``HeldReplies``.

A test that kills a run mid-way must know the run cannot finish before the kill lands, however slow the
machine. Polling the server's count and then killing leaves a window in which the run goes on; holding
every answer past a chosen point closes it: the run can make no progress until the test releases it.
Bounded: a held answer waits at most ``limit_s`` seconds, then goes out anyway.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from debate_eval.agents.models.providers.scripted_server import default_reply


class HeldReplies:
    """``reply`` for ``ScriptedOpenAIServer``: answers as ``inner`` does; once armed with ``hold_after(n)``,
    the next ``n`` answers go out and every later one waits until ``release()``."""

    def __init__(self, inner: Callable[[Mapping[str, Any]], str] = default_reply, limit_s: float = 120.0) -> None:
        self.inner = inner
        self.limit_s = limit_s
        self._lock = threading.Lock()
        self._left: int | None = None  # answers still let through; None: not armed
        self._holding = threading.Event()  # set once an answer is held
        self._released = threading.Event()

    def hold_after(self, answers: int) -> None:
        """Let ``answers`` more answers go out, then hold the others."""
        with self._lock:
            self._left = answers
            self._holding.clear()
            self._released.clear()

    def wait_holding(self) -> bool:
        """Wait (at most ``limit_s``) until an answer is held: from then on the run makes no progress."""
        return self._holding.wait(self.limit_s)

    def release(self) -> None:
        """Let the held answers go out and stop holding."""
        with self._lock:
            self._left = None
        self._released.set()

    def __call__(self, request: Mapping[str, Any]) -> str:
        with self._lock:
            hold = self._left is not None and self._left <= 0
            if self._left is not None and not hold:
                self._left -= 1
        if hold:
            self._holding.set()
            self._released.wait(self.limit_s)
        return self.inner(request)
