"""Workers stop together: the first error cancels and awaits the others; tasks from before are left alone."""

from __future__ import annotations

import asyncio

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.concurrency import run_all


def test_the_first_error_cancels_the_others_and_leaves_older_tasks_alone() -> None:
    cancelled: list[str] = []

    async def slow(name: str) -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(name)
            raise

    async def failing() -> None:
        await asyncio.sleep(0.01)
        raise UserError("disk full")

    async def main() -> bool:
        older = asyncio.ensure_future(asyncio.sleep(0.05))  # e.g. another run on the same loop
        spawned: list[asyncio.Task[None]] = []

        async def spawner() -> None:  # like AutoGen's runtime: a task the worker does not await
            spawned.append(asyncio.ensure_future(slow("spawned")))
            await slow("worker")

        with pytest.raises(UserError, match="disk full"):
            await run_all([spawner(), failing(), slow("other")])
        await asyncio.sleep(0)
        assert all(task.done() for task in spawned)
        await older
        return older.cancelled()

    assert asyncio.run(main()) is False
    assert sorted(cancelled) == ["other", "spawned", "worker"]
