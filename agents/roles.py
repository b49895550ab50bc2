"""The one vocabulary of roles, and the AutoGen agents for each role.

Role names (lower case) are what personas are filed under, what model settings are keyed by
(``DEBATE_EVAL_<ROLE>_MODEL``, ``--role-model ROLE=...``), what transcripts and usage accounting record, and
what the scripted test server recognises. Agent names (``Scorer``, ``Critic``, ...) are the participants'
names in a conversation; ``role_of`` maps one to the other. A method with agents of its own registers their
roles (``register_roles``: Fennec's, in ``debates/fennec/roles.py``) when it is loaded.

Scorer, Critic and Tie-breaker are AutoGen ``AssistantAgent``s whose system messages are the paper's
(Appendix G.1; see ``personas``). Each keeps its own model context across its turns: with ``--fidelity paper``
the Scorer sees [P, S1, feedback, S2, ...] and the Critic [(P, S1), C1, (P, S2), C2, ...]; the authors' code
(``--fidelity authors-code``) put the Commander's own reply after S1 in the Scorer's history and gave the
Critic (P, S1) every round.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_core.models import ChatCompletionClient

    from debate_eval.agents.personas import Persona

# ------------------------------------------------------------------------------------------- role names
SCORER_ROLE = "scorer"
CRITIC_ROLE = "critic"
COMMANDER_ROLE = "commander"
TIEBREAKER_ROLE = "tiebreaker"
EVALUATOR_ROLE = "evaluator"  # G-Eval's single agent (its calls use the Scorer's model settings)
REFEREE_ROLE = "referee"  # a ChatEval referee
SUMMARIZER_ROLE = "summarizer"  # ChatEval's summarizer
USER_ROLE = "user"

# The roles with model settings of their own (the others use the Scorer's); ``register_roles`` adds a
# method's (Fennec's four), after these, when the method is loaded.
MODEL_ROLES: list[str] = [SCORER_ROLE, CRITIC_ROLE, COMMANDER_ROLE, TIEBREAKER_ROLE]
PERSONA_ROLES = (COMMANDER_ROLE, SCORER_ROLE, CRITIC_ROLE, TIEBREAKER_ROLE, REFEREE_ROLE)  # have personas

# ------------------------------------------------------------------------------------------ agent names
COMMANDER = "Commander"
SCORER = "Scorer"
CRITIC = "Critic"
TIEBREAKER = "TieBreaker"
EVALUATOR = "Evaluator"  # the single G-Eval agent
USER = "user"

ROLE_OF = {
    COMMANDER: COMMANDER_ROLE,
    SCORER: SCORER_ROLE,
    CRITIC: CRITIC_ROLE,
    TIEBREAKER: TIEBREAKER_ROLE,
    EVALUATOR: EVALUATOR_ROLE,
    USER: USER_ROLE,
}


def register_roles(agents: Mapping[str, str], model_roles: Iterable[str] = ()) -> None:
    """A method's own agents: their names -> their roles (``role_of``), and the roles among them with model
    settings of their own (``--role-model ROLE=...``, ``$DEBATE_EVAL_<ROLE>_MODEL``), listed after the others.
    Registering the same roles again changes nothing; an agent name taken by another role is a ``ValueError``."""
    for agent, role in agents.items():
        if ROLE_OF.setdefault(agent, role) != role:
            raise ValueError(f"agent name {agent!r} already has the role {ROLE_OF[agent]!r}")
    MODEL_ROLES.extend(role for role in model_roles if role not in MODEL_ROLES)


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
    from autogen_agentchat.agents import AssistantAgent  # here: the vocabulary above loads without AutoGen

    return AssistantAgent(
        name=name,
        model_client=client,
        system_message=persona.text,
        description=persona.description or f"The {role_of(name)} ({persona.name}).",
    )
