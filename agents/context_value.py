"""``bound``: a context variable set for the length of a block (and of the tasks started in it)."""

from __future__ import annotations

import contextlib
from contextvars import ContextVar, Token
from typing import Any, TypeVar

T = TypeVar("T")


class _Bound(contextlib.AbstractContextManager[T]):
    """The block of ``bound`` (a class rather than a generator: it is entered several times per model call)."""

    __slots__ = ("_token", "_value", "_variable")

    def __init__(self, variable: ContextVar[T], value: T) -> None:
        self._variable = variable
        self._value = value
        self._token: Token[T] | None = None

    def __enter__(self) -> T:
        self._token = self._variable.set(self._value)
        return self._value

    def __exit__(self, *exc: Any) -> None:
        assert self._token is not None
        self._variable.reset(self._token)


def bound(variable: ContextVar[T], value: T) -> _Bound[T]:
    """Within the block, and in the tasks it starts, ``variable`` holds ``value`` (yielded); on leaving, even by
    an exception, it holds what it held before."""
    return _Bound(variable, value)
