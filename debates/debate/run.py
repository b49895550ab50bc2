"""Run one DEBATE (or MultiAgent / Tie-breaker / Both) evaluation of one item."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage
from autogen_core import CancellationToken

from debate_eval.agents.commander import REASK, CommanderAgent
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.personas import Persona
from debate_eval.agents.roles import COMMANDER, CRITIC, SCORER, TIEBREAKER, USER, Relay, make_assistant
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.debate.team import MultiAgentsDebate
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial, says_no_issue
from debate_eval.debates.transcript import build_transcript


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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view (persona texts included) for config.json."""
        return {
            "scorer": self.scorer.to_dict(),
            "critic": self.critic.to_dict(),
            "commander": self.commander.to_dict(),
            "tiebreaker": self.tiebreaker.to_dict() if self.tiebreaker else None,
            "max_rounds": self.max_rounds,
            "commander_llm": self.commander_llm,
            "reask": self.reask,
            "marker_case_sensitive": self.marker_case_sensitive,
        }


async def run_debate(task: EvaluationTask, config: DebateConfig, pool: ClientPool) -> Outcome:
    """Run the debate for ``task`` and parse the final score."""
    calls: list[CallRecord] = []
    material = task.material()
    protocol = DebateProtocol(
        max_rounds=config.max_rounds,
        tie_breaker=config.tiebreaker is not None,
        critic_agrees=lambda text: says_no_issue(text, material, case_sensitive=config.marker_case_sensitive),
    )
    agents: dict[str, AssistantAgent] = {
        SCORER: make_assistant(SCORER, config.scorer, pool.for_debate("scorer", calls)),
        CRITIC: make_assistant(CRITIC, config.critic, pool.for_debate("critic", calls)),
    }
    if config.tiebreaker is not None:
        agents[TIEBREAKER] = make_assistant(TIEBREAKER, config.tiebreaker, pool.for_debate("tiebreaker", calls))
    llm = None
    if config.commander_llm:
        llm = make_assistant(COMMANDER, config.commander, pool.for_debate("commander", calls))
    commander = CommanderAgent(
        task.prompt,
        lambda: protocol.pending,
        system_message=config.commander.text,
        answer_hint=task.answer_hint(),
        llm=llm,
    )
    participants: list[ChatAgent] = [commander, *agents.values()]
    team = MultiAgentsDebate(participants, protocol)
    if config.commander_llm:
        opening = TextMessage(source=USER, content=task.prompt, metadata={"to": COMMANDER})
    else:
        opening = TextMessage(source=COMMANDER, content=task.prompt, metadata={"to": SCORER, "relay": "task"})
    result = await team.run(task=opening)
    messages: list[BaseAgentEvent | BaseChatMessage] = list(result.messages)
    if protocol.stop_reason is None:
        raise RuntimeError(f"the debate ended without a verdict: {result.stop_reason}")

    decider = protocol.decided_by
    parsed = score_text(_last_from(messages, decider), task, material)
    reasked = False
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

    transcript = build_transcript(messages, calls, _scoring_parser(task, material))
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
    )


def _last_from(messages: list[BaseAgentEvent | BaseChatMessage], source: str) -> str:
    for message in reversed(messages):
        if isinstance(message, BaseChatMessage) and message.source == source:
            return message.to_text()
    raise RuntimeError(f"the debate has no message from the {source}")


def _scoring_parser(task: EvaluationTask, material: UntrustedMaterial):  # type: ignore[no-untyped-def]
    def parse(message: BaseChatMessage) -> ParsedScore | None:
        if message.source in (SCORER, TIEBREAKER):
            return score_text(message.to_text(), task, material)
        return None

    return parse
