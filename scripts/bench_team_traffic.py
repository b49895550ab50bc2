"""Runtime traffic of one DEBATE team run: how many messages AutoGen's runtime publishes and how many handler
deliveries it makes for one debate (n = 2, fixed relays, a Critic that never agrees: five model calls and
four Commander relays), with replayed model answers (no endpoint, no network); then the same for the next
debate on the same team (as ``DebateMethod.evaluator`` keeps teams between items: ``begin``, ``reset``, run).

The counts come from wrapping ``SingleThreadedAgentRuntime.publish_message``, ``send_message``,
``register_factory`` and ``RoutedAgent.on_message_impl`` in this process only (a measurement, not the project's
code path); they do not depend on the machine's load. Prints one line per debate: its messages, the publishes,
the sends (the team's reset sends one to every participant and the manager), the handler deliveries (of both)
and the agent registrations.

    python scripts/bench_team_traffic.py
"""

from __future__ import annotations

import asyncio
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_core import RoutedAgent, SingleThreadedAgentRuntime
from autogen_ext.models.replay import ReplayChatCompletionClient

from debate_eval.agents.commander import CommanderAgent
from debate_eval.agents.models.client_layers import DelegatingClient
from debate_eval.agents.roles import CRITIC, SCORER
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.debate.team import MultiAgentsDebate, run_on

COUNTS = {"publishes": 0, "sends": 0, "deliveries": 0, "registrations": 0}


def count_traffic() -> None:
    """Wrap the runtime's publish, send and registration and the agents' message handling to count them."""
    publish, deliver = SingleThreadedAgentRuntime.publish_message, RoutedAgent.on_message_impl
    send, register = SingleThreadedAgentRuntime.send_message, SingleThreadedAgentRuntime.register_factory

    async def counted_publish(self: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTS["publishes"] += 1
        return await publish(self, *args, **kwargs)

    async def counted_send(self: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTS["sends"] += 1
        return await send(self, *args, **kwargs)

    async def counted_register(self: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTS["registrations"] += 1
        return await register(self, *args, **kwargs)

    async def counted_delivery(self: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTS["deliveries"] += 1
        return await deliver(self, *args, **kwargs)

    SingleThreadedAgentRuntime.publish_message = counted_publish  # type: ignore[method-assign]
    SingleThreadedAgentRuntime.send_message = counted_send  # type: ignore[method-assign]
    SingleThreadedAgentRuntime.register_factory = counted_register  # type: ignore[method-assign]
    RoutedAgent.on_message_impl = counted_delivery  # type: ignore[method-assign]


def answers() -> list[ReplayChatCompletionClient]:
    """One debate's replayed answers, the Scorer's and the Critic's: five model calls, no agreement."""
    return [
        ReplayChatCompletionClient(["Score: 3", "Score: 3", "Score: 4"]),
        ReplayChatCompletionClient(["Too high.", "Too low."]),
    ]


async def two_debates() -> list[str]:
    """Run a debate on a new team, then another on the same team (its agents' clients pointed at the next
    debate's answers, as the method points them at the next item's recording clients); one line of counts
    for each."""
    lines = []
    clients = [DelegatingClient(replay) for replay in answers()]
    agents = [AssistantAgent(SCORER, clients[0]), AssistantAgent(CRITIC, clients[1])]
    team = None
    for label in ("a new team", "the same team again"):
        protocol = DebateProtocol(max_rounds=2, tie_breaker=False, critic_agrees=lambda text: "NO ISSUE" in text)
        commander = CommanderAgent("Rate the summary's coherence from 1 to 5.", lambda p=protocol: p.pending)
        if team is None:
            team = MultiAgentsDebate([commander, *agents], protocol)
        else:
            for client, replay in zip(clients, answers(), strict=True):
                client.inner = replay
            team.begin(commander, protocol)
            await team.reset()
        messages = await run_on(team, commander.task, commander_llm=False)
        lines.append(
            f"{label}: {len(messages)} messages; {COUNTS['publishes']} publishes; {COUNTS['sends']} sends; "
            f"{COUNTS['deliveries']} deliveries; {COUNTS['registrations']} registrations (5 model calls)"
        )
        COUNTS.update(dict.fromkeys(COUNTS, 0))
    return lines


def main() -> None:
    """Count and print."""
    count_traffic()
    print("\n".join(asyncio.run(two_debates())))


if __name__ == "__main__":
    main()
