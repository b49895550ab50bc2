"""``bound``: a context variable set for a block, then back to what it held, also after an exception and in
the tasks started inside."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar

import pytest

from debate_eval.agents.context_value import bound

VARIABLE: ContextVar[str | None] = ContextVar("test_context_value", default=None)


def test_set_in_the_block_and_restored_after() -> None:
    with bound(VARIABLE, "outer") as outer:
        assert outer == "outer"
        assert VARIABLE.get() == "outer"
        with bound(VARIABLE, "inner"):
            assert VARIABLE.get() == "inner"
        assert VARIABLE.get() == "outer"
    assert VARIABLE.get() is None


def test_restored_after_an_exception() -> None:
    with pytest.raises(RuntimeError), bound(VARIABLE, "failing"):
        raise RuntimeError("inside")
    assert VARIABLE.get() is None


def test_tasks_started_inside_see_the_value() -> None:
    async def read() -> str | None:
        return VARIABLE.get()

    async def main() -> str | None:
        with bound(VARIABLE, "item"):
            return await asyncio.create_task(read())

    assert asyncio.run(main()) == "item"
