"""The runtime every routed team runs on (debates/group_chat.py): AutoGen's own, started and stopped around
each run, without the telemetry work nothing reads, ending its stream as AutoGen's own runtime would."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent, BaseChatAgent
from autogen_agentchat.base import Response, TaskResult
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage
from autogen_core import EVENT_LOGGER_NAME, SingleThreadedAgentRuntime
from autogen_core.models import ChatCompletionClient
from autogen_ext.models.replay import ReplayChatCompletionClient
from opentelemetry import trace

from debate_eval.agents import telemetry
from debate_eval.agents.telemetry import IdleTracerProvider
from debate_eval.debates.group_chat import (
    STOPPED,
    Accepts,
    RelayingManager,
    RoutedGroupChat,
    SingleTaskManager,
    TeamRuntime,
)
from tests.debates.debate.test_run import debate


class ScriptedManager(SingleTaskManager):
    """Asks ``alice`` then ``bob``; then names nobody (the chat can never end) or ends after ``turns``."""

    def __init__(self, *args: Any, select_nobody: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order = ["alice", "bob"]
        self.select_nobody = select_nobody

    async def select_speaker(self, thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> list[str] | str:
        spoken = sum(1 for m in thread if isinstance(m, BaseChatMessage) and m.source in self.order)
        if self.select_nobody and spoken >= 1:
            return []  # no request goes out: the runtime goes idle with the chat not ended
        return self.order[spoken % 2]


class Pair(RoutedGroupChat):
    def __init__(self, clients: dict[str, ChatCompletionClient], *, select_nobody: bool = False, turns: int = 2):
        self._select_nobody = select_nobody
        agents: list[Any] = [AssistantAgent(name, client) for name, client in clients.items()]
        super().__init__(
            name="Pair",
            description="two agents",
            participants=agents,
            group_chat_manager_name="PairManager",
            group_chat_manager_class=ScriptedManager,
            max_turns=turns,
        )

    def manager_kwargs(self) -> dict[str, Any]:
        return {"select_nobody": self._select_nobody}


def replay(*answers: str) -> ReplayChatCompletionClient:
    client = ReplayChatCompletionClient(list(answers))
    client.set_cached_bool_value(False)
    return client


def runs_again(runtime: SingleThreadedAgentRuntime) -> bool:
    """The runtime was stopped after the run: it can be started (and stopped) again."""

    async def restart() -> None:
        runtime.start()  # raises RuntimeError when it is still running
        await runtime.stop()

    asyncio.run(restart())
    return True


def test_a_team_runs_to_its_end_and_its_runtime_is_stopped() -> None:
    team = Pair({"alice": replay("a1"), "bob": replay("b1")})
    result = asyncio.run(asyncio.wait_for(team.run(task="go"), 60))  # the bound only guards against a hang
    assert [m.source for m in result.messages] == ["user", "alice", "bob"]
    assert result.stop_reason == "Maximum number of turns 2 reached."
    assert runs_again(team.team_runtime)


def test_a_chat_that_cannot_end_stops_as_autogens_own_runtime_stops_it() -> None:
    """AutoGen's embedded runtime ends such a stream with "The group chat is stopped." once idle."""
    team = Pair({"alice": replay("a1"), "bob": replay("b1")}, select_nobody=True, turns=10)
    result = asyncio.run(asyncio.wait_for(team.run(task="go"), 60))
    assert result.stop_reason == STOPPED == "The group chat is stopped."
    assert [m.source for m in result.messages] == ["user", "alice"]
    assert runs_again(team.team_runtime)


class Failing(ReplayChatCompletionClient):
    async def create(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("model exploded")


def test_a_participants_error_ends_the_run_with_that_error() -> None:
    team = Pair({"alice": replay("a1"), "bob": Failing(["unused"])})
    with pytest.raises(RuntimeError, match="ValueError: model exploded"):
        asyncio.run(asyncio.wait_for(team.run(task="go"), 60))
    assert runs_again(team.team_runtime)


class Slow(ReplayChatCompletionClient):
    """A model call that never ends by itself; ``calling`` is set once the call is under way."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calling = asyncio.Event()

    async def create(self, *args: Any, **kwargs: Any) -> Any:
        self.calling.set()
        await asyncio.sleep(30)
        raise AssertionError("not cancelled")


def test_a_cancelled_run_stops_its_runtime_at_once() -> None:
    alice = Slow(["x"])
    team = Pair({"alice": alice, "bob": replay("b1")})

    async def main() -> None:
        task = asyncio.ensure_future(team.run(task="go"))
        await asyncio.wait_for(alice.calling.wait(), 60)  # the gate: the run is inside its model call
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 60)  # the bound only guards against a hang

    asyncio.run(main())
    assert runs_again(team.team_runtime)


def test_the_callers_cancellation_token_cancels_the_run() -> None:
    from autogen_core import CancellationToken

    alice = Slow(["x"])
    team = Pair({"alice": alice, "bob": replay("b1")})
    token = CancellationToken()

    async def main() -> None:
        run = asyncio.ensure_future(team.run(task="go", cancellation_token=token))
        await asyncio.wait_for(alice.calling.wait(), 60)  # the gate: the run is inside its model call
        token.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(run, 60)  # the bound only guards against a hang

    asyncio.run(main())


def spy_runtime(monkeypatch: pytest.MonkeyPatch) -> tuple[list[dict[str, Any]], list[Any]]:
    """What AutoGen's runtime constructor and ``add_message_serializer`` receive from a ``TeamRuntime``."""
    inits: list[dict[str, Any]] = []
    serializers: list[Any] = []
    init, add = SingleThreadedAgentRuntime.__init__, SingleThreadedAgentRuntime.add_message_serializer

    def spy_init(self: SingleThreadedAgentRuntime, **kwargs: Any) -> None:
        inits.append(kwargs)
        init(self, **kwargs)

    def spy_add(self: SingleThreadedAgentRuntime, serializer: Any) -> None:
        serializers.append(serializer)
        add(self, serializer)

    monkeypatch.setattr(SingleThreadedAgentRuntime, "__init__", spy_init)
    monkeypatch.setattr(SingleThreadedAgentRuntime, "add_message_serializer", spy_add)
    return inits, serializers


def test_no_spans_through_the_proxy_and_no_json_while_nothing_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUTOGEN_DISABLE_RUNTIME_TRACING", raising=False)
    inits, serializers = spy_runtime(monkeypatch)
    team = Pair({"alice": replay("a1"), "bob": replay("b1")})
    result = asyncio.run(team.run(task="go"))
    assert [m.source for m in result.messages] == ["user", "alice", "bob"]
    assert isinstance(inits[0]["tracer_provider"], IdleTracerProvider)
    assert serializers == []  # no message type got a JSON serializer: nothing was turned into JSON


def test_the_event_log_on_keeps_autogens_serializers() -> None:
    events = logging.getLogger(EVENT_LOGGER_NAME)
    level, disabled = events.level, events.disabled
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    events.addHandler(handler)
    events.setLevel(logging.INFO)
    events.disabled = False
    try:
        team = Pair({"alice": replay("a1"), "bob": replay("b1")})
        assert team.team_runtime.serializes and team.team_runtime.spans_idle
        asyncio.run(team.run(task="go"))
    finally:
        events.removeHandler(handler)
        events.setLevel(level)
        events.disabled = disabled
    payloads = [getattr(r.msg, "kwargs", {}).get("payload", "") for r in records]
    assert any('"content":"a1"' in p for p in payloads)  # the messages as AutoGen logs them


def test_a_tracer_provider_keeps_autogens_spans_only_with_content(monkeypatch: pytest.MonkeyPatch) -> None:
    class Provider(trace.TracerProvider):
        def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
            return trace.NoOpTracer()

    provider = Provider()
    monkeypatch.delenv("AUTOGEN_DISABLE_RUNTIME_TRACING", raising=False)
    monkeypatch.delenv(telemetry.CONTENT_ENV, raising=False)
    monkeypatch.setattr(telemetry.trace, "get_tracer_provider", lambda: provider)
    inits, serializers = spy_runtime(monkeypatch)
    team = Pair({"alice": replay("a1"), "bob": replay("b1")})
    asyncio.run(team.run(task="go"))
    assert isinstance(inits[0]["tracer_provider"], IdleTracerProvider)  # its spans would carry the messages
    assert not serializers
    inits.clear()

    async def traced() -> None:
        with telemetry.tracing_content(True):
            await Pair({"alice": replay("a1"), "bob": replay("b1")}).run(task="go")

    asyncio.run(traced())
    assert inits[0]["tracer_provider"] is None  # AutoGen's own choice: the global provider
    assert serializers  # the span attributes hold the messages' JSON, as AutoGen makes them
    monkeypatch.setenv("AUTOGEN_DISABLE_RUNTIME_TRACING", "true")  # AutoGen's own switch: no spans at all
    with telemetry.tracing_content(True):
        assert TeamRuntime().spans_idle


def test_a_debate_is_the_same_with_and_without_the_serializers(monkeypatch: pytest.MonkeyPatch) -> None:
    scorer, critic = ["Coherence: 3", "Coherence: 2", "Coherence: 4"], ["Too high.", "Still too high."]
    quiet, _ = debate(scorer, critic)
    monkeypatch.setattr(TeamRuntime, "__init__", _loud_init)
    loud, _ = debate(scorer, critic)
    assert [_same(e) for e in quiet.transcript] == [_same(e) for e in loud.transcript]
    assert (quiet.score, quiet.stop_reason, quiet.rounds) == (loud.score, loud.stop_reason, loud.rounds)


def _same(entry: dict[str, Any]) -> dict[str, Any]:
    """A transcript entry without what differs from run to run (message ids, clock times)."""
    return {key: value for key, value in entry.items() if key not in ("id", "created_at", "latency_s")}


def _loud_init(self: TeamRuntime) -> None:
    """A ``TeamRuntime`` that is AutoGen's runtime as it is (spans through the proxy, every serializer)."""
    self.spans_idle, self.serializes = False, True
    SingleThreadedAgentRuntime.__init__(self)


def test_the_task_message_comes_first_and_the_result_last() -> None:
    team = Pair({"alice": replay("a1"), "bob": replay("b1")})

    async def collect() -> list[Any]:
        return [item async for item in team.run_stream(task=TextMessage(source="user", content="go"))]

    items = asyncio.run(collect())
    assert isinstance(items[0], TextMessage) and items[0].content == "go"
    assert isinstance(items[-1], TaskResult) and len(items[-1].messages) == len(items) - 1


class Echo(BaseChatAgent):
    """A relayer: sends bob what it was given since its last turn (one line per message, ``source: text``);
    with ``fail``, raises instead."""

    def __init__(self, fail: bool = False) -> None:
        super().__init__("relay", "relays to bob")
        self.fail = fail
        self.seen: list[list[str]] = []

    @property
    def produced_message_types(self) -> Sequence[type[BaseChatMessage]]:
        return (TextMessage,)

    async def on_messages(self, messages: Sequence[BaseChatMessage], cancellation_token: Any) -> Response:
        if self.fail:
            raise ValueError("relay exploded")
        self.seen.append([f"{m.source}: {m.to_text()}" for m in messages])
        text = " | ".join(self.seen[-1])
        return Response(chat_message=TextMessage(source=self.name, content=text, metadata={"to": "bob"}))

    async def on_reset(self, cancellation_token: Any) -> None:
        self.seen.clear()


ORDER = ["alice", "relay", "bob"]


class RelayOrder(RelayingManager):
    """alice, then the relay (to bob), then bob; the chat ends at ``max_turns``."""

    def next_speaker(self) -> str:
        spoken = sum(1 for m in self._message_thread if isinstance(m, BaseChatMessage) and m.source in ORDER)
        return ORDER[spoken % 3]

    def addressees(self, message: BaseChatMessage) -> Sequence[str]:
        return [str(message.metadata["to"])]


class ContainerOrder(SingleTaskManager):
    """The same order with the relay's turn asked of its container, as AutoGen runs any participant."""

    async def select_speaker(self, thread: Sequence[BaseAgentEvent | BaseChatMessage]) -> list[str] | str:
        spoken = sum(1 for m in thread if isinstance(m, BaseChatMessage) and m.source in ORDER)
        return ORDER[spoken % 3]


class Relaying(RoutedGroupChat):
    inline_manager: type[RelayingManager] = RelayOrder

    def __init__(self, relayer: Echo, alice: ChatCompletionClient, bob: ChatCompletionClient, *, inline: bool):
        self._relayer, self._inline = relayer, inline
        super().__init__(
            name="Relaying",
            description="alice, a relay, bob",
            participants=[relayer, AssistantAgent("alice", alice), AssistantAgent("bob", bob)],
            group_chat_manager_name="RelayingManager",
            group_chat_manager_class=self.inline_manager if inline else ContainerOrder,
            max_turns=3,
        )

    def accepts(self, agent_name: str) -> Accepts:
        if agent_name == "relay":  # the manager gives it what it sees when it runs the relay's turns
            return (lambda message: False) if self._inline else (lambda message: True)
        return lambda message: message.source == "user" or message.metadata.get("to") == agent_name

    def manager_kwargs(self) -> dict[str, Any]:
        return {"relayer": self._relayer} if self._inline else {}


class Recording(ReplayChatCompletionClient):
    """Replays its answers and keeps the text of every message of every request."""

    def __init__(self, answers: list[str]) -> None:
        super().__init__(answers)
        self.set_cached_bool_value(False)
        self.requests: list[list[str]] = []

    async def create(self, messages: Sequence[Any], *args: Any, **kwargs: Any) -> Any:
        self.requests.append([str(m.content) for m in messages])
        return await super().create(messages, *args, **kwargs)


class RoutedOrder(RelayOrder):
    """``RelayOrder`` sending the task to every participant (it names no addressee)."""

    def addressees(self, message: BaseChatMessage) -> Sequence[str] | None:
        return None if "to" not in message.metadata else super().addressees(message)


class Routed(Relaying):
    """``Relaying`` whose manager routes every message: the containers hear only what it sends them."""

    manager_routes = True
    inline_manager = RoutedOrder


def relayed_run(
    inline: bool, routed: bool = False
) -> tuple[list[tuple[str, str]], list[list[str]], list[list[str]], list[list[str]]]:
    relayer, alice, bob = Echo(), Recording(["a1"]), Recording(["b1"])
    team = (Routed if routed else Relaying)(relayer, alice, bob, inline=inline)
    result = asyncio.run(asyncio.wait_for(team.run(task="go"), 60))
    assert result.stop_reason == "Maximum number of turns 3 reached."
    assert runs_again(team.team_runtime)
    transcript = [(m.source, m.to_text()) for m in result.messages if isinstance(m, BaseChatMessage)]
    return transcript, relayer.seen, alice.requests, bob.requests


def test_a_relay_written_by_the_manager_is_the_relay_its_container_would_have_run() -> None:
    inline = relayed_run(inline=True)
    # by hand: the relay sees the task and alice's answer; bob sees the task and the relay; alice not the relay
    assert inline[0] == [("user", "go"), ("alice", "a1"), ("relay", "user: go | alice: a1"), ("bob", "b1")]
    assert inline[1] == [["user: go", "alice: a1"]]
    assert [request[1:] for request in inline[2]] == [["go"]]
    assert [request[1:] for request in inline[3]] == [["go", "user: go | alice: a1"]]
    assert inline == relayed_run(inline=False)  # the same as with the relay's turn asked of its container
    assert inline == relayed_run(inline=True, routed=True)  # and when the manager routes every message


def test_a_relayers_error_ends_the_run_with_that_error() -> None:
    team = Relaying(Echo(fail=True), Recording(["a1"]), Recording(["b1"]), inline=True)
    with pytest.raises(RuntimeError, match="ValueError: relay exploded"):
        asyncio.run(asyncio.wait_for(team.run(task="go"), 60))
    assert runs_again(team.team_runtime)
