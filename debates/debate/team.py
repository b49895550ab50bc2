"""``MultiAgentsDebate``: DEBATE as an AutoGen group chat.

The group chat manager encodes the Commander's relaying and the NO ISSUE rule through ``DebateProtocol``:
it picks the next speaker from the protocol (no model call is spent on choosing speakers) and ends the
chat when the protocol says the debate is over.

Messages are *addressed*. In a plain AutoGen group chat every participant sees every message; in DEBATE
each agent sees only what the Commander sends it (the Commander is the collective memory). Each
participant's container therefore buffers only the messages whose ``metadata["to"]`` names it. The
Commander sees everything, and its relays are written by the manager itself (``RelayingManager``): each
model call of the Scorer, the Critic or the Tie-breaker is one turn of the group chat, not two. The
Commander is the manager's, not a participant of the chat (no container of its own: nothing is delivered
to it twice).

One team can judge item after item (``MultiAgentsDebate.begin`` before each run): the next item's Commander
and protocol replace the last one's, and ``reset`` clears the agents' memory; its runtime, the agents'
registrations and subscriptions are made once, at its first run.
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
    """Selects speakers and ends the chat as the team's ``DebateProtocol`` says; writes the team's Commander's
    relays itself (``RelayingManager``), so each model call of the Scorer, the Critic or the Tie-breaker is one
    turn."""

    def __init__(self, *args: Any, debate: MultiAgentsDebate, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._debate = debate  # its protocol and Commander: those of the item it runs now

    def relayer(self) -> ChatAgent:
        """The team's Commander."""
        return self._debate.commander

    def observe(self, message: BaseChatMessage) -> None:
        """Advance the protocol with a chat message."""
        self._debate.protocol.observe(message.source, dict(message.metadata), message.to_text())

    def next_speaker(self) -> str:
        """The protocol's next speaker."""
        protocol = self._debate.protocol
        speaker = protocol.next_speaker()
        if speaker is None:
            raise RuntimeError("no next speaker: the debate should have ended")
        debate_round(protocol.rounds + (speaker == CRITIC))  # the round's span, when the run is traced
        return speaker

    def addressees(self, message: BaseChatMessage) -> Sequence[str]:
        """The Commander's message goes to its addressee only (the only container that buffers it)."""
        return [str(message.metadata["to"])]

    async def reset(self) -> None:
        """Start over."""
        await super().reset()
        self._debate.protocol.reset()


class MultiAgentsDebate(RoutedGroupChat):
    """The DEBATE team: Commander, Scorer, Critic and, optionally, the Tie-breaker.

    ``participants`` name the Commander among them; it is the manager's (see the module), the others are the
    chat's participants. Run it with ``team.run(task=message)`` where ``message`` is the task prompt addressed
    to the Scorer in the Commander's name (fixed relays), or to the Commander from the user (LLM Commander).
    One participant speaks at a time: the manager sends each what is addressed to it and puts their messages
    in the chat's output (``RoutedGroupChat.manager_routes``).
    """

    manager_routes = True

    def __init__(self, participants: Sequence[ChatAgent], protocol: DebateProtocol) -> None:
        self._protocol = protocol
        self._commander = next(agent for agent in participants if agent.name == COMMANDER)
        self._max_turns = protocol.max_turns()
        termination: TerminationCondition = FunctionalTermination(lambda _messages: self._protocol.finished)
        super().__init__(
            name="MultiAgentsDebate",
            description="DEBATE: a Scorer and a Devil's-Advocate Critic debate a score, led by a Commander.",
            participants=[agent for agent in participants if agent is not self._commander],
            group_chat_manager_name="MultiAgentsDebateManager",
            group_chat_manager_class=MultiAgentsDebateManager,
            termination_condition=termination,
            max_turns=self._max_turns,
        )

    @property
    def protocol(self) -> DebateProtocol:
        """The debate's state."""
        return self._protocol

    @property
    def commander(self) -> ChatAgent:
        """The Commander, whose relays the manager writes."""
        return self._commander

    def begin(self, commander: ChatAgent, protocol: DebateProtocol) -> None:
        """Judge the next item with this Commander and protocol (then ``reset`` the team, before its run)."""
        if protocol.max_turns() != self._max_turns:
            raise ValueError("the protocol's turn limit differs from the team's: build a team for it")
        self._commander, self._protocol = commander, protocol

    def accepts(self, agent_name: str) -> Accepts:
        """Every participant sees only what is addressed to it (the Commander, no participant, sees everything:
        the manager that runs its turns gives it)."""
        return lambda message: message.metadata.get("to") == agent_name

    def manager_kwargs(self) -> Mapping[str, Any]:
        """The manager drives the team's protocol and runs its Commander's turns."""
        return {"debate": self}


def opening(prompt: str, *, commander_llm: bool) -> TextMessage:
    """The debate's first message: the task for the Commander (which then writes its own relay,
    ``--commander-llm``) or the Commander's fixed relay of P to the Scorer."""
    if commander_llm:
        return TextMessage(source=USER, content=prompt, metadata={"to": COMMANDER})
    return TextMessage(source=COMMANDER, content=prompt, metadata={"to": SCORER, "relay": "task"})


async def run_on(
    team: MultiAgentsDebate, prompt: str, *, commander_llm: bool
) -> list[BaseAgentEvent | BaseChatMessage]:
    """Run one debate on ``team`` (its Commander and protocol set) and return its messages; a debate that ends
    before the protocol reached a stop reason is an error."""
    result = await team.run(task=opening(prompt, commander_llm=commander_llm))
    if team.protocol.stop_reason is None:
        raise RuntimeError(f"the debate ended without a verdict: {result.stop_reason}")
    return list(result.messages)
