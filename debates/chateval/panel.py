"""The AutoGen teams of a panel (``run_panel``, for both fidelities): one-by-one is ``RoundRobinGroupChat``;
simultaneous talk (with or without a summarizer) is ``ChatEvalPanel``, whose manager selects all referees of a
turn at once.

``AttributedContext`` heads every other agent's message with its author (``[Critic]: ...``), since the model
API carries no speaker names. ``AlgorithmContext`` adds what the paper's Algorithms 2 and 3 say about a
referee's history: after a simultaneous turn, the turn's answers are added in the referees' order, the
referee's own among them (Algorithm 2: H_n <- H_n + buf); with the summarizer, only the summary is added -
not even the referee's own answer (Algorithm 3: H_n <- H_n + SUM(buf)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage
from autogen_agentchat.teams import BaseGroupChat, RoundRobinGroupChat
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import AssistantMessage, ChatCompletionClient, LLMMessage, UserMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord, ObservedClient
from debate_eval.agents.roles import REFEREE_ROLE, USER
from debate_eval.debates.chateval.config import ONE_BY_ONE, ChatEvalConfig
from debate_eval.debates.group_chat import Accepts, RoutedGroupChat, SingleTaskManager

ANSWER_KIND = {REFEREE_ROLE: "score"}  # a constrained referee ends with "Score: N"; the summarizer writes text


class AttributedContext(UnboundedChatCompletionContext):
    """A model context that heads every other agent's message with its author: ``[Critic]: ...``.

    AutoGen turns other agents' messages into ``UserMessage``s whose ``source`` the OpenAI request drops;
    ChatEval's chat history names the speakers, so the name goes into the text.
    """

    component_provider_override = "debate_eval.debates.chateval.AttributedContext"

    async def add_message(self, message: LLMMessage) -> None:
        """Add ``message``, attributed when another agent wrote it."""
        if isinstance(message, UserMessage) and message.source != USER and isinstance(message.content, str):
            message = UserMessage(content=f"[{message.source}]: {message.content}", source=message.source)
        await super().add_message(message)


class AlgorithmContext(AttributedContext):
    """``AttributedContext`` for simultaneous talk: the turn's answers in the referees' order.

    ``order`` lists the referees; this agent's own answer (added by AutoGen right after its call) is kept
    at its rank among the others' answers of the same turn, which arrive afterwards; ``keep_own=False``
    (with a summarizer) leaves the own answer out of the history altogether.
    """

    def __init__(self, order: Sequence[str], own: str, keep_own: bool = True) -> None:
        super().__init__()
        self._rank = {name: rank for rank, name in enumerate(order)}
        self._own = own
        self._keep_own = keep_own
        self._insert_at: int | None = None  # where the own answer of the latest turn sits

    async def add_message(self, message: LLMMessage) -> None:
        """Add ``message`` where Algorithm 2 (or 3) puts it."""
        if isinstance(message, AssistantMessage):
            if not self._keep_own:
                return
            self._insert_at = len(self._messages)
            await super().add_message(message)
            return
        source = getattr(message, "source", USER)
        before_own = self._rank.get(source, len(self._rank)) < self._rank.get(self._own, -1)
        if self._insert_at is not None and before_own and isinstance(message, UserMessage):
            await super().add_message(message)
            moved = self._messages.pop()
            self._messages.insert(self._insert_at, moved)
            self._insert_at += 1
            return
        await super().add_message(message)


class ChatEvalPanelManager(SingleTaskManager):
    """Selects the speakers of each turn from a fixed schedule; several speakers of a turn run concurrently."""

    def __init__(self, *args: Any, schedule: list[list[str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._schedule = schedule

    async def select_speaker(self, thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> list[str] | str:
        """The speakers of the current turn (all referees, or the summarizer)."""
        if self._current_turn >= len(self._schedule):
            raise RuntimeError("no next speaker: the panel should have ended")
        return list(self._schedule[self._current_turn])


def panel_schedule(referees: Sequence[str], turns: int, summarizer: str | None) -> list[list[str]]:
    """The speaker groups, in order: all referees each turn, the summarizer between turns."""
    schedule: list[list[str]] = []
    for turn in range(turns):
        if summarizer is not None and turn > 0:
            schedule.append([summarizer])
        schedule.append(list(referees))
    return schedule


class ChatEvalPanel(RoutedGroupChat):
    """Simultaneous talk (optionally with a summarizer) as an AutoGen group chat.

    Every turn the manager selects all referees at once (AutoGen runs them concurrently); a referee's
    container processes requests and incoming answers one at a time, in order, so the answers of the turn
    arrive in its buffer after its own request is done and are seen in the next turn. With a summarizer,
    referees buffer only the task and the summaries, and the summarizer only the referees' answers.
    """

    def __init__(self, referees: list[ChatAgent], turns: int, summarizer: ChatAgent | None = None) -> None:
        self._referee_names = [agent.name for agent in referees]
        self._summarizer_name = summarizer.name if summarizer is not None else None
        self._schedule = panel_schedule(self._referee_names, turns, self._summarizer_name)
        participants: list[ChatAgent] = [*referees, *([summarizer] if summarizer is not None else [])]
        super().__init__(
            name="ChatEvalPanel",
            description="ChatEval: referees with different roles discuss and score a text.",
            participants=list(participants),
            group_chat_manager_name="ChatEvalPanelManager",
            group_chat_manager_class=ChatEvalPanelManager,
            termination_condition=None,
            max_turns=len(self._schedule),
        )

    @property
    def schedule(self) -> list[list[str]]:
        """The speaker groups of the whole discussion, in order."""
        return [list(group) for group in self._schedule]

    def accepts(self, agent_name: str) -> Accepts:
        """What ``agent_name`` may see."""
        if self._summarizer_name is None:
            return lambda message: True
        if agent_name == self._summarizer_name:
            referees = set(self._referee_names)
            return lambda message: message.source in referees
        allowed = {USER, self._summarizer_name}
        return lambda message: message.source in allowed

    def buffer_order(self) -> Sequence[str]:
        """Between two requests a buffer holds at most one message per author (one turn): sorted by author,
        every agent gets the same history on every run (and the response cache the same requests),
        whatever order the concurrent answers arrived in."""
        return [USER, *self._referee_names, *([self._summarizer_name] if self._summarizer_name else [])]

    def manager_kwargs(self) -> Mapping[str, Any]:
        """The manager follows the schedule."""
        return {"schedule": self.schedule}


# --------------------------------------------------------------------------------------------- the run


def _client(pool: ClientPool, role: str, label: str, calls: list[CallRecord]) -> ObservedClient:
    """A recorded client for ``role`` with the Scorer's settings (an override for ``role`` wins)."""
    inner: ChatCompletionClient = pool.overrides.get(role) or pool.shared("scorer")
    return pool.observe(inner, label, calls, settings_role="scorer", answer=ANSWER_KIND.get(role, "text"))


async def run_panel(
    referees: Sequence[ChatAgent], config: ChatEvalConfig, opening: TextMessage, summarizer: ChatAgent | None = None
) -> tuple[list[BaseChatMessage], list[list[str]]]:
    """Run a discussion from ``opening``: one-by-one as AutoGen's ``RoundRobinGroupChat``, simultaneous talk as
    ``ChatEvalPanel``; its chat messages (the task first) and the speaker groups in order."""
    if config.strategy == ONE_BY_ONE:
        schedule = [[agent.name] for _ in range(config.turns) for agent in referees]
        team: BaseGroupChat = RoundRobinGroupChat(list(referees), max_turns=len(schedule))
    else:
        team = ChatEvalPanel(list(referees), config.turns, summarizer)
        schedule = team.schedule
    result = await team.run(task=opening)
    chat = [m for m in result.messages if isinstance(m, BaseChatMessage)]
    if not chat or chat[0].source != USER:
        raise RuntimeError(f"the panel did not start from the task: {result.stop_reason}")
    return chat, schedule


def _in_turn_order(
    messages: Sequence[BaseChatMessage], schedule: list[list[str]], first_referee: str
) -> list[tuple[BaseChatMessage, int]]:
    """The answers after the task, each group in schedule order, with its discussion turn (1-based).

    A turn starts with each group that holds the first referee (a summary belongs to the turn before it).
    """
    ordered: list[tuple[BaseChatMessage, int]] = []
    rest = list(messages)
    turn = 0
    for group in schedule:
        chunk, rest = rest[: len(group)], rest[len(group) :]
        if sorted(m.source for m in chunk) != sorted(group):
            raise RuntimeError(f"the panel's messages do not follow its schedule: expected {group}")
        if first_referee in group:
            turn += 1
        ordered += [(m, turn) for m in sorted(chunk, key=lambda m: group.index(m.source))]
    if rest:
        raise RuntimeError("the panel produced more messages than its schedule")
    return ordered
