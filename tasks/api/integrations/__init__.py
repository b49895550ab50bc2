"""Where debate-eval's judges meet other evaluation tools, each a thin module over ``debate_eval.Judge``:

- ``debate_eval.integrations.inspect``: inspect_ai scorers ``debate_judge`` and ``debate_judge_pairwise``
  (extra ``inspect``);
- ``debate_eval.integrations.inspect_log``: a run written as an inspect_ai eval log (``debate-eval export RUN
  --format inspect``), for ``inspect view`` (extra ``inspect``);
- ``debate_eval.integrations.deepeval``: the deepeval metrics ``DebateMetric`` and ``DebateConversationalMetric``
  (extra ``deepeval``);
- ``debate_eval.integrations.mlflow``: the MLflow GenAI scorer ``debate_scorer`` (extra ``mlflow``);
- ``debate_eval.integrations.promptfoo``: promptfoo's Python assertion ``get_assert`` and grading provider
  ``call_api`` (no extra).

Importing ``debate_eval`` imports none of them; each imports its library when it is imported, and says in
one line which extra to install when it is missing. OpenTelemetry traces of a run live in
``debate_eval.agents.telemetry`` (extra ``otel``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

from debate_eval.agents.errors import UserError

# Each integration's module and the extra that installs its library ("": none needed)
MODULES: dict[str, str] = {
    "debate_eval.integrations.inspect": "inspect",
    "debate_eval.integrations.inspect_log": "inspect",
    "debate_eval.integrations.deepeval": "deepeval",
    "debate_eval.integrations.mlflow": "mlflow",
    "debate_eval.integrations.promptfoo": "",
}


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` (an optional extra's library), or raise a one-line ``UserError`` naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UserError(f"{module} is not installed: pip install 'debate-eval[{extra}]'") from None
