"""Runtime traffic of one DEBATE team run: how many messages AutoGen's runtime publishes and how many handler
deliveries it makes for one debate (n = 2, fixed relays, a Critic that never agrees: five model calls and
four Commander relays), with replayed model answers (no endpoint, no network).

The counts come from wrapping ``SingleThreadedAgentRuntime.publish_message`` and
``RoutedAgent.on_message_impl`` in this process only (a measurement, not the project's code path); they do not
depend on the machine's load. Prints one line: the messages of the debate, the publishes and the deliveries.

    python scripts/bench_team_traffic.py
"""

from __future__ import annotations

import asyncio
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_core import RoutedAgent, SingleThreadedAgentRuntime
from autogen_ext.models.replay import ReplayChatCompletionClient

from debate_eval.agents.commander import CommanderAgent
from debate_eval.agents.roles import CRITIC, SCORER
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.debate.team import run_team

COUNTS = {"publishes": 0, "deliveries": 0}


def count_traffic() -> None:
    """Wrap the runtime's publish and the agents' message handling to count them."""
    publish, deliver = SingleThreadedAgentRuntime.publish_message, RoutedAgent.on_message_impl

    async def counted_publish(self: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTS["publishes"] += 1
        return await publish(self, *args, **kwargs)

    async def counted_delivery(self: Any, *args: Any, **kwargs: Any) -> Any:
        COUNTS["deliveries"] += 1
        return await deliver(self, *args, **kwargs)

    SingleThreadedAgentRuntime.publish_message = counted_publish  # type: ignore[method-assign]
    RoutedAgent.on_message_impl = counted_delivery  # type: ignore[method-assign]


async def one_debate() -> int:
    """Run the debate; return its number of messages."""
    protocol = DebateProtocol(max_rounds=2, tie_breaker=False, critic_agrees=lambda text: "NO ISSUE" in text)
    scorer = AssistantAgent(SCORER, ReplayChatCompletionClient(["Score: 3", "Score: 3", "Score: 4"]))
    critic = AssistantAgent(CRITIC, ReplayChatCompletionClient(["Too high.", "Too low."]))
    commander = CommanderAgent("Rate the summary's coherence from 1 to 5.", lambda: protocol.pending)
    messages = await run_team([commander, scorer, critic], protocol, commander.task, commander_llm=False)
    return len(messages)


def main() -> None:
    """Count and print."""
    count_traffic()
    messages = asyncio.run(one_debate())
    print(f"{messages} messages; {COUNTS['publishes']} publishes; {COUNTS['deliveries']} deliveries (5 model calls)")


if __name__ == "__main__":
    main()
