"""The debate's participants: names, the Commander's relay kinds, and the AutoGen agents for each role.

Scorer, Critic and Tie-breaker are AutoGen ``AssistantAgent``s whose system messages are the paper's
(Appendix G.1; see ``personas``). Each keeps its own model context across its turns: with ``--fidelity paper``
the Scorer sees [P, S1, feedback, S2, ...] and the Critic [(P, S1), C1, (P, S2), C2, ...]; the authors' code
(``--fidelity authors-code``) put the Commander's own reply after S1 in the Scorer's history and gave the
Critic (P, S1) every round.
"""

from __future__ import annotations

from enum import Enum

from autogen_agentchat.agents import AssistantAgent
from autogen_core.models import ChatCompletionClient

from debate_eval.agents.personas import Persona

COMMANDER = "Commander"
SCORER = "Scorer"
CRITIC = "Critic"
TIEBREAKER = "TieBreaker"
EVALUATOR = "Evaluator"  # the single G-Eval agent
USER = "user"

ROLE_OF = {
    COMMANDER: "commander",
    SCORER: "scorer",
    CRITIC: "critic",
    TIEBREAKER: "tiebreaker",
    EVALUATOR: "evaluator",
    USER: "user",
}


class Relay(str, Enum):
    """What the Commander is asked to send."""

    TASK = "task"  # the task prompt P, to the Scorer
    REVIEW = "review"  # P and the Scorer's latest answer, to the Critic
    FEEDBACK = "feedback"  # the Critic's feedback, to the Scorer
    TIEBREAK = "tiebreak"  # P and the whole debate log, to the Tie-breaker
    REASK = "reask"  # the deciding answer had no score: ask again for the score alone
    AUTOREPLY = "autoreply"  # --fidelity authors-code: the Commander's own model reply to a Scorer answer


RELAY_TARGET = {
    Relay.TASK: SCORER,
    Relay.REVIEW: CRITIC,
    Relay.FEEDBACK: SCORER,
    Relay.TIEBREAK: TIEBREAKER,
    Relay.AUTOREPLY: SCORER,
}


def role_of(agent_name: str) -> str:
    """The role name (``scorer``, ``critic``, ...) of a participant, or the name itself, lower-cased."""
    return ROLE_OF.get(agent_name, agent_name.lower())


def make_assistant(name: str, persona: Persona, client: ChatCompletionClient) -> AssistantAgent:
    """An ``AssistantAgent`` with the persona's text as its system message."""
    return AssistantAgent(
        name=name,
        model_client=client,
        system_message=persona.text,
        description=persona.description or f"The {role_of(name)} ({persona.name}).",
    )
