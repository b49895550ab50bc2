"""ChatEval (Chan et al. 2023): a panel of referees with different role personas discuss, then score.

One module per job: ``config`` (``ChatEvalConfig``, names), ``prompts`` (every text sent), ``panel`` (the
AutoGen teams and model contexts of ``paper`` mode), ``paper`` (``--fidelity paper``: Algorithms 1-3),
``faireval`` (``--fidelity authors-code``: the released FairEval flow) and ``run`` (``run_chateval``); the
answers are read by ``debates/scoring/`` (``referee_scores``: a referee's own verdict line, the mean;
``faireval_scores``: FairEval's score lines). The names below are the package's public face.
"""

import importlib
from typing import Any

# public name -> its module; loaded on first use, so that ``debates.chateval.config`` (what the method's
# registration needs) does not pull the AutoGen panel in
_WHERE = {
    "DECIDED_BY": "debate_eval.debates.chateval.config",
    "DEFAULT_ROLES": "debate_eval.debates.chateval.config",
    "DEFAULT_TURNS": "debate_eval.debates.chateval.config",
    "ONE_BY_ONE": "debate_eval.debates.chateval.config",
    "REASK_LIMIT": "debate_eval.debates.chateval.config",
    "REFEREE": "debate_eval.debates.chateval.config",
    "SIMULTANEOUS": "debate_eval.debates.chateval.config",
    "SIMULTANEOUS_SUMMARIZER": "debate_eval.debates.chateval.config",
    "STRATEGIES": "debate_eval.debates.chateval.config",
    "SUMMARIZER": "debate_eval.debates.chateval.config",
    "SUMMARIZER_ROLE": "debate_eval.debates.chateval.config",
    "ChatEvalConfig": "debate_eval.debates.chateval.config",
    "display_name": "debate_eval.debates.chateval.config",
    "referee_names": "debate_eval.debates.chateval.config",
    "AlgorithmContext": "debate_eval.debates.chateval.panel",
    "AttributedContext": "debate_eval.debates.chateval.panel",
    "ChatEvalPanel": "debate_eval.debates.chateval.panel",
    "ChatEvalPanelManager": "debate_eval.debates.chateval.panel",
    "_client": "debate_eval.debates.chateval.panel",
    "_in_turn_order": "debate_eval.debates.chateval.panel",
    "panel_schedule": "debate_eval.debates.chateval.panel",
    "panel_prompt": "debate_eval.debates.chateval.paper",
    "referee_system_message": "debate_eval.debates.chateval.paper",
    "average_final_scores": "debate_eval.debates.chateval.referee_scores",
    "referee_score": "debate_eval.debates.chateval.referee_scores",
    "NAME_LINE": "debate_eval.debates.chateval.prompts",
    "PANEL_INSTRUCTIONS": "debate_eval.debates.chateval.prompts",
    "SUMMARIZER_SYSTEM_MESSAGE": "debate_eval.debates.chateval.prompts",
    "run_chateval": "debate_eval.debates.chateval.run",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DECIDED_BY",
    "DEFAULT_ROLES",
    "DEFAULT_TURNS",
    "NAME_LINE",
    "ONE_BY_ONE",
    "PANEL_INSTRUCTIONS",
    "REASK_LIMIT",
    "REFEREE",
    "SIMULTANEOUS",
    "SIMULTANEOUS_SUMMARIZER",
    "STRATEGIES",
    "SUMMARIZER",
    "SUMMARIZER_ROLE",
    "SUMMARIZER_SYSTEM_MESSAGE",
    "AlgorithmContext",
    "AttributedContext",
    "ChatEvalConfig",
    "ChatEvalPanel",
    "ChatEvalPanelManager",
    "_client",
    "_in_turn_order",
    "average_final_scores",
    "display_name",
    "panel_prompt",
    "panel_schedule",
    "referee_names",
    "referee_score",
    "referee_system_message",
    "run_chateval",
]
