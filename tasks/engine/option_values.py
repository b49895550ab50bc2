"""How the value of a run option is checked, by its kind: one ``UserError`` line naming the option (``label``)
otherwise. ``RunRequest`` gives every field a kind (``request.check_value``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.rows import finite_number

# How a field's value is checked (``check_value``); the kind of every field is in its metadata.
TEXT, PATH, INT, POSITIVE_INT, NON_NEGATIVE_INT, FLOAT, POSITIVE_FLOAT, SWITCH, MAPPING, SCALE, OPTIONS = (
    "text",
    "path",
    "int",
    "positive int",
    "non-negative int",
    "float",
    "positive float",
    "switch",
    "mapping",
    "scale",
    "options",
)


def checked(kind: str, value: Any, label: str) -> Any:
    """``value`` of an option of ``kind`` checked and normalised (paths as text, ``"a=b,c=d"`` as a mapping, a
    scale ``(1, 5)`` as ``"1-5"``); a one-line ``UserError`` naming ``label`` otherwise."""
    if value is None:
        return None

    def fail(expected: str) -> UserError:
        return UserError(f"{label}: expected {expected}, got {value!r}")

    if kind == SWITCH:
        if not isinstance(value, bool):
            raise fail("true or false")
        return value
    if kind in (TEXT, PATH):
        if kind == PATH and isinstance(value, os.PathLike):
            return os.fspath(value)
        if not isinstance(value, str):
            raise fail("a path" if kind == PATH else "text")
        return value
    if kind in (INT, POSITIVE_INT, NON_NEGATIVE_INT):
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail("a whole number")
        if kind == POSITIVE_INT and value < 1:
            raise fail("a whole number >= 1")
        if kind == NON_NEGATIVE_INT and value < 0:
            raise fail("a whole number >= 0")
        return value
    if kind in (FLOAT, POSITIVE_FLOAT):
        number = finite_number(value)
        if number is None:
            raise fail("a number")
        if kind == POSITIVE_FLOAT and not number > 0:
            raise fail("a number > 0")
        return number
    if kind == SCALE:
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(_is_number(v) for v in value):
            return f"{value[0]:g}-{value[1]:g}"
        raise fail('a scale such as "1-5" or (1, 5)')
    if kind == MAPPING:
        return _mapping(value, fail, label)
    if kind == OPTIONS:
        if not isinstance(value, Mapping):
            raise fail("a mapping of option names to values")
        return {str(k).replace("-", "_"): v for k, v in value.items()}
    raise AssertionError(f"unknown kind {kind!r} of {label}")  # pragma: no cover - a field without a kind


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _mapping(value: Any, fail: Any, label: str) -> dict[str, str]:
    """``{"a": "X"}``, ``"a=X,b=Y"`` or ``[("a", "X")]`` as a dict of text."""
    pairs: Iterable[Any]
    if isinstance(value, str):
        pairs = []
        for part in (piece.strip() for piece in value.split(",")):
            if part:
                key, sep, item = part.partition("=")
                if not sep or not key.strip() or not item.strip():
                    raise UserError(f"{label}: expected NAME=VALUE pairs separated by commas, got {part!r}")
                pairs.append((key.strip(), item.strip()))
    elif isinstance(value, Mapping):
        pairs = value.items()
    elif isinstance(value, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        pairs = value
    else:
        raise fail("a mapping of names to values")
    result: dict[str, str] = {}
    for key, item in pairs:
        if not isinstance(key, str) or not isinstance(item, (str, int, float)) or isinstance(item, bool):
            raise fail("a mapping of names to text")
        if key in result:
            raise UserError(f"{label}: {key!r} is given twice")
        result[key] = str(item)
    return result
