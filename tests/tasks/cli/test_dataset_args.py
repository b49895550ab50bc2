"""``--fields`` / ``--labels`` / ``--language`` parsing and the folder name of a run on an own file."""

from __future__ import annotations

import argparse
import re

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.cli.dataset_args import FIELD_NAMES, apply_dataset_arguments, dataset_slug
from debate_eval.tasks.data.own_file import parse_mapping


def test_parse_mapping() -> None:
    assert parse_mapping(" source=a , output=b,human=c ", "--fields", FIELD_NAMES) == {
        "source": "a",
        "output": "b",
        "human": "c",
    }
    assert parse_mapping("", "--fields", FIELD_NAMES) == {}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("source", "expected NAME=VALUE pairs"),
        ("source=", "expected NAME=VALUE pairs"),
        ("summary=x", "unknown name 'summary'; valid names: source, output, human, group"),
        ("source=a,source=b", "'source' is given twice"),
    ],
)
def test_parse_mapping_errors(text: str, fragment: str) -> None:
    with pytest.raises(UserError, match=re.escape(fragment)):
        parse_mapping(text, "--fields", FIELD_NAMES)


def _args(**values: object) -> argparse.Namespace:
    defaults = {"dataset": "summeval", "aspect": "coherence", "fields": None, "labels": None, "language": None}
    return argparse.Namespace(**{**defaults, "scale": None, "template": None, **values})


def test_language_sets_the_variant_name() -> None:
    args = _args(dataset="xdial_fed_dialogue", aspect="overall", language="japanese")
    apply_dataset_arguments(args)
    assert args.dataset == "xdial_fed_dialogue-japanese"
    apply_dataset_arguments(args)  # applying twice (ablate cells) changes nothing
    assert args.dataset == "xdial_fed_dialogue-japanese"
    english = _args(dataset="xdial_fed_turn", aspect="overall", language="english")
    apply_dataset_arguments(english)
    assert english.dataset == "xdial_fed_turn"


@pytest.mark.parametrize(
    ("values", "fragment"),
    [
        ({"language": "german"}, "--language is for xdial_fed_turn and xdial_fed_dialogue, not summeval"),
        ({"dataset": "xdial_fed_turn", "language": "latin"}, "unknown --language 'latin'; valid: english"),
        ({"fields": "source=a"}, "--fields and --labels are for your own file; summeval is a built-in dataset"),
    ],
)
def test_misplaced_options(values: dict[str, str], fragment: str) -> None:
    with pytest.raises(UserError, match=re.escape(fragment)):
        apply_dataset_arguments(_args(**values))


def test_dataset_slug() -> None:
    assert dataset_slug("summeval") == "summeval"
    assert dataset_slug("xdial_fed_turn-german") == "xdial_fed_turn-german"
    assert dataset_slug("/data/My Ratings.CSV") == "My_Ratings"
    assert dataset_slug("../x/rows.jsonl") == "rows"
