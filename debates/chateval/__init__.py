"""ChatEval (Chan et al. 2023): a panel of referees with different role personas discuss, then score.

One module per job: ``config`` (``ChatEvalConfig``, names), ``prompts`` (every text sent), ``panel`` (the
AutoGen teams and model contexts of ``paper`` mode), ``paper`` (``--fidelity paper``: Algorithms 1-3),
``faireval`` (``--fidelity authors-code``: the released FairEval flow) and ``run`` (``run_chateval``); the
answers are read by ``referee_scores`` (a referee's own verdict line, the mean) and ``faireval_scores``
(FairEval's score lines). The names below are the package's public face.
"""

import importlib
from typing import Any

# public names by the module that defines them; loaded on first use, so that ``debates.chateval.config`` (what
# the method's registration needs) does not pull the AutoGen panel in
_NAMES = {
    "config": ("DECIDED_BY", "SUMMARIZER", "ChatEvalConfig", "referee_names"),
    "panel": ("AttributedContext", "panel_schedule"),  # AttributedContext: its AutoGen component path
    "paper": ("referee_system_message",),
    "referee_scores": ("referee_score",),
    "prompts": ("SUMMARIZER_SYSTEM_MESSAGE",),
    "run": ("run_chateval",),
}
_WHERE = {name: f"{__name__}.{module}" for module, names in _NAMES.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
