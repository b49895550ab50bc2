"""Optional dependencies (the package's extras): a command that needs one says which extra to install."""

from __future__ import annotations

import importlib.util

from debate_eval.agents.errors import UserError


def require(module: str, extra: str, what: str) -> None:
    """A one-line ``UserError`` when ``module`` is not installed: ``WHAT needs MODULE: pip install
    'debate-eval[EXTRA]'``."""
    if importlib.util.find_spec(module) is None:
        raise UserError(f"{what} needs {module}, which is not installed: pip install 'debate-eval[{extra}]'")
