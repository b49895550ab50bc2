"""The one exception type the command line turns into a clear one-line message, the check that an optional
dependency (an extra) is installed, and the scrubbing of secrets out of every exception the package raises or
re-raises.

Secrets are masked where an exception is built, not where it is printed: a ``UserError``'s message and the
model layer's own errors are redacted in their constructors, and a provider's error that passes the client
stack (``RetryingClient``, the endpoint check) is scrubbed in place with its whole chain of causes
(``scrub_exception``), so its ``str``, ``repr``, ``args``, message, body and traceback hold no key, in the
Python API as on the command line.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from typing import Any, TypeVar

from debate_eval.agents.redaction import redact, redact_json

E = TypeVar("E", bound=BaseException)


def redacted_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``args`` with every secret masked in its strings (other values as they are)."""
    return tuple(redact(arg) if isinstance(arg, str) else arg for arg in args)


class RedactedError(Exception):
    """A base for the errors whose message may quote a provider or a setting: masked when built."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*redacted_args(args))


class UserError(RedactedError):
    """A problem with the user's input or environment, not a bug.

    The message must say what is wrong and where (which file, which row, which field, which setting)
    and, where it can, what to do about it. The command line prints it on one line, without a traceback,
    and exits with a non-zero status. Secrets (API keys) are masked when it is built.
    """


def require(module: str, extra: str, what: str) -> None:
    """A one-line ``UserError`` when ``module`` (an optional dependency, the package's extra ``extra``) is not
    installed: ``WHAT needs MODULE: pip install 'debate-eval[EXTRA]'``."""
    if importlib.util.find_spec(module) is None:
        raise UserError(f"{what} needs {module}, which is not installed: pip install 'debate-eval[{extra}]'")


def error_chain(error: BaseException | None) -> Iterator[BaseException]:
    """``error`` and the errors behind it, each once: its ``__cause__``, else its ``__context__``, and so on."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def scrub_exception(error: E) -> E:
    """Mask every secret in ``error`` and in each exception of its chain (``__cause__``, ``__context__``),
    in place: ``args``, and the ``message`` and ``body`` a provider SDK's error carries. Returns ``error``."""
    pending: list[BaseException | None] = [error]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        try:
            current.args = redacted_args(current.args)
            for name in ("message", "body"):
                value = current.__dict__.get(name)
                if isinstance(value, str):
                    setattr(current, name, redact(value))
                elif isinstance(value, dict | list):
                    setattr(current, name, redact_json(value))
        except (AttributeError, TypeError):  # an exception type that forbids it: its chain is still walked
            pass
        pending += [current.__cause__, current.__context__]
    return error
