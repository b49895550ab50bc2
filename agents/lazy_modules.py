"""``LazyModules``: a registry's built-in members, modules that register themselves when imported, imported on
first use so that importing the registry stays cheap."""

from __future__ import annotations

import importlib
from collections.abc import Iterable


class LazyModules:
    """The modules ``names``, imported together the first time ``load`` is called."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = tuple(names)
        self.loaded = False

    def load(self) -> None:
        """Import every module, the first time only (marked loaded before: a module that asks its registry while
        it is imported does not start the imports again)."""
        if not self.loaded:
            self.loaded = True
            for name in self.names:
                importlib.import_module(name)
