"""Many debates on one event loop, stopped cleanly: on the first error or on Ctrl-C every other debate is
cancelled and awaited, so nothing keeps running (or writing) behind the error, and nothing is left for
``asyncio.run``'s shutdown to report.

AutoGen's agent runtime leaves tasks of its own that fail when they are cancelled mid-message
("task_done() called too many times"); after an interruption the loop's exception handler drops those
reports (set ``DEBATE_EVAL_DEBUG=1`` to see them), so Ctrl-C shows only the command's last line.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Iterable
from typing import Any

from debate_eval.agents.errors import UserError

logger = logging.getLogger(__name__)


async def run_all(coroutines: Iterable[Awaitable[None]]) -> None:
    """Run every coroutine as a task of its own until all are done.

    On the first exception the other tasks are cancelled and awaited, then that exception is raised (a
    ``UserError`` among several wins, being the one the user can act on). When this coroutine is cancelled
    (Ctrl-C under ``asyncio.run``), every task is cancelled and awaited before the cancellation goes on.
    """
    existing = asyncio.all_tasks()  # tasks not started by this run (left alone on teardown)
    tasks = [asyncio.ensure_future(coroutine) for coroutine in coroutines]
    if not tasks:
        return
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except asyncio.CancelledError:
        quiet_after_interrupt()
        await _cancel_and_wait(tasks, existing)
        raise
    errors = [task.exception() for task in tasks if task.done() and not task.cancelled() and task.exception()]
    if errors:
        quiet_after_interrupt()
        await _cancel_and_wait(tasks, existing)
        raise next((e for e in errors if isinstance(e, UserError)), errors[0])


async def _cancel_and_wait(tasks: list[asyncio.Future[Any]], existing: set[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and every task started since (not those in ``existing``), then wait for ``tasks``.

    The run is being torn down: AutoGen's runtime makes the model calls in tasks of its own, which a cancelled
    debate would otherwise wait for (up to --timeout times the retries) before it can stop.
    """
    current = asyncio.current_task()
    started = [t for t in asyncio.all_tasks() if t is not current and t not in existing and t not in tasks]
    for task in [*tasks, *started]:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)  # also retrieves every exception (no late warnings)


def quiet_after_interrupt() -> None:
    """From now on, the running loop logs what cancelled tasks report at debug level instead of printing it."""
    if os.environ.get("DEBATE_EVAL_DEBUG"):
        return
    loop = asyncio.get_running_loop()

    def handler(_: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        logger.debug("after interruption: %s", context.get("message"), exc_info=context.get("exception"))

    loop.set_exception_handler(handler)
