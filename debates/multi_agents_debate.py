"""``MultiAgentsDebate``: DEBATE as an AutoGen group chat.

The group chat manager encodes the Commander's relaying and the NO ISSUE rule through ``DebateProtocol``:
it picks the next speaker from the protocol (no model call is spent on choosing speakers) and ends the
chat when the protocol says the debate is over.

Messages are *addressed*. In a plain AutoGen group chat every participant sees every message; in DEBATE
each agent sees only what the Commander sends it (the Commander is the collective memory). Each
participant's container therefore buffers only the messages whose ``metadata["to"]`` names it; the
Commander's container buffers everything.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from autogen_agentchat.base import ChatAgent, TerminationCondition
from autogen_agentchat.conditions import FunctionalTermination
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, MessageFactory
from autogen_agentchat.teams import BaseGroupChat
from autogen_agentchat.teams._group_chat._base_group_chat_manager import BaseGroupChatManager
from autogen_agentchat.teams._group_chat._chat_agent_container import ChatAgentContainer
from autogen_agentchat.teams._group_chat._events import GroupChatError, GroupChatTermination
from autogen_core import MessageContext, event

from debate_eval.agents.roles import COMMANDER
from debate_eval.debates.protocol import DebateProtocol

_Queue = asyncio.Queue[BaseAgentEvent | BaseChatMessage | GroupChatTermination]


class AddressedAgentContainer(ChatAgentContainer):
    """A participant container that keeps only the messages addressed to its agent."""

    def __init__(self, *args: Any, sees_everything: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sees_everything = sees_everything

    def _buffer_message(self, message: BaseChatMessage) -> None:
        if self._sees_everything or message.metadata.get("to") == self._agent.name:
            super()._buffer_message(message)

    @event
    async def handle_group_chat_error(self, message: GroupChatError, ctx: MessageContext) -> None:
        """Another participant failed: the manager ends the chat; nothing for this participant to do."""


class MultiAgentsDebateManager(BaseGroupChatManager):
    """Selects speakers and ends the chat as ``DebateProtocol`` says."""

    def __init__(self, *args: Any, protocol: DebateProtocol, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._protocol = protocol

    async def validate_group_state(self, messages: list[BaseChatMessage] | None) -> None:
        """A debate starts from exactly one message: the task."""
        if not messages or len(messages) != 1:
            raise ValueError("a debate starts from exactly one task message")

    async def update_message_thread(self, messages: Sequence[BaseAgentEvent | BaseChatMessage]) -> None:
        """Record the messages and advance the protocol with each chat message."""
        await super().update_message_thread(messages)
        for message in messages:
            if isinstance(message, BaseChatMessage):
                self._protocol.observe(message.source, dict(message.metadata), message.to_text())

    async def select_speaker(self, thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> list[str] | str:
        """The protocol's next speaker."""
        speaker = self._protocol.next_speaker()
        if speaker is None:
            raise RuntimeError("no next speaker: the debate should have ended")
        return speaker

    async def reset(self) -> None:
        """Start over."""
        self._current_turn = 0
        self._message_thread.clear()
        if self._termination_condition is not None:
            await self._termination_condition.reset()
        self._protocol.reset()


class MultiAgentsDebate(BaseGroupChat):
    """The DEBATE team: Commander, Scorer, Critic and, optionally, the Tie-breaker.

    Run it with ``team.run(task=message)`` where ``message`` is the task prompt addressed to the Scorer in
    the Commander's name (fixed relays), or to the Commander from the user (LLM Commander).
    """

    def __init__(self, participants: list[ChatAgent], protocol: DebateProtocol) -> None:
        self._protocol = protocol
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

    def _create_group_chat_manager_factory(
        self,
        name: str,
        group_topic_type: str,
        output_topic_type: str,
        participant_topic_types: list[str],
        participant_names: list[str],
        participant_descriptions: list[str],
        output_message_queue: _Queue,
        termination_condition: TerminationCondition | None,
        max_turns: int | None,
        message_factory: MessageFactory,
    ) -> Callable[[], MultiAgentsDebateManager]:
        def factory() -> MultiAgentsDebateManager:
            return MultiAgentsDebateManager(
                name,
                group_topic_type,
                output_topic_type,
                participant_topic_types,
                participant_names,
                participant_descriptions,
                output_message_queue,
                termination_condition,
                max_turns,
                message_factory,
                self._emit_team_events,
                protocol=self._protocol,
            )

        return factory

    def _create_participant_factory(
        self,
        parent_topic_type: str,
        output_topic_type: str,
        agent: Any,
        message_factory: MessageFactory,
    ) -> Callable[[], ChatAgentContainer]:
        def factory() -> ChatAgentContainer:
            return AddressedAgentContainer(
                parent_topic_type,
                output_topic_type,
                agent,
                message_factory,
                sees_everything=agent.name == COMMANDER,
            )

        return factory
