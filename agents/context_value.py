"""``bound``: a context variable set for the length of a block (and of the tasks started in it)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")


@contextlib.contextmanager
def bound(variable: ContextVar[T], value: T) -> Iterator[T]:
    """Within the block, and in the tasks it starts, ``variable`` holds ``value`` (yielded); on leaving, even by
    an exception, it holds what it held before."""
    token = variable.set(value)
    try:
        yield value
    finally:
        variable.reset(token)
