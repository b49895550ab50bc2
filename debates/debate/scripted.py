"""DEBATE's canned replies for the scripted server: the Critic never agrees, the Tie-breaker decides, the
Commander says a short line (the Scorer's replies are the server's own). Roles are told by their system
messages: the paper's personas (``agents/personas.py``), the authors' code's and the pairwise ones
(``debates/pairwise/prompts/personas.json``)."""

from __future__ import annotations

from debate_eval.agents.models.providers.scripted_server import ScriptedReplies, ScriptedRole

SCRIPTED_REPLIES = ScriptedReplies(
    "debate",
    roles=(
        ScriptedRole("tiebreaker", system_has=("Tiebreaker",)),
        ScriptedRole("critic", system_has=("Devil", "NO_ISSUES", "score is really accurate")),
        # the paper's Commander, the authors' code's, and the pairwise one
        ScriptedRole(
            "commander",
            system_has=("Help me calculate the score", "initiate and lead the debate", "Help me decide which"),
        ),
    ),
    replies={
        "critic": "The score ignores several problems; it should be lower. I disagree with the rationale.",
        "tiebreaker": "Having read the debate, the final score is 2.",
        "commander": "Please think step by step.",
    },
    pairwise_replies={
        "critic": "The verdict overlooks the weaknesses of the preferred response; I disagree with the rationale.",
        "tiebreaker": "Having read the debate, Response A is better.\nVerdict: [[A]]",
    },
    precedence=10,
)
