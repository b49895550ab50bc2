"""Run one DEBATE (or MultiAgent / Tie-breaker / Both) evaluation of one item.

``fidelity`` picks whose debate is run, a ``Flow`` (``flow.py``): ``paper`` (Algorithm 1, Appendices D, E, G;
``paper.py``) or ``authors-code`` (their released code's message sequence, parsing and Tie-breaker input;
``authors_code.py`` on the pieces in ``authors.py``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseChatMessage

from debate_eval.agents.commander import CommanderAgent
from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import (
    COMMANDER,
    COMMANDER_ROLE,
    CRITIC,
    CRITIC_ROLE,
    SCORER,
    SCORER_ROLE,
    TIEBREAKER,
    TIEBREAKER_ROLE,
    make_assistant,
)
from debate_eval.debates.debate.authors_code import AuthorsCodeFlow
from debate_eval.debates.debate.config import DebateConfig
from debate_eval.debates.debate.flow import Finished, Flow
from debate_eval.debates.debate.paper import PaperFlow
from debate_eval.debates.debate.team import MultiAgentsDebate, run_on
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.group_chat import runtime_mode
from debate_eval.debates.kit.transcript import build_transcript, mark_agreement
from debate_eval.debates.scoring.scores import ParsedScore


def flow_of(config: DebateConfig) -> Flow:
    """The flow of ``config``'s fidelity."""
    if config.authors_code:
        assert config.branch is not None  # set by DebateConfig for authors-code
        return AuthorsCodeFlow(config.branch)
    return PaperFlow()


@dataclass
class Crew:
    """The agents of one debate at a time: the Scorer, the Critic, the Tie-breaker and the LLM Commander's
    assistant, each on a client that each item points at its own recording client (``DelegatingClient.inner``),
    and, once it has run, their team (``MultiAgentsDebate``, with its runtime)."""

    agents: dict[str, ChatAgent]
    llm: ChatAgent | None
    clients: dict[str, DelegatingClient]
    loop: asyncio.AbstractEventLoop
    team: MultiAgentsDebate | None = None

    @classmethod
    def staff(cls, config: DebateConfig, flow: Flow, clients: dict[str, DelegatingClient]) -> Crew:
        """The agents of ``config`` on ``clients`` (one per role that calls the model, by role name)."""
        agents: dict[str, ChatAgent] = {
            SCORER: make_assistant(SCORER, config.scorer, clients[SCORER_ROLE]),
            CRITIC: make_assistant(CRITIC, config.critic, clients[CRITIC_ROLE]),
        }
        if config.tiebreaker is not None:
            agents[TIEBREAKER] = flow.tiebreaker(config, clients[TIEBREAKER_ROLE])
        llm = make_assistant(COMMANDER, config.commander, clients[COMMANDER_ROLE]) if config.commander_llm else None
        return cls(agents, llm, clients, asyncio.get_running_loop())

    def reusable(self) -> bool:
        """Whether this crew's team can run the next debate here: on this event loop (its runtime's queues
        belong to one), with the runtime AutoGen's telemetry settings now call for."""
        return (
            self.team is not None
            and self.loop is asyncio.get_running_loop()
            and self.team.team_runtime.mode == runtime_mode()
        )


class DebateTeams:
    """Crews of one configuration kept between items, for one judge or run (``DebateMethod.evaluator``): an
    item takes an idle one (its team reset) or makes one, and gives it back when its debate ended as the
    protocol says; a debate that failed or was cancelled drops its crew. So there are at most as many as items
    ran at once, and each team's runtime, registrations and agents are made once."""

    def __init__(self) -> None:
        self._idle: list[Crew] = []

    def take(self) -> Crew | None:
        """An idle crew that can run here, or None; crews that cannot are dropped."""
        while self._idle:
            crew = self._idle.pop()
            if crew.reusable():
                return crew
        return None

    def give_back(self, crew: Crew) -> None:
        """Keep ``crew`` for a later item."""
        self._idle.append(crew)


def roles_of(config: DebateConfig) -> list[str]:
    """The roles whose agents call the model through a recording client, in the order they are made."""
    roles = [SCORER_ROLE, CRITIC_ROLE]
    if config.tiebreaker is not None:
        roles.append(TIEBREAKER_ROLE)
    if config.commander_llm:
        roles.append(COMMANDER_ROLE)
    return roles


async def run_debate(
    task: EvaluationTask, config: DebateConfig, pool: ClientPool, teams: DebateTeams | None = None
) -> Outcome:
    """Run the debate for ``task`` and parse the final score, following the flow of ``config``'s fidelity
    (``flow_of``: the paper's or the authors' code's); with ``teams``, on a crew kept from an earlier item
    when there is one."""
    calls: list[CallRecord] = []
    material = task.material()
    flow = flow_of(config)
    protocol = flow.protocol(config, material)
    observed = {role: pool.for_debate(role, calls) for role in roles_of(config)}  # this item's recording clients
    crew = teams.take() if teams is not None else None
    if crew is None:
        crew = Crew.staff(config, flow, {role: DelegatingClient(client) for role, client in observed.items()})
    else:
        for role, client in observed.items():
            crew.clients[role].inner = client
    commander = CommanderAgent(
        task.prompt,
        lambda: protocol.pending,
        system_message=config.commander.text,
        answer_hint=task.answer_hint(),
        llm=crew.llm,
        forward_first=flow.forward_first,
        reply_client=pool.for_debate(COMMANDER_ROLE, calls) if flow.commander_replies else None,
        tiebreak_text=flow.tiebreak_text(task, config) if config.tiebreaker is not None else None,
    )
    if crew.team is None:
        crew.team = MultiAgentsDebate([commander, *crew.agents.values()], protocol)
    else:
        crew.team.begin(commander, protocol)
        await crew.team.reset()
    messages = await run_on(crew.team, task.prompt, commander_llm=config.commander_llm)
    final = await flow.final(Finished(task, config, material, messages, protocol, crew.agents))

    def parse(message: BaseChatMessage) -> ParsedScore | None:
        return flow.parse(message.to_text(), task, material) if message.source in (SCORER, TIEBREAKER) else None

    transcript = mark_agreement(build_transcript(final.messages, calls, parse), protocol.critic_agrees)
    if teams is not None:
        teams.give_back(crew)
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
