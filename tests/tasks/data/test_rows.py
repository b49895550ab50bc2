"""An id field of a data row: a non-blank string as it is, a whole number as its digits; anything else a
one-line error naming the file, the row (from 1) and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.rows import Row, id_text


@pytest.mark.parametrize(
    ("value", "expected"),
    [("a7", "a7"), (12, "12"), (0, "0"), ("  ", None), ("", None), (True, None), (1.5, None), (None, None)],
)
def test_an_id_is_a_string_or_a_whole_number(value: object, expected: str | None) -> None:
    assert id_text(value) == expected


def test_a_row_without_an_id_names_the_row_and_the_field() -> None:
    assert Row(Path("pairs.jsonl"), 0, {"pair_id": 7}).identifier("pair_id") == "7"
    with pytest.raises(UserError) as caught:
        Row(Path("pairs.jsonl"), 2, {"pair_id": False}).identifier("pair_id")
    assert str(caught.value) == 'pairs.jsonl: row 3 (counted from 1): field "pair_id": expected an id, got false'
