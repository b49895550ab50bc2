"""``RunRequest``: one typed record of a run's options, checked the same whichever way they came."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.config_file import read_request_file, request_toml
from debate_eval.tasks.engine.request import FLAGS, RunRequest, field_names


def test_names_split_into_fields_and_method_options() -> None:
    request = RunRequest.from_mapping(
        {"dataset": "summeval", "max-rounds": 3, "max_tokens": 64, "method_options": {"critic": "plain"}}
    )
    assert request.dataset == "summeval" and request.max_tokens == 64
    assert request.method_options == {"max_rounds": 3, "critic": "plain"}
    assert request.given() == {
        "dataset": "summeval",
        "max_tokens": 64,
        "method_options": {"max_rounds": 3, "critic": "plain"},
    }


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"limit": "4"}, "run.toml: limit: expected a whole number, got '4'"),
        ({"limit": 0}, "run.toml: limit: expected a whole number >= 1, got 0"),
        ({"limit": True}, "run.toml: limit: expected a whole number, got True"),
        ({"max_retries": -1}, "run.toml: max_retries: expected a whole number >= 0"),
        ({"temperature": "hot"}, "run.toml: temperature: expected a number, got 'hot'"),
        ({"temperature": 10**400}, "run.toml: temperature: expected a number, got 1000"),
        ({"batch_wait": 0}, "run.toml: batch_wait: expected a number > 0"),
        ({"timeout": 0}, "run.toml: timeout: expected a number > 0, got 0"),
        ({"timeout": -1}, "run.toml: timeout: expected a number > 0, got -1"),
        ({"no_cache": "yes"}, "run.toml: no_cache: expected true or false, got 'yes'"),
        ({"dataset": 3}, "run.toml: dataset: expected text, got 3"),
        ({"out": 3}, "run.toml: out: expected a path, got 3"),
        ({"scale": [1]}, 'run.toml: scale: expected a scale such as "1-5" or (1, 5)'),
        ({"role_model": ["critic"]}, "run.toml: role_model: expected a mapping of names to values"),
        ({"method_options": 3}, "run.toml: method_options: expected a table"),
    ],
)
def test_bad_values_are_one_line_naming_the_source_and_option(values: dict[str, object], fragment: str) -> None:
    with pytest.raises(UserError, match=re.escape(fragment)):
        RunRequest.from_mapping(values, source="run.toml")


def test_flags_name_the_flag() -> None:
    with pytest.raises(UserError, match=re.escape("--role-model: 'critic' is given twice")):
        RunRequest.from_mapping({"role_model": [("critic", "a"), ("critic", "b")]}, source=FLAGS)


def test_values_are_normalised() -> None:
    request = RunRequest.from_mapping(
        {"out": Path("runs/x"), "scale": (1, 5), "temperature": 1, "role_model": [("critic", "gpt-4o")]}
    )
    assert request.out == "runs/x" and request.scale == "1-5" and request.temperature == 1.0
    assert isinstance(request.temperature, float) and request.role_model == {"critic": "gpt-4o"}


def test_flags_win_over_the_file_and_method_options_merge() -> None:
    file = RunRequest.from_mapping({"dataset": "summeval", "limit": 8, "max_rounds": 3, "critic": "plain"})
    flags = RunRequest.from_mapping({"limit": 2, "max_rounds": 1})
    merged = file.updated(flags)
    assert (merged.dataset, merged.limit) == ("summeval", 2)
    assert merged.method_options == {"max_rounds": 1, "critic": "plain"}


def test_with_options_changes_fields_and_removes_method_options() -> None:
    base = RunRequest.from_mapping({"dataset": "summeval", "critic": "plain"})
    changed = base.with_options(method="geval", critic=None, max_rounds=2)
    assert changed.method == "geval" and changed.method_options == {"max_rounds": 2}
    with pytest.raises(UserError, match="options: limit: expected a whole number"):
        base.with_options(limit="x")


def test_every_option_kind_round_trips_through_toml(tmp_path: Path) -> None:
    request = RunRequest.from_mapping(
        {
            "dataset": 'ratings "new".csv',
            "aspect": "faithfulness",
            "fields": {"source": "article", "output": "summary"},
            "limit": 4,
            "scale": "1-5",
            "temperature": 0.25,
            "no_cache": True,
            "role_model": {"critic": "gpt-4o-mini"},
            "out": "runs/ä b",
            "max_rounds": 3,
            "chateval_roles": ["scientist", "critic"],
        }
    )
    text = request_toml(request)
    assert "max_rounds = 3" in text and 'role_model = { critic = "gpt-4o-mini" }' in text
    file = tmp_path / "run.toml"
    file.write_text(text, encoding="utf-8")
    assert read_request_file(file) == request


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("dataset = ", "run.toml: not valid TOML: "),
        ("limit = 'four'", "run.toml: limit: expected a whole number, got 'four'"),
    ],
)
def test_bad_config_files_are_one_line(tmp_path: Path, text: str, fragment: str) -> None:
    file = tmp_path / "run.toml"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(UserError, match=re.escape(fragment)) as error:
        read_request_file(file)
    assert "\n" not in str(error.value)


def test_a_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="config file not found"):
        read_request_file(tmp_path / "none.toml")


def test_field_names_are_unique_and_snake_case() -> None:
    names = field_names()
    assert len(set(names)) == len(names)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name in names)
