"""``CompactStrings``: the strings as a list holds them, read while it grows and after ``freeze``."""

from __future__ import annotations

import pytest

from debate_eval.tasks.data.sources import CompactStrings


def test_compact_strings_read_as_a_list_while_growing_and_frozen() -> None:
    strings = CompactStrings()
    expected: list[str] = []
    for i in range(2500):  # two full chunks of 1,024 and a part, empty and non-ASCII strings among them
        value = "" if i % 97 == 0 else f"id-{i}-" + "é" * (i % 5)
        strings.append(value)
        expected.append(value)
        if i in (0, 1023, 1024, 2047, 2048, 2499):
            assert [strings[k] for k in range(len(strings))] == expected
            assert list(strings) == expected and strings[-1] == expected[-1]
    assert strings.freeze() is strings
    assert list(strings) == expected and [strings[k] for k in range(2500)] == expected
    assert strings[-2500] == expected[0] and len(strings) == 2500
    with pytest.raises(IndexError):
        strings[2500]
    with pytest.raises(AssertionError, match="frozen"):
        strings.append("more")
