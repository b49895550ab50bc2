"""CPU per call of the default path's OpenAI client (``OpenAIChatClient``) against AutoGen's client it replaces.

Both clients post through the same ``PlainBodyClient`` over the run's HTTP client (``chat_http_client``: the
answer checks and usage observer) to the scripted endpoint in a process of its own (no latency), one call at
a time, with a DEBATE Critic's history (a system message, then the task, the Scorer's answer and the
Commander's relays: ``--turns`` messages after the system message). Blocks of ``--calls`` calls alternate
between the two clients, so both see the same load; the figures are the medians over the blocks of the
process's CPU time per call, and their difference is what the project's client saves per model call.

Usage (from the repository root)::

    python scripts/bench_chat_client.py --blocks 10 --calls 100
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import openai
from autogen_core.models import AssistantMessage, LLMMessage, SystemMessage, UserMessage
from autogen_ext.models.openai import BaseOpenAIChatCompletionClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from endpoint_process import EndpointProcess  # sibling script

from debate_eval.agents.models.chat_client import OpenAIChatClient
from debate_eval.agents.models.providers.openai import GENERIC_MODEL_INFO
from debate_eval.agents.models.responses import chat_http_client
from debate_eval.agents.models.sdk_body_passthrough import PlainBodyClient

TEXT = "The council met on Monday and approved the budget for the new library, which opens in May. " * 12


def history(turns: int) -> list[LLMMessage]:
    """A Critic's history: its persona, then ``turns`` messages alternating the Commander's and its own."""
    messages: list[LLMMessage] = [SystemMessage(content="You are the Critic, a devil's advocate.")]
    for turn in range(turns):
        if turn % 2 == 0:
            messages.append(UserMessage(content=f"Relay {turn}: {TEXT}", source="Commander"))
        else:
            messages.append(AssistantMessage(content=f"Issue {turn}: the summary omits the date.", source="Critic"))
    return messages


async def measure(base_url: str, blocks: int, calls: int, turns: int) -> dict[str, list[float]]:
    """CPU ms per call of each client, one figure per block."""
    http = chat_http_client()
    sdk = PlainBodyClient(openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0, http_client=http))
    create_args = {"model": "scripted", "temperature": 0.0}
    clients: dict[str, Any] = {
        "autogen": BaseOpenAIChatCompletionClient(
            client=sdk,  # type: ignore[arg-type]  # duck-typed AsyncOpenAI
            create_args=dict(create_args),
            model_info=GENERIC_MODEL_INFO,
            include_name_in_message=False,
        ),
        "project": OpenAIChatClient(sdk, create_args, GENERIC_MODEL_INFO),
    }
    messages = history(turns)
    figures: dict[str, list[float]] = {name: [] for name in clients}
    for client in clients.values():  # warm-up
        for _ in range(10):
            await client.create(messages)
    for _ in range(blocks):
        for name, client in clients.items():
            started = time.process_time()
            for _ in range(calls):
                await client.create(messages)
            figures[name].append(1000 * (time.process_time() - started) / calls)
    await http.aclose()
    return figures


def main(argv: list[str] | None = None) -> int:
    """Measure and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--calls", type=int, default=100, help="calls a block")
    parser.add_argument("--turns", type=int, default=4, help="messages after the system message")
    args = parser.parse_args(argv)
    with EndpointProcess(["--latency", "0", "--max-lifetime", "3600"]) as endpoint:
        figures = asyncio.run(measure(endpoint.base_url, args.blocks, args.calls, args.turns))
    autogen, project = (statistics.median(figures[name]) for name in ("autogen", "project"))
    paired = statistics.median(a - p for a, p in zip(figures["autogen"], figures["project"], strict=True))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(
        f"CPU ms per call (medians of {args.blocks} blocks of {args.calls}): AutoGen's client {autogen:.3f}, "
        f"OpenAIChatClient {project:.3f}; saved {paired:.3f} ms a call (paired); load {load}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
