"""The event loop every ``Judge`` of the process runs its calls on, in a daemon thread started on first use (the
endpoints' shared limiters belong to one loop): ``blocking`` runs a call from synchronous code (a plain script, or
a Jupyter cell whose loop is running), ``awaited`` from the caller's own loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _judges_loop() -> asyncio.AbstractEventLoop:
    """The judges' loop, started in its daemon thread on first use (and again if it was closed)."""
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="debate-eval-judge", daemon=True).start()
        return _loop


def _submit(work: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Run ``work`` on the judges' loop in a copy of the caller's context (its context variables: the caller's
    current span, an inspect sample's loop for the inspect provider's calls)."""
    return asyncio.run_coroutine_threadsafe(_in_context(work, contextvars.copy_context()), _judges_loop())


def _in_loop_thread() -> bool:
    try:
        return asyncio.get_running_loop() is _loop
    except RuntimeError:
        return False


async def _in_context(work: Coroutine[Any, Any, T], context: contextvars.Context) -> T:
    """Await ``work`` as a task run in ``context`` (cancelling this cancels it)."""
    return await asyncio.get_running_loop().create_task(work, context=context)


def blocking(work: Coroutine[Any, Any, T]) -> T:
    """Run ``work`` on the judges' loop and wait for it (a KeyboardInterrupt cancels it)."""
    if _in_loop_thread():
        work.close()
        raise RuntimeError("a Judge's blocking method was called from its own event loop; await the *_async form")
    future = _submit(work)
    try:
        return future.result()
    except BaseException:
        future.cancel()
        raise


async def awaited(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` running on the judges' loop from the caller's loop (cancelling the caller cancels it)."""
    if _in_loop_thread():
        return await work
    return await asyncio.wrap_future(_submit(work))
