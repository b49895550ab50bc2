"""Run one DEBATE (or MultiAgent / Tie-breaker / Both) evaluation of one item.

``fidelity`` picks whose debate is run: ``paper`` (Algorithm 1, Appendices D, E, G) or ``authors-code``
(their released code's message sequence, parsing and Tie-breaker input; see ``authors.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage
from autogen_core import CancellationToken

from debate_eval.agents.commander import REASK, CommanderAgent
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.personas import Persona
from debate_eval.agents.roles import COMMANDER, CRITIC, SCORER, TIEBREAKER, Relay, make_assistant
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.debate.authors import (
    AUTHORS_TIEBREAK,
    AuthorsBranch,
    AuthorsCodeProtocol,
    SystemPromptAgent,
    TiebreakerTemplate,
    authors_branch,
    authors_marker,
    authors_score,
    their_final_message,
)
from debate_eval.debates.debate.team import run_team
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.fidelity import AUTHORS_CODE, FIDELITIES, PAPER
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial, says_no_issue


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
    """Run the debate for ``task`` and parse the final score."""
    calls: list[CallRecord] = []
    material = task.material()
    branch = config.branch if config.authors_code else None
    protocol: DebateProtocol
    if branch is not None:
        marker = branch.marker
        protocol = AuthorsCodeProtocol(
            max_rounds=config.max_rounds,
            tie_breaker=config.tiebreaker is not None,
            critic_agrees=lambda text: authors_marker(text, marker, material),
        )
    else:
        protocol = DebateProtocol(
            max_rounds=config.max_rounds,
            tie_breaker=config.tiebreaker is not None,
            critic_agrees=lambda text: says_no_issue(text, material, case_sensitive=config.marker_case_sensitive),
        )
    agents: dict[str, ChatAgent] = {
        SCORER: make_assistant(SCORER, config.scorer, pool.for_debate("scorer", calls)),
        CRITIC: make_assistant(CRITIC, config.critic, pool.for_debate("critic", calls)),
    }
    tiebreak_text = None
    if config.tiebreaker is not None:
        client = pool.for_debate("tiebreaker", calls)
        if branch is not None:
            agents[TIEBREAKER] = SystemPromptAgent(TIEBREAKER, client, config.tiebreaker.description)
            tiebreak_text = _authors_tiebreak(task, config.tiebreaker, config.tiebreaker_template)
        else:
            agents[TIEBREAKER] = make_assistant(TIEBREAKER, config.tiebreaker, client)
    llm = None
    if config.commander_llm:
        llm = make_assistant(COMMANDER, config.commander, pool.for_debate("commander", calls))
    commander = CommanderAgent(
        task.prompt,
        lambda: protocol.pending,
        system_message=config.commander.text,
        answer_hint=task.answer_hint(),
        llm=llm,
        forward_first=branch is not None,
        reply_client=pool.for_debate("commander", calls) if branch is not None else None,
        tiebreak_text=tiebreak_text,
    )
    participants: list[ChatAgent] = [commander, *agents.values()]
    messages = await run_team(participants, protocol, task.prompt, commander_llm=config.commander_llm)

    decider = protocol.decided_by
    details: dict[str, Any] = {"fidelity": config.fidelity}
    reasked = False
    if branch is not None:
        chat = [m for m in messages if isinstance(m, BaseChatMessage)]
        final = _last_message(chat, decider)
        if decider == SCORER and config.reproduce_bugs:
            final = their_final_message(chat)
            decider = final.source
        parsed = authors_score(final.to_text(), task.aspect, branch.extraction, material)
        assert isinstance(protocol, AuthorsCodeProtocol)
        details["authors_code"] = {
            "branch": branch.name,
            "commander_replies": protocol.commander_replies,
            "scorer_unanswered": protocol.unanswered,
            "final_relay": final.metadata.get("relay") if final.source == COMMANDER else None,
        }
    else:
        parsed = score_text(_last_from(messages, decider), task, material)
        if not parsed.ok and config.reask:
            reasked = True
            question = TextMessage(
                source=COMMANDER,
                content=REASK.format(answer_hint=task.answer_hint()),
                metadata={"to": decider, "relay": Relay.REASK.value},
            )
            answer = await agents[decider].on_messages([question], CancellationToken())
            messages += [question, answer.chat_message]
            retry = score_text(answer.chat_message.to_text(), task, material)
            if retry.ok:
                parsed = retry

    transcript = build_transcript(messages, calls, _scoring_parser(task, material, branch))
    return Outcome(
        score=parsed.value if parsed.ok else None,
        parse=parsed,
        decided_by=decider,
        stop_reason=protocol.stop_reason.value,
        transcript=transcript,
        calls=calls,
        agreed=protocol.agreed,
        rounds=protocol.rounds,
        reasked=reasked,
        details=details,
    )


def _authors_tiebreak(
    task: EvaluationTask, persona: Persona, template: TiebreakerTemplate | None
) -> Callable[[str], str]:
    """The authors' Tie-breaker text for ``task``, given their debate log: the user's copy of their prompt file
    filled in, else their layout around the task prompt (``AUTHORS_TIEBREAK``)."""

    def text(log: str) -> str:
        if template is not None:
            return template.render(task.inputs, log)
        return AUTHORS_TIEBREAK.format(
            persona=persona.text, task=task.prompt, debate=log, low=task.scale.low, high=task.scale.high
        )

    return text


def _last_message(messages: list[BaseChatMessage], source: str) -> BaseChatMessage:
    for message in reversed(messages):
        if message.source == source:
            return message
    raise RuntimeError(f"the debate has no message from the {source}")


def _last_from(messages: list[BaseAgentEvent | BaseChatMessage], source: str) -> str:
    for message in reversed(messages):
        if isinstance(message, BaseChatMessage) and message.source == source:
            return message.to_text()
    raise RuntimeError(f"the debate has no message from the {source}")


def _scoring_parser(task: EvaluationTask, material: UntrustedMaterial, branch: AuthorsBranch | None = None):  # type: ignore[no-untyped-def]
    def parse(message: BaseChatMessage) -> ParsedScore | None:
        if message.source not in (SCORER, TIEBREAKER):
            return None
        if branch is not None:
            return authors_score(message.to_text(), task.aspect, branch.extraction, material)
        return score_text(message.to_text(), task, material)

    return parse
