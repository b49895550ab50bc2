"""An id field of a data row: a non-blank string as it is, a whole number as its digits; anything else a
one-line error naming the file, the row (from 1) and the field. A number field: a finite float, a whole number
too large for a float (JSON reads it as an int) refused in the same one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.rows import Row, describe, finite_number, id_text


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


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, 3.0), (-2.5, -2.5), (10**300, 1e300), (10**400, None), (-(10**400), None), (float("nan"), None)]
    + [(float("inf"), None), (True, None), ("3", None), (None, None)],
)
def test_a_finite_number_is_a_float_or_none(value: object, expected: float | None) -> None:
    assert finite_number(value) == expected


def test_a_number_too_large_for_a_float_names_the_row_and_the_field() -> None:
    assert describe(10**19) == "10000000000000000000" and describe(-(10**25)) == "a whole number of 26 digits"
    with pytest.raises(UserError) as caught:
        Row(Path("rows.jsonl"), 4, {"rating": 10**400}).number("rating")
    expected = (
        'rows.jsonl: row 5 (counted from 1): field "rating": expected a finite number, got a whole number of 401 digits'
    )
    assert str(caught.value) == expected
