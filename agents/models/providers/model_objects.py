"""Model objects of the host program registered in this process (the ``inspect`` and ``deepeval`` providers):
each is named by the key it was registered under, its prefix and a number (``--model deepeval-model:1``)."""

from __future__ import annotations

import itertools
import threading
from typing import Any

from debate_eval.agents.errors import UserError


class ModelObjects:
    """The objects registered under one key prefix; registering an object twice gives its first key."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self._objects: dict[str, Any] = {}
        self._counter = itertools.count(1)
        self._lock = threading.Lock()

    def register(self, model: Any) -> str:
        """The key that names ``model`` in this process (a new one the first time)."""
        with self._lock:
            for key, known in self._objects.items():
                if known is model:
                    return key
            key = f"{self.prefix}{next(self._counter)}"
            self._objects[key] = model
            return key

    def get(self, key: str) -> Any | None:
        """The object registered under ``key``, or None."""
        return self._objects.get(key)

    def registered(self, key: str, what: str = "model") -> Any:
        """The object registered under ``key``; a one-line ``UserError`` naming the ``what`` when none is."""
        found = self._objects.get(key)
        if found is None:
            raise UserError(f"the {what} {key!r} is not registered in this process")
        return found
