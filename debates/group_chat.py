"""What DEBATE's and ChatEval's AutoGen teams share: a group chat started by one task message, whose
participants see only the messages a rule lets through, and whose manager takes extra arguments.

In a plain AutoGen group chat every participant sees every message. Here each participant's container
asks ``RoutedGroupChat.accepts(agent_name)`` which messages to buffer for its agent, and may keep them in a
fixed order of authors (so concurrent answers reach every agent in the same order on every run).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, MessageFactory
from autogen_agentchat.teams import BaseGroupChat
from autogen_agentchat.teams._group_chat._base_group_chat_manager import BaseGroupChatManager
from autogen_agentchat.teams._group_chat._chat_agent_container import ChatAgentContainer
from autogen_agentchat.teams._group_chat._events import GroupChatError, GroupChatTermination
from autogen_core import MessageContext, event

OutputQueue = asyncio.Queue[BaseAgentEvent | BaseChatMessage | GroupChatTermination]
Accepts = Callable[[BaseChatMessage], bool]


class FilteredAgentContainer(ChatAgentContainer):
    """A participant container that buffers only the messages ``accepts`` lets through, optionally sorted
    by their author's rank in ``order``."""

    def __init__(self, *args: Any, accepts: Accepts, order: Sequence[str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._accepts = accepts
        self._rank = {name: rank for rank, name in enumerate(order)} if order is not None else None

    def _buffer_message(self, message: BaseChatMessage) -> None:
        if self._accepts(message):
            super()._buffer_message(message)
            if self._rank is not None:
                self._message_buffer.sort(key=lambda m: self._rank.get(m.source, len(self._rank)))  # type: ignore[union-attr]

    @event
    async def handle_group_chat_error(self, message: GroupChatError, ctx: MessageContext) -> None:
        """Another participant failed: the manager ends the chat; nothing for this participant to do."""


class SingleTaskManager(BaseGroupChatManager):
    """A manager for chats that start from exactly one task message and are run once."""

    async def validate_group_state(self, messages: list[BaseChatMessage] | None) -> None:
        """The chat starts from exactly one message: the task."""
        if not messages or len(messages) != 1:
            raise ValueError(f"{self._name} starts from exactly one task message")

    async def reset(self) -> None:
        """Start over."""
        self._current_turn = 0
        self._message_thread.clear()
        if self._termination_condition is not None:
            await self._termination_condition.reset()


class RoutedGroupChat(BaseGroupChat):
    """A ``BaseGroupChat`` whose subclasses say what each participant sees and what their manager gets."""

    def accepts(self, agent_name: str) -> Accepts:
        """Which messages ``agent_name``'s container buffers (default: all)."""
        return lambda message: True

    def buffer_order(self) -> Sequence[str] | None:
        """Authors' order in which buffered messages reach an agent (default: arrival order)."""
        return None

    def manager_kwargs(self) -> Mapping[str, Any]:
        """Extra keyword arguments for the manager."""
        return {}

    def _create_group_chat_manager_factory(
        self,
        name: str,
        group_topic_type: str,
        output_topic_type: str,
        participant_topic_types: list[str],
        participant_names: list[str],
        participant_descriptions: list[str],
        output_message_queue: OutputQueue,
        termination_condition: Any,
        max_turns: int | None,
        message_factory: MessageFactory,
    ) -> Callable[[], Any]:
        manager_class: Any = self._base_group_chat_manager_class

        def factory() -> Any:
            return manager_class(
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
                **self.manager_kwargs(),
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
            return FilteredAgentContainer(
                parent_topic_type,
                output_topic_type,
                agent,
                message_factory,
                accepts=self.accepts(agent.name),
                order=self.buffer_order(),
            )

        return factory
