"""Untrusted text (ids, system names, judged texts, errors) made safe to print on a terminal.

A dataset's fields are the user's or a third party's: an id may hold a newline (which breaks a table's row)
or an escape sequence (which the terminal would obey: colours, cursor moves, a changed window title).
``escaped`` shows every control character as an escape (``\\n``, ``\\x1b``); with ``lines=True`` newlines and
tabs are kept (a transcript's own line breaks) and only the other control characters are escaped.
"""

from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _control(char: str) -> bool:
    code = ord(char)
    bidi = 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069  # text direction overrides
    return code < 0x20 or 0x7F <= code < 0xA0 or char in "\u2028\u2029" or bidi


def escaped(text: object, *, lines: bool = False) -> str:
    """``text`` (any value, as ``str``) with its control characters shown as escapes; ``lines``: keep
    newlines and tabs as they are."""
    value = str(text)
    if not any(_control(char) for char in value):
        return value
    keep = "\n\t" if lines else ""
    return "".join(_escape(char) if _control(char) and char not in keep else char for char in value)
