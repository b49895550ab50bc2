"""DEBATE items on a team of their own against items on a team kept from item to item (``DebateTeams``, as
``DebateMethod.evaluator`` keeps them): the CPU per item, and the memory held after thousands of items.

Each item is ``run_debate`` (n = 2, fixed relays, a Critic that never agrees: five model calls) through a
``ClientPool`` whose clients replay scripted answers (no endpoint, no network): what is measured is the method
and AutoGen's team, the part a kept team changes. Blocks of ``--block`` items alternate between the two ways
(the same load for both); the figures are the medians over the blocks of the process's CPU time per item. Then
``--items`` items on one kept team with ``tracemalloc`` on: the memory traced after the first 10 % of them and
after all of them (a team that kept something of every item would grow by about the same amount every item).

    python scripts/bench_team_reuse.py
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import statistics
import time
import tracemalloc
from typing import Any

from autogen_core.models import CreateResult
from autogen_ext.models.replay import ReplayChatCompletionClient

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.agents.personas import get_persona
from debate_eval.debates.debate.run import DebateConfig, DebateTeams, run_debate
from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.scoring.scores import ScoreRange

DOCUMENT = "The city council met on Monday and approved the budget after a long debate about schools."


def task(item: int) -> EvaluationTask:
    """Item ``item``: a summary to rate for coherence."""
    summary = f"The council approved the budget on Monday (summary {item})."
    prompt = f"Rate coherence (1-5).\n\nSource Text:\n{DOCUMENT}\n\nSummary:\n{summary}\n\n- Coherence:"
    return EvaluationTask(
        item_id=f"doc/{item}", prompt=prompt, aspect="coherence", scale=ScoreRange(1, 5), untrusted=(DOCUMENT, summary)
    )


CONFIG = DebateConfig(
    scorer=get_persona("scorer", "scorer"),
    critic=get_persona("devils-advocate", "critic"),
    commander=get_persona("commander", "commander"),
    tiebreaker=None,
    max_rounds=2,
)


class Replay(ReplayChatCompletionClient):
    """AutoGen's replaying client without its log of every request (which would hold every item's messages)."""

    async def create(self, *args: Any, **kwargs: Any) -> CreateResult:
        """The next answer."""
        result = await super().create(*args, **kwargs)
        self.create_calls.clear()
        return result


def pool(items: int) -> ClientPool:
    """A pool whose Scorer and Critic replay ``items`` debates' answers."""
    scorer = Replay(["Coherence: 3", "Coherence: 2", "Coherence: 4"] * items)
    critic = Replay(["Too high.", "Too low."] * items)
    for client in (scorer, critic):
        client.set_cached_bool_value(False)
    return ClientPool(resolve_model_config(environ={}), overrides={"scorer": scorer, "critic": critic})


async def block(items: int, first: int, teams: DebateTeams | None) -> float:
    """CPU seconds per item of ``items`` debates (on ``teams``' kept team, or each on its own)."""
    clients = pool(items)
    started = time.process_time()
    for item in range(first, first + items):
        outcome = await run_debate(task(item), CONFIG, clients, teams)
        assert outcome.score == 4 and len(outcome.calls) == 5
    return (time.process_time() - started) / items


async def cpu(blocks: int, size: int) -> tuple[float, float]:
    """Median CPU ms per item: each on a team of its own, on one kept team."""
    teams = DebateTeams()
    await block(size, 0, teams)  # warm-up (imports, the kept team's first item)
    await block(size, 0, None)
    own, kept = [], []
    for number in range(blocks):
        own.append(await block(size, number * size, None))
        kept.append(await block(size, number * size, teams))
    return 1000 * statistics.median(own), 1000 * statistics.median(kept)


async def memory(items: int) -> tuple[float, float]:
    """KiB traced after the first tenth of ``items`` debates on one kept team, and after all of them."""
    teams, clients = DebateTeams(), pool(items)
    tracemalloc.start()
    early = 0.0
    for item in range(items):
        await run_debate(task(item), CONFIG, clients, teams)
        if item + 1 == items // 10:
            gc.collect()
            early = tracemalloc.get_traced_memory()[0] / 1024
    gc.collect()
    late = tracemalloc.get_traced_memory()[0] / 1024
    tracemalloc.stop()
    return early, late


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=10, help="blocks of items per way (default 10)")
    parser.add_argument("--block", type=int, default=50, help="items per block (default 50)")
    parser.add_argument("--items", type=int, default=5000, help="items on one kept team for memory (default 5000)")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    own, kept = asyncio.run(cpu(args.blocks, args.block))
    print(f"CPU per item: a team of its own {own:.3f} ms, a kept team {kept:.3f} ms ({own - kept:+.3f} ms saved)")
    early, late = asyncio.run(memory(args.items))
    print(
        f"memory traced on one kept team: {early:.0f} KiB after {args.items // 10} items, {late:.0f} KiB after "
        f"{args.items} ({(late - early) * 1024 / (args.items - args.items // 10):.1f} bytes an item after the first "
        f"tenth); load average {load:.2f} / {os.getloadavg()[0]:.2f}"
    )


if __name__ == "__main__":
    main()
