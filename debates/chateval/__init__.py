"""ChatEval (Chan et al. 2023): a panel of referees with different role personas discuss, then score.

One module per job: ``config`` (``ChatEvalConfig``, names), ``prompts`` (every text sent), ``panel`` (the
AutoGen teams and model contexts of ``paper`` mode), ``paper`` (``--fidelity paper``: Algorithms 1-3),
``faireval`` (``--fidelity authors-code``: the released FairEval flow), ``parsing`` (a referee's own
verdict line, the mean) and ``run`` (``run_chateval``). The names below are the package's public face.
"""

from debate_eval.debates.chateval.config import (
    DECIDED_BY,
    DEFAULT_ROLES,
    DEFAULT_TURNS,
    ONE_BY_ONE,
    REASK_LIMIT,
    REFEREE,
    SIMULTANEOUS,
    SIMULTANEOUS_SUMMARIZER,
    STRATEGIES,
    SUMMARIZER,
    SUMMARIZER_ROLE,
    ChatEvalConfig,
    display_name,
    referee_names,
)
from debate_eval.debates.chateval.panel import (
    AlgorithmContext,
    AttributedContext,
    ChatEvalPanel,
    ChatEvalPanelManager,
    _client,
    _in_turn_order,
    panel_schedule,
)
from debate_eval.debates.chateval.paper import panel_prompt, referee_system_message
from debate_eval.debates.chateval.parsing import average_final_scores, referee_score
from debate_eval.debates.chateval.prompts import NAME_LINE, PANEL_INSTRUCTIONS, SUMMARIZER_SYSTEM_MESSAGE
from debate_eval.debates.chateval.run import run_chateval

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
