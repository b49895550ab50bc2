"""Run one DEBATE (or MultiAgent / Tie-breaker / Both) evaluation of one item.

``fidelity`` picks whose debate is run, a ``Flow`` (``flow.py``): ``paper`` (Algorithm 1, Appendices D, E, G;
``paper.py``) or ``authors-code`` (their released code's message sequence, parsing and Tie-breaker input;
``authors_code.py`` on the pieces in ``authors.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseChatMessage

from debate_eval.agents.commander import CommanderAgent
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.personas import Persona
from debate_eval.agents.roles import COMMANDER, CRITIC, SCORER, TIEBREAKER, make_assistant
from debate_eval.debates.debate.authors import (
    AuthorsBranch,
    TiebreakerTemplate,
    authors_branch,
)
from debate_eval.debates.debate.flow import flow_of
from debate_eval.debates.debate.team import run_team
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.fidelity import AUTHORS_CODE, FIDELITIES, PAPER
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.scoring.scores import ParsedScore


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


async def run_debate(task: EvaluationTask, config: DebateConfig, pool: ClientPool) -> Outcome:
    """Run the debate for ``task`` and parse the final score, following the flow of ``config``'s fidelity
    (``flow.flow_of``: the paper's or the authors' code's)."""
    calls: list[CallRecord] = []
    material = task.material()
    flow = flow_of(config)
    protocol = flow.protocol(config, material)
    agents: dict[str, ChatAgent] = {
        SCORER: make_assistant(SCORER, config.scorer, pool.for_debate("scorer", calls)),
        CRITIC: make_assistant(CRITIC, config.critic, pool.for_debate("critic", calls)),
    }
    tiebreak_text = None
    if config.tiebreaker is not None:
        agents[TIEBREAKER], tiebreak_text = flow.tiebreaker(task, config, pool.for_debate("tiebreaker", calls))
    llm = None
    if config.commander_llm:
        llm = make_assistant(COMMANDER, config.commander, pool.for_debate("commander", calls))
    commander = CommanderAgent(
        task.prompt,
        lambda: protocol.pending,
        system_message=config.commander.text,
        answer_hint=task.answer_hint(),
        llm=llm,
        forward_first=flow.forward_first,
        reply_client=pool.for_debate("commander", calls) if flow.commander_replies else None,
        tiebreak_text=tiebreak_text,
    )
    participants: list[ChatAgent] = [commander, *agents.values()]
    messages = await run_team(participants, protocol, task.prompt, commander_llm=config.commander_llm)
    final = await flow.final(task, config, material, messages, protocol, agents)

    def parse(message: BaseChatMessage) -> ParsedScore | None:
        return flow.parse(message.to_text(), task, material) if message.source in (SCORER, TIEBREAKER) else None

    transcript = build_transcript(final.messages, calls, parse)
    return Outcome(
        score=final.parsed.value if final.parsed.ok else None,
        parse=final.parsed,
        decided_by=final.decider,
        stop_reason=protocol.stop_reason.value,
        transcript=transcript,
        calls=calls,
        agreed=protocol.agreed,
        rounds=protocol.rounds,
        reasked=final.reasked,
        details={"fidelity": config.fidelity, **final.details},
    )
