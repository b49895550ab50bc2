"""The ``inspect`` client's calls from another event loop run on the host's loop, in the host's context, and
are cancelled with their caller (no inspect_ai needed: the hand-over is plain asyncio)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading

from debate_eval.agents.models.providers.inspect_client import _run_on
from debate_eval.agents.models.providers.inspect_models import Host

SAMPLE: contextvars.ContextVar[str] = contextvars.ContextVar("sample", default="none")


def host_loop() -> tuple[asyncio.AbstractEventLoop, threading.Thread]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    return loop, thread


def test_the_work_runs_on_the_host_loop_in_the_host_context() -> None:
    loop, thread = host_loop()
    SAMPLE.set("sample-7")
    host = Host(loop, contextvars.copy_context())
    SAMPLE.set("caller")

    async def work() -> tuple[str, bool]:
        return SAMPLE.get(), asyncio.get_running_loop() is loop

    try:
        assert asyncio.run(_run_on(host, work())) == ("sample-7", True)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


def test_cancelling_the_caller_cancels_the_work_on_the_host_loop() -> None:
    loop, thread = host_loop()
    host = Host(loop, contextvars.copy_context())
    started, cancelled = threading.Event(), threading.Event()

    async def work() -> None:
        started.set()
        try:
            await asyncio.Event().wait()  # never set: only a cancellation ends it
        except asyncio.CancelledError:
            cancelled.set()
            raise

    async def caller() -> None:
        task = asyncio.ensure_future(_run_on(host, work()))
        while not started.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    try:
        asyncio.run(caller())
        assert cancelled.wait(10)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
