"""How a debate is staffed and run: ``DebateConfig``, the configuration every part of a debate reads (the
flows, the run, the pairwise form, the method)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debate_eval.agents.personas import Persona
from debate_eval.debates.debate.authors import AuthorsBranch, TiebreakerTemplate, authors_branch
from debate_eval.debates.fidelity import AUTHORS_CODE, FIDELITIES, PAPER


@dataclass(frozen=True)
class DebateConfig:
    """How a debate is staffed and run."""

    scorer: Persona
    critic: Persona
    commander: Persona
    tiebreaker: Persona | None = None  # None: the n-th score stands when the Critic never agrees
    max_rounds: int = 2
    commander_llm: bool = False
    reask: bool = True  # ask the deciding agent once more when its answer has no parsable score
    marker_case_sensitive: bool = False
    fidelity: str = PAPER  # or AUTHORS_CODE
    branch: AuthorsBranch | None = None  # authors-code: the released script followed (default from the protocol)
    reproduce_bugs: bool = False  # authors-code: take their [-2] final message even when it is a relay text
    tiebreaker_template: TiebreakerTemplate | None = None  # authors-code: the user's copy of their prompt file

    def __post_init__(self) -> None:
        if self.fidelity not in FIDELITIES:
            raise ValueError(f"unknown fidelity {self.fidelity!r}; choose from {', '.join(FIDELITIES)}")
        if self.fidelity == AUTHORS_CODE:
            if self.commander_llm:
                raise ValueError("--commander-llm belongs to --fidelity paper (their Commander's calls are fixed)")
            if self.branch is None:
                object.__setattr__(self, "branch", authors_branch(self.tiebreaker is not None))
        elif self.reproduce_bugs:
            raise ValueError("reproduce_bugs belongs to --fidelity authors-code")
        if self.tiebreaker_template is not None and (self.fidelity != AUTHORS_CODE or self.tiebreaker is None):
            raise ValueError("a Tie-breaker prompt file belongs to --fidelity authors-code with a Tie-breaker")

    @property
    def authors_code(self) -> bool:
        """True for ``--fidelity authors-code``."""
        return self.fidelity == AUTHORS_CODE

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (persona texts included) for config.json."""
        authors = self.authors_code
        data: dict[str, Any] = {
            "fidelity": self.fidelity,
            "scorer": self.scorer.to_dict(),
            "critic": self.critic.to_dict(),
            "commander": self.commander.to_dict(),
            "tiebreaker": self.tiebreaker.to_dict() if self.tiebreaker else None,
            "max_rounds": self.max_rounds,
            "commander_llm": self.commander_llm,
            "reask": self.reask and not authors,
            "marker_case_sensitive": self.marker_case_sensitive or authors,
            "authors_code": (
                {**self.branch.to_dict(), "reproduce_bugs": self.reproduce_bugs} if authors and self.branch else None
            ),
        }
        if self.tiebreaker_template is not None:  # only when set: the hashes of other configurations stay
            data["tiebreaker_template"] = self.tiebreaker_template.to_dict()
        return data
