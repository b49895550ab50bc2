"""How a ChatEval panel is staffed and run (``ChatEvalConfig``), and the referees' names.

Defaults follow the paper's main setting (Chan et al. 2023, Section 3.3: "By default, we configure the
communication strategy to one-by-one, agent numbers to 2, and discussion turns to 2"; Appendix A names the
roles, and the released FairEval configuration staffs General Public and Critic): two referees, General
Public and Critic, one-by-one, 2 turns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from debate_eval.agents.personas import Persona, get_persona
from debate_eval.agents.roles import USER
from debate_eval.debates.chateval.prompts import (
    FAIREVAL_FINAL_PROMPT,
    FAIREVAL_FRAME,
    FAIREVAL_SUMMARY_PROMPT,
    NAME_LINE,
    PANEL_INSTRUCTIONS,
    REASK,
    SUMMARIZER_SYSTEM_MESSAGE,
)
from debate_eval.debates.fidelity import AUTHORS_CODE, FIDELITIES, PAPER

ONE_BY_ONE = "one-by-one"
SIMULTANEOUS = "simultaneous"
SIMULTANEOUS_SUMMARIZER = "simultaneous-summarizer"
STRATEGIES = (ONE_BY_ONE, SIMULTANEOUS, SIMULTANEOUS_SUMMARIZER)
DEFAULT_ROLES = ("general-public", "critic")
DEFAULT_TURNS = 2
REASK_LIMIT = 2  # paper mode: times a referee whose final answer has no score is asked again
FAIREVAL_MAX_RETRY = 3  # authors-code: BaseAgent.max_retry, attempts per turn until the format parses
FAIREVAL_MAX_TOKENS = 512  # authors-code: the FairEval configuration's max_tokens

# --fidelity authors-code: a referee persona whose released text differs from the paper's (Appendix A) is
# sent as released, under the same name (the name is what their prompts call the referee).
AUTHORS_REFEREES = {"critic": "authors-critic"}

REFEREE = "referee"  # the role of every referee (transcripts, accounting)
SUMMARIZER_ROLE = "summarizer"
SUMMARIZER = "Summarizer"  # the summarizer agent's name
DECIDED_BY = "referees"  # Outcome.decided_by: the score is the referees' mean, not one agent's answer


@dataclass(frozen=True)
class ChatEvalConfig:
    """How a ChatEval panel is staffed and run."""

    referees: tuple[Persona, ...] = field(default_factory=lambda: tuple(get_persona(r, REFEREE) for r in DEFAULT_ROLES))
    turns: int = DEFAULT_TURNS
    strategy: str = ONE_BY_ONE
    fidelity: str = PAPER
    reproduce_bugs: bool = False  # authors-code: their simultaneous-talk parser demands the format every turn

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"unknown ChatEval strategy {self.strategy!r}; strategies are: {', '.join(STRATEGIES)}")
        if not self.referees:
            raise ValueError("ChatEval needs at least one referee")
        if self.turns < 1:
            raise ValueError("ChatEval needs at least one discussion turn")
        if self.fidelity not in FIDELITIES:
            raise ValueError(f"unknown fidelity {self.fidelity!r}; choose from {', '.join(FIDELITIES)}")
        if self.reproduce_bugs and self.fidelity != AUTHORS_CODE:
            raise ValueError("reproduce_bugs belongs to --fidelity authors-code")

    @property
    def uses_summarizer(self) -> bool:
        """True for simultaneous-talk-with-summarizer."""
        return self.strategy == SIMULTANEOUS_SUMMARIZER

    @property
    def authors_code(self) -> bool:
        """True for ``--fidelity authors-code``."""
        return self.fidelity == AUTHORS_CODE

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (persona and instruction texts included) for config.json."""
        data: dict[str, Any] = {
            "fidelity": self.fidelity,
            "strategy": self.strategy,
            "turns": self.turns,
            "referee_count": len(self.referees),
            "referees": [p.to_dict() for p in self.referees],
        }
        if self.authors_code:
            data["authors_code"] = {
                "source": "chanchimin/ChatEval: agentverse/tasks/llm_eval/config.yaml (FairEval), llm_eval_multi*",
                "frame": FAIREVAL_FRAME,
                "final_prompt": FAIREVAL_FINAL_PROMPT,
                "summary_prompt": FAIREVAL_SUMMARY_PROMPT if self.uses_summarizer else None,
                "max_retry": FAIREVAL_MAX_RETRY,
                "max_tokens": FAIREVAL_MAX_TOKENS,
                "reproduce_bugs": self.reproduce_bugs,
            }
        else:
            data.update(
                instructions=PANEL_INSTRUCTIONS,
                name_line=NAME_LINE,
                summarizer=SUMMARIZER_SYSTEM_MESSAGE if self.uses_summarizer else None,
                reask=REASK,
                reask_limit=REASK_LIMIT,
            )
        return data


def authors_referee(persona: Persona) -> Persona:
    """``persona`` as ChatEval's released configuration words it (``AUTHORS_REFEREES``), its name kept."""
    released = AUTHORS_REFEREES.get(persona.name)
    if released is None or not persona.source.startswith("Chan et al."):  # a user's file keeps its own text
        return persona
    return replace(get_persona(released, REFEREE), name=persona.name)


def referee_names(referees: Sequence[Persona]) -> list[str]:
    """Agent names for the referees: ``general-public`` -> ``General_Public``; unique, valid identifiers."""
    taken = {USER.lower(), SUMMARIZER.lower()}
    names: list[str] = []
    for persona in referees:
        words = [w for w in re.split(r"[^0-9A-Za-z]+", persona.name) if w]
        base = "_".join(w[:1].upper() + w[1:] for w in words) or "Referee"
        if base[0].isdigit():
            base = f"Referee_{base}"
        name, k = base, 2
        while name.lower() in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name.lower())
        names.append(name)
    return names


def display_name(agent_name: str) -> str:
    """The name a referee goes by in the authors' prompts: ``General_Public`` -> ``General Public``."""
    return agent_name.replace("_", " ")
