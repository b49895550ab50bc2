"""``toml_value``: one value of a ``--config`` file read from text (``select --candidate KEY=VALUE``)."""

from __future__ import annotations

import pytest

from debate_eval.tasks.engine.config_file import toml_value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2", 2),
        ("0.5", 0.5),
        ("true", True),
        ('"a,b=c"', "a,b=c"),
        ("geval", "geval"),
        ("devils-advocate", "devils-advocate"),
    ],
)
def test_a_value_is_read_as_toml_and_a_bare_word_as_text(text: str, value: object) -> None:
    assert toml_value(text) == value and type(toml_value(text)) is type(value)
