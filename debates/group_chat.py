"""What DEBATE's and ChatEval's AutoGen teams share: a group chat started by one task message, whose
participants see only the messages a rule lets through, and whose manager takes extra arguments.

In a plain AutoGen group chat every participant sees every message. Here each participant's container
asks ``RoutedGroupChat.accepts(agent_name)`` which messages to buffer for its agent, and may keep them in a
fixed order of authors (so concurrent answers reach every agent in the same order on every run).

Each run of a team has a runtime of its own (``TeamRuntime``), given to AutoGen through the team's public
``runtime=`` argument and started and stopped around the run as AutoGen does for the runtime it would make
itself (``RoutedGroupChat.run_stream``). Through that runtime's public constructor and its public
``add_message_serializer`` the run skips AutoGen's telemetry work that nothing reads: while no OpenTelemetry
tracer provider is set, its tracer provider is ``IdleTracerProvider`` (OpenTelemetry's public interface),
whose spans are not made at all (AutoGen's runtime opens one for every message it routes, about 45 per
model call); and while AutoGen's event log (``autogen_core.events``) is also off for INFO, no message type
gets a JSON serializer, so the runtime no longer turns every routed message into JSON for span attributes
and log records that are thrown away (together about 0.4 ms of event-loop CPU per model call in a DEBATE
team: benchmarks/throughput.md). AutoGen's spans carry every routed message whole (the judged texts, the
models' answers), so with a tracer provider set they are made only when content is traced
(``telemetry.content_traced``); then, or with that log on, the runtime is AutoGen's as it is.

The managers and containers subclass AutoGen's private group-chat classes (``BaseGroupChatManager``,
``ChatAgentContainer``; autogen-agentchat exports neither, yet documents subclassing the manager as the way to a
custom team). They come from ``agents/models/autogen_private.py``, the one module of private AutoGen imports,
with the versions they were checked with.

Why not AutoGen's public graph team (autogen-agentchat 0.7.5: ``GraphFlow`` built with ``DiGraphBuilder``,
conditional edges, ``MessageFilterAgent``, custom ``TerminationCondition``s), checked against its source:

- **Addressed messages.** Every ``GraphFlow`` participant's container buffers every message of the chat;
  ``MessageFilterAgent`` narrows that by author and position only (``PerSourceFilter``: source, first/last,
  count). DEBATE's Commander sends to the Scorer, the Critic and the Tie-breaker, all with the source
  ``Commander``, and each must see only what is addressed to it (``metadata["to"]``); "the Commander's last
  message" is not that once an authors'-code auto-reply (the Commander's own model-written reply to the
  Scorer) sits between two relays.
- **Next speaker from the protocol's state.** An edge condition sees only the last message
  (``DiGraphEdge.check_condition(message)``). Who speaks next is ``DebateProtocol``'s decision over the whole
  debate: the round count against the maximum, the authors' reply counters, the Tie-breaker after a
  disagreement (the re-ask of an unparsable score runs after the team: ``PaperFlow.final`` in
  ``debates/debate/paper.py``). Conditions closing over the protocol would move the state machine into edge
  callbacks evaluated in AutoGen's order, and a node may not mix conditional and unconditional edges.
- **Termination on the Critic's own text.** A string condition is ``"NO ISSUE" in message.to_model_text()``,
  which also matches the judged text the Critic quotes; the protocol reads NO ISSUE only in the Critic's own
  words (untrusted text never ends a debate).
- **Byte-identical transcripts.** ``GraphFlow`` ends a chat it completes with its own ``StopMessage``
  ("Digraph execution is complete") and stop reason, and the panel's concurrent turns would reach the others
  in completion order; the transcripts (both fidelity modes, tests/debates) need this module's fixed author
  order (``buffer_order``) and the methods' own stop reasons.

So the teams stay ``BaseGroupChat`` subclasses with ``RoutedGroupChat.accepts`` routing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import traceback
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from autogen_agentchat.base import ChatAgent, TaskResult
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, MessageFactory
from autogen_agentchat.teams import BaseGroupChat
from autogen_core import (
    EVENT_LOGGER_NAME,
    CancellationToken,
    DefaultTopicId,
    MessageContext,
    MessageSerializer,
    SingleThreadedAgentRuntime,
    Subscription,
    TypeSubscription,
    event,
)

from debate_eval.agents.models.autogen_private import (  # private AutoGen classes: see that module
    BaseGroupChatManager,
    ChatAgentContainer,
    GroupChatError,
    GroupChatTermination,
)
from debate_eval.agents.telemetry import IdleTracerProvider, content_traced, tracer_provider_set

OutputQueue = asyncio.Queue[BaseAgentEvent | BaseChatMessage | GroupChatTermination]
Accepts = Callable[[BaseChatMessage], bool]
STOPPED = "The group chat is stopped."  # AutoGen's stop reason when its runtime goes idle before the end
_EVENTS = logging.getLogger(EVENT_LOGGER_NAME)


def runtime_mode() -> tuple[bool, bool, bool]:
    """What a ``TeamRuntime`` made now does about AutoGen's telemetry: (AutoGen's own tracer provider, spans
    idle, message types given JSON serializers)."""
    # AutoGen's spans carry the routed messages whole: made only when content is traced
    provider = tracer_provider_set() and content_traced()
    spans_idle = not provider or os.environ.get("AUTOGEN_DISABLE_RUNTIME_TRACING") == "true"
    return provider, spans_idle, not spans_idle or _EVENTS.isEnabledFor(logging.INFO)


class TeamRuntime(SingleThreadedAgentRuntime):
    """AutoGen's single-threaded runtime for a team's runs, without the telemetry work nothing reads (see the
    module doc). Handler errors are left to the team, as AutoGen's runtimes given to a team do by default:
    a participant's or the manager's error ends the chat with that error."""

    def __init__(self) -> None:
        self.mode = runtime_mode()  # fixed for the runtime's life: a team made later may differ
        provider, self.spans_idle, self.serializes = self.mode
        # with a provider set and content traced, AutoGen's own choice (its spans, or none when its variable
        # turns them off)
        super().__init__(tracer_provider=None if provider else IdleTracerProvider())

        self.unheard: set[tuple[str, str]] = set()  # (topic type, agent type) subscriptions not made

    def add_message_serializer(self, serializer: MessageSerializer[Any] | Sequence[MessageSerializer[Any]]) -> None:
        """Register ``serializer`` only when something reads the JSON it makes (spans or the event log); the
        runtime itself passes messages as Python objects."""
        if self.serializes:
            super().add_message_serializer(serializer)

    async def add_subscription(self, subscription: Subscription) -> None:
        """Add ``subscription``, unless it subscribes an agent type to a topic type that ``unheard`` pairs it
        with (a team whose manager sends each participant what it must see: ``RoutedGroupChat.manager_routes``)."""
        if isinstance(subscription, TypeSubscription) and (subscription.topic_type, subscription.agent_type) in (
            self.unheard
        ):
            return
        await super().add_subscription(subscription)


@dataclass
class Relayed:
    """A message of the relayer, published by the manager that runs its turns (``RelayingManager``) for the
    participants' containers to buffer, as they buffer a participant's response."""

    message: BaseChatMessage


class FilteredAgentContainer(ChatAgentContainer):
    """A participant container that buffers only the messages ``accepts`` lets through, optionally sorted
    by their author's rank in ``order``. With ``outputs`` False it does not publish its agent's messages to
    the chat's output: its manager puts them there (``RelayingManager`` with ``routes``)."""

    def __init__(
        self, *args: Any, accepts: Accepts, order: Sequence[str] | None = None, outputs: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._accepts = accepts
        self._rank = {name: rank for rank, name in enumerate(order)} if order is not None else None
        self._outputs = outputs

    async def _log_message(self, message: BaseAgentEvent | BaseChatMessage) -> None:
        if self._outputs:
            await super()._log_message(message)
        elif not self._message_factory.is_registered(message.__class__):  # as AutoGen's container refuses it
            raise ValueError(f"Message type {message.__class__} is not registered.")

    def _buffer_message(self, message: BaseChatMessage) -> None:
        if self._accepts(message):
            super()._buffer_message(message)
            if self._rank is not None:
                self._message_buffer.sort(key=lambda m: self._rank.get(m.source, len(self._rank)))  # type: ignore[union-attr]

    @event
    async def handle_relayed(self, message: Relayed, ctx: MessageContext) -> None:
        """Buffer the relayer's message (when ``accepts`` lets it through)."""
        self._buffer_message(message.message)

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


class RelayingManager(SingleTaskManager):
    """A manager that runs one participant's turns itself: the relayer (DEBATE's Commander), whose every
    message only passes on what others said. When ``next_speaker`` names it, the manager gives it the chat
    messages it has not seen (what its container would have buffered), puts its message in the chat's
    output, sends it to the containers of its ``addressees`` (each buffers it as ``accepts`` says), records
    it and ends the chat or counts the turn as after any participant's turn, then asks again who speaks. That
    saves a request, a response and their deliveries to every participant per relay; the messages, their
    order and what each participant sees stay the same. An error of the relayer ends the chat with that
    error, as a participant's does. The relayer (``relayer()``) need not be a participant: one that is not has
    no container, so the chat's messages are not delivered to it twice, and it is reset with the manager; one
    that is keeps a container that is never asked to speak (its ``accepts`` should let nothing through).

    With ``routes`` (for a team whose containers hear only what the manager sends them and do not publish their
    agents' messages to the chat's output: ``RoutedGroupChat.manager_routes``), the manager also sends the task
    messages to the containers of their ``addressees``, and puts each participant's messages (its response's
    inner messages, then its chat message) in the chat's output as it records them: the output keeps the order
    of the turns, and no participant's response is delivered to the other participants, without a publish and
    a delivery for each message. Only for chats with one speaker at a time."""

    def __init__(self, *args: Any, relayer: ChatAgent | None = None, routes: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._relayer = relayer
        self._routes = routes
        self._unseen: list[BaseChatMessage] = []  # chat messages since the relayer's last turn

    def relayer(self) -> ChatAgent:
        """The agent whose turns the manager runs (default: the ``relayer`` it was made with)."""
        if self._relayer is None:
            raise RuntimeError(f"{self._name} has no relayer")
        return self._relayer

    def observe(self, message: BaseChatMessage) -> None:
        """Note a chat message of the chat (the relayer's included), in order."""

    def next_speaker(self) -> str:
        """Who speaks next (the relayer's name to have the manager run its turn)."""
        raise NotImplementedError

    def addressees(self, message: BaseChatMessage) -> Sequence[str] | None:
        """The participants whose containers may buffer the relayer's ``message`` (None: all of them); the
        others are not sent it. Their ``accepts`` must let it through only for these."""
        return None

    async def _send(self, message: BaseChatMessage) -> None:
        """Send ``message`` to the containers of its addressees (None: every participant's, through the group
        topic unless the manager ``routes``); with ``routes``, an addressee that is no participant (the relayer)
        is skipped."""
        addressees = self.addressees(message)
        if addressees is None and not self._routes:
            topics = [self._group_topic_type]
        else:
            containers = self._participant_name_to_topic_type
            names = containers if addressees is None else addressees
            topics = [containers[name] for name in names if name in containers or not self._routes]
        for topic in topics:
            await self.publish_message(Relayed(message), topic_id=DefaultTopicId(type=topic))

    async def update_message_thread(self, messages: Sequence[BaseAgentEvent | BaseChatMessage]) -> None:
        """Record the messages; note each chat message (``observe``) and keep it for the relayer. With ``routes``,
        send the task messages to their addressees, and put a participant's in the chat's output (the task
        messages are there already)."""
        if self._routes:
            for message in messages:
                if self._message_thread:  # a participant's: the task opens an empty thread
                    await self._output_message_queue.put(message)
                elif isinstance(message, BaseChatMessage):
                    await self._send(message)
        await super().update_message_thread(messages)
        for message in messages:
            if isinstance(message, BaseChatMessage):
                self._unseen.append(message)
                self.observe(message)

    async def select_speaker(self, thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> list[str] | str:
        """The next speaker other than the relayer, after running the relayer's turns (none when the relayer
        failed: the chat has then ended with its error)."""
        speaker = self.next_speaker()
        while speaker == self.relayer().name:
            if not await self._relay():
                return []
            speaker = self.next_speaker()
        return speaker

    async def _relay(self) -> bool:
        """Run one turn of the relayer, a turn of the chat as a participant's is (its message may end the chat);
        False when the chat has ended (with the relayer's error, or by the termination condition or the
        maximum number of turns)."""
        unseen, self._unseen = self._unseen, []
        try:
            response = await self.relayer().on_messages(unseen, CancellationToken())
        except Exception as error:  # as a participant's container reports its agent's error
            await self._signal_termination_with_error(_reported(error))
            return False
        delta = [*(response.inner_messages or ()), response.chat_message]
        for message in delta:
            await self._output_message_queue.put(message)
        await self._send(response.chat_message)
        await super().update_message_thread(delta)  # not kept for the relayer: its own messages
        for message in delta:
            if isinstance(message, BaseChatMessage):
                self.observe(message)
        return not await self._apply_termination_condition(delta, increment_turn_count=True)

    async def reset(self) -> None:
        """Start over; the relayer too when it is not a participant (the team resets its participants)."""
        await super().reset()
        self._unseen.clear()
        relayer = self.relayer()
        if relayer.name not in self._participant_name_to_topic_type:
            await relayer.on_reset(CancellationToken())


def _reported(error: Exception) -> Any:
    """``error`` as AutoGen's group chat reports a participant's error to its caller (its type, message and
    traceback), built through ``GroupChatError``'s own field."""
    lines = traceback.format_exception(type(error), error, error.__traceback__)
    fields = {"error_type": type(error).__name__, "error_message": str(error), "traceback": "\n".join(lines)}
    return GroupChatError.model_validate({"error": fields}).error


class RoutedGroupChat(BaseGroupChat):
    """A ``BaseGroupChat`` whose subclasses say what each participant sees and what their manager gets, run on
    a ``TeamRuntime`` of its own (made here: do not pass ``runtime=``). With ``manager_routes`` the manager (a
    ``RelayingManager``, given ``routes``) sends each participant's container what it may see: the containers
    are not subscribed to the chat's group topic (so no participant's response is delivered to the others),
    and leave their agents' messages to the manager to put in the chat's output."""

    manager_routes = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.team_runtime = TeamRuntime()
        super().__init__(*args, runtime=self.team_runtime, **kwargs)
        if self.manager_routes:
            self.team_runtime.unheard = {(self._group_topic_type, topic) for topic in self._participant_topic_types}

    async def run_stream(
        self,
        *,
        task: str | BaseChatMessage | Sequence[BaseChatMessage] | None = None,
        cancellation_token: CancellationToken | None = None,
        output_task_messages: bool = True,
    ) -> AsyncGenerator[BaseAgentEvent | BaseChatMessage | TaskResult, None]:
        """AutoGen's ``run_stream`` with the team's runtime started for the run and, as AutoGen runs the
        runtime it makes itself, stopped once idle after the chat ended (or failed); at once when the run is
        cancelled. Should the runtime go idle before the chat ends (nothing is left that could end it), the
        stream ends as AutoGen's then does: a ``TaskResult`` with the stop reason ``STOPPED``."""
        runtime = self.team_runtime
        token = CancellationToken()  # the run's own: cancelled by the caller's, and to end an idle chat
        if cancellation_token is not None:
            cancellation_token.add_callback(token.cancel)
        runtime.start()
        stream = super().run_stream(task=task, cancellation_token=token, output_task_messages=output_task_messages)
        watch = IdleWatch(runtime, token)
        graceful = False  # the chat ended or failed (wait for idle), or it was cancelled (stop now)
        try:
            while True:
                try:
                    message = await anext(stream)
                except StopAsyncIteration:
                    graceful = True
                    return
                except asyncio.CancelledError:
                    if not watch.fired:
                        raise
                    graceful = True
                    yield TaskResult(messages=watch.seen, stop_reason=STOPPED)
                    return
                watch.saw(message)
                yield message
        except Exception:
            graceful = True
            raise
        finally:
            watch.ended = True
            await stream.aclose()
            await (watch.stop_when_idle() if graceful else watch.stop_now())

    async def reset(self) -> None:
        """AutoGen's ``reset``, with the team's runtime running for it (it is already, during a run)."""
        try:
            self.team_runtime.start()
        except RuntimeError:  # already started: a run is on, and AutoGen's reset refuses to reset it
            await super().reset()
            return
        try:
            await super().reset()
        finally:
            await self.team_runtime.stop_when_idle()

    def accepts(self, agent_name: str) -> Accepts:
        """Which messages ``agent_name``'s container buffers (default: all)."""
        return lambda message: True

    def buffer_order(self) -> Sequence[str] | None:
        """Authors' order in which buffered messages reach an agent (default: arrival order)."""
        return None

    def manager_kwargs(self) -> Mapping[str, Any]:
        """Extra keyword arguments for the manager."""
        return {}

    def _create_group_chat_manager_factory(self, **arguments: Any) -> Callable[[], Any]:
        """The manager made from AutoGen's arguments (``name``, ``group_topic_type``, ..., given by keyword, as
        ``BaseGroupChat`` passes them) with the team's ``manager_kwargs`` (and ``routes``)."""
        manager_class: Any = self._base_group_chat_manager_class
        extra = {"emit_team_events": self._emit_team_events, **({"routes": True} if self.manager_routes else {})}
        return lambda: manager_class(**arguments, **extra, **self.manager_kwargs())

    def _create_participant_factory(
        self, parent_topic_type: str, output_topic_type: str, agent: Any, message_factory: MessageFactory
    ) -> Callable[[], ChatAgentContainer]:
        return lambda: FilteredAgentContainer(
            parent_topic_type,
            output_topic_type,
            agent,
            message_factory,
            accepts=self.accepts(agent.name),
            order=self.buffer_order(),
            outputs=not self.manager_routes,
        )


SETTLE_ROUNDS = 50  # event-loop rounds a message already queued for the stream needs at most to come out


class IdleWatch:
    """Stops a team's runtime when it is idle, and ends the team's stream should the runtime go idle before
    the chat ended (as AutoGen's own runtime does): started with the chat's first message (``saw``)."""

    def __init__(self, runtime: SingleThreadedAgentRuntime, token: CancellationToken) -> None:
        self.runtime = runtime
        self.token = token
        self.seen: list[BaseAgentEvent | BaseChatMessage] = []
        self.ended = False  # the stream has its result (or failed, or was cancelled)
        self.fired = False  # the runtime went idle first: the token was cancelled to end the stream
        self._idle: asyncio.Future[None] | None = None

    def saw(self, message: BaseAgentEvent | BaseChatMessage | TaskResult) -> None:
        """Note a message of the stream (the first one starts the watch)."""
        if isinstance(message, TaskResult):
            self.ended = True
        else:
            self.seen.append(message)
        if self._idle is None:
            self._idle = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        await self.runtime.stop_when_idle()
        for _ in range(SETTLE_ROUNDS):  # the runtime is stopped: only what it queued before can still come
            if self.ended:
                return
            await asyncio.sleep(0)
        if not self.ended:
            self.fired = True
            self.token.cancel()  # the stream's wait for its next message ends

    async def stop_when_idle(self) -> None:
        """Stop the runtime once it is idle; an error it raises then is dropped, as AutoGen drops it once the
        chat has ended (the chat's own result or error is what the caller gets)."""
        idle = self._idle or asyncio.ensure_future(self.runtime.stop_when_idle())
        try:
            await asyncio.shield(idle)
        except asyncio.CancelledError:
            await self.stop_now()
            raise
        except Exception:  # see the docstring
            pass

    async def stop_now(self) -> None:
        """Stop the runtime without waiting for the messages still queued (the run is being cancelled)."""
        if self._idle is not None and not self._idle.done():
            self._idle.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._idle
        with contextlib.suppress(RuntimeError, asyncio.CancelledError):  # RuntimeError: stopped already
            await self.runtime.stop()
