"""The one exception type the command line turns into a clear one-line message."""

from __future__ import annotations


class UserError(Exception):
    """A problem with the user's input or environment, not a bug.

    The message must say what is wrong and where (which file, which row, which field, which setting)
    and, where it can, what to do about it. The command line prints it on one line, without a traceback,
    and exits with a non-zero status. Messages must never contain secrets (API keys).
    """
