"""``MultiAgentsDebate``: DEBATE as an AutoGen group chat.

The group chat manager encodes the Commander's relaying and the NO ISSUE rule through ``DebateProtocol``:
it picks the next speaker from the protocol (no model call is spent on choosing speakers) and ends the
chat when the protocol says the debate is over.

Messages are *addressed*. In a plain AutoGen group chat every participant sees every message; in DEBATE
each agent sees only what the Commander sends it (the Commander is the collective memory). Each
participant's container therefore buffers only the messages whose ``metadata["to"]`` names it. The
Commander sees everything, and its relays are written by the manager itself (``RelayingManager``): each
model call of the Scorer, the Critic or the Tie-breaker is one turn of the group chat, not two.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autogen_agentchat.base import ChatAgent, TerminationCondition
from autogen_agentchat.conditions import FunctionalTermination
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage

from debate_eval.agents.roles import COMMANDER, CRITIC, SCORER, USER
from debate_eval.agents.telemetry import debate_round
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.group_chat import Accepts, RelayingManager, RoutedGroupChat


class MultiAgentsDebateManager(RelayingManager):
    """Selects speakers and ends the chat as ``DebateProtocol`` says; writes the Commander's relays itself
    (``RelayingManager``), so each model call of the Scorer, the Critic or the Tie-breaker is one turn."""

    def __init__(self, *args: Any, protocol: DebateProtocol, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._protocol = protocol

    def observe(self, message: BaseChatMessage) -> None:
        """Advance the protocol with a chat message."""
        self._protocol.observe(message.source, dict(message.metadata), message.to_text())

    def next_speaker(self) -> str:
        """The protocol's next speaker."""
        speaker = self._protocol.next_speaker()
        if speaker is None:
            raise RuntimeError("no next speaker: the debate should have ended")
        debate_round(self._protocol.rounds + (speaker == CRITIC))  # the round's span, when the run is traced
        return speaker

    def addressees(self, message: BaseChatMessage) -> Sequence[str]:
        """The Commander's message goes to its addressee only (the only container that buffers it)."""
        return [str(message.metadata["to"])]

    async def reset(self) -> None:
        """Start over."""
        await super().reset()
        self._protocol.reset()


class MultiAgentsDebate(RoutedGroupChat):
    """The DEBATE team: Commander, Scorer, Critic and, optionally, the Tie-breaker.

    Run it with ``team.run(task=message)`` where ``message`` is the task prompt addressed to the Scorer in
    the Commander's name (fixed relays), or to the Commander from the user (LLM Commander).
    """

    def __init__(self, participants: list[ChatAgent], protocol: DebateProtocol) -> None:
        self._protocol = protocol
        self._commander = next(agent for agent in participants if agent.name == COMMANDER)
        termination: TerminationCondition = FunctionalTermination(lambda _messages: protocol.finished)
        super().__init__(
            name="MultiAgentsDebate",
            description="DEBATE: a Scorer and a Devil's-Advocate Critic debate a score, led by a Commander.",
            participants=list(participants),
            group_chat_manager_name="MultiAgentsDebateManager",
            group_chat_manager_class=MultiAgentsDebateManager,
            termination_condition=termination,
            max_turns=protocol.max_turns(),
        )

    @property
    def protocol(self) -> DebateProtocol:
        """The debate's state."""
        return self._protocol

    def accepts(self, agent_name: str) -> Accepts:
        """Every agent but the Commander sees only what is addressed to it; the Commander sees everything,
        given by the manager that runs its turns (its container buffers nothing)."""
        if agent_name == COMMANDER:
            return lambda message: False
        return lambda message: message.metadata.get("to") == agent_name

    def manager_kwargs(self) -> Mapping[str, Any]:
        """The manager drives the protocol and runs the Commander's turns."""
        return {"protocol": self._protocol, "relayer": self._commander}


async def run_team(
    participants: Sequence[ChatAgent], protocol: DebateProtocol, prompt: str, *, commander_llm: bool
) -> list[BaseAgentEvent | BaseChatMessage]:
    """Run one debate and return its messages. The opening is the task for the Commander (which then
    writes its own relay, ``--commander-llm``) or the Commander's fixed relay of P to the Scorer; a debate
    that ends before the protocol reached a stop reason is an error."""
    team = MultiAgentsDebate(list(participants), protocol)
    if commander_llm:
        opening = TextMessage(source=USER, content=prompt, metadata={"to": COMMANDER})
    else:
        opening = TextMessage(source=COMMANDER, content=prompt, metadata={"to": SCORER, "relay": "task"})
    result = await team.run(task=opening)
    if protocol.stop_reason is None:
        raise RuntimeError(f"the debate ended without a verdict: {result.stop_reason}")
    return list(result.messages)
