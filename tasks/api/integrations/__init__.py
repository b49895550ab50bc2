"""Where debate-eval's judges meet other evaluation tools, each in an optional extra of its own:

- ``debate_eval.integrations.inspect_log``: a run written as an inspect_ai eval log (``debate-eval export RUN
  --format inspect``), for ``inspect view`` (extra ``inspect``).

Each module imports its library only when used, and says in one line which extra to install when it is
missing. OpenTelemetry traces of a run live in ``debate_eval.agents.telemetry`` (extra ``otel``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from debate_eval.agents.errors import UserError


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` (an optional extra's library), or raise a one-line ``UserError`` naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"{module} is not installed: pip install 'debate-eval[{extra}]'") from None
