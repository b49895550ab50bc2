"""FED (turn and dialogue level) and xDial-Eval's FED on the real files: counts, labels, scales, item ids."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.datasets import Item, get_dataset, load_items
from debate_eval.tasks.data.fed import load_fed
from debate_eval.tasks.data.templates import builtin_template
from debate_eval.tasks.data.xdial_fed import LANGUAGES

DataPath = Callable[[str], Path]


@pytest.fixture(scope="module")
def fed_rows(dataset_path: DataPath) -> list[dict]:
    return json.loads(dataset_path("fed_turn").read_text(encoding="utf-8"))


def _by_name(name: str, dataset_path: DataPath) -> list[Item]:
    """Load ``name`` from the shared data folder (skips outside CI when the file is not there)."""
    return load_items(name, dataset_path(name.split("-")[0]).parents[1])


def test_fed_counts_and_item_level_groups(dataset_path: DataPath) -> None:
    turn, dialogue = _by_name("fed_turn", dataset_path), _by_name("fed_dialogue", dataset_path)
    assert len(turn) == 375 and len(dialogue) == 125
    for items in (turn, dialogue):
        assert all(item.group_id == item.item_id for item in items)  # item-level correlation
        assert len({item.item_id for item in items}) == len(items)
    assert turn[0].item_id == "turn-001" and dialogue[-1].item_id == "dial-125"
    assert set(turn[0].inputs) == {"context", "response"} and set(dialogue[0].inputs) == {"dialogue"}
    assert Counter(item.system_id for item in turn + dialogue) == {"Mitsuku": 176, "Human": 164, "Meena": 160}
    assert get_dataset("fed_turn").level == "item" and get_dataset("summeval").level == "group"


def test_fed_label_is_the_mean_of_integer_scores_skipping_na(dataset_path: DataPath, fed_rows: list[dict]) -> None:
    turn = _by_name("fed_turn", dataset_path)
    dialogue = _by_name("fed_dialogue", dataset_path)
    first = turn[0]  # annotations in the file: Overall [2, 1, 3, 3, 4], Interesting [2, 1, 1, 1, 1]
    assert first.human_scores["overall"] == pytest.approx(13 / 5)
    assert first.human_scores["interesting"] == pytest.approx(6 / 5)
    # The first dialogue's Error recovery: two "N/A (...)" strings and 1, 1, 2 -> mean of the three integers.
    assert dialogue[0].human_scores["error_recovery"] == pytest.approx(4 / 3)
    recomputed = 0
    for row, item in zip([r for r in fed_rows if "response" not in r], dialogue, strict=True):
        numbers = [v for v in row["annotations"]["Error recovery"] if isinstance(v, int)]
        if numbers:
            assert item.human_scores["error_recovery"] == pytest.approx(sum(numbers) / len(numbers))
            recomputed += 1
        else:  # every annotator wrote N/A: no label, never a made-up 0
            assert "error_recovery" not in item.human_scores
    assert recomputed == 124


def test_fed_scales(dataset_path: DataPath) -> None:
    for name in ("fed_turn", "fed_dialogue"):
        spec = get_dataset(name)
        items = _by_name(name, dataset_path)
        for aspect, (low, high) in spec.aspects.items():
            values = [item.human_scores[aspect] for item in items if aspect in item.human_scores]
            assert low <= min(values) and max(values) <= high, (name, aspect)
        assert spec.aspects["overall"] == (0, 4)


def test_xdial_matches_fed_item_for_item(dataset_path: DataPath) -> None:
    fed = _by_name("fed_turn", dataset_path)
    xdial = load_items("xdial_fed_turn", dataset_path("xdial_fed_turn").parents[1])
    assert len(xdial) == 375 and [item.item_id for item in xdial] == [item.item_id for item in fed]
    for ours, theirs in zip(fed, xdial, strict=True):
        assert theirs.human_scores["overall"] == pytest.approx(ours.human_scores["overall"], abs=0.051)
    dialogue = load_items("xdial_fed_dialogue", dataset_path("xdial_fed_dialogue").parents[1])
    assert len(dialogue) == 125 and set(dialogue[0].inputs) == {"dialogue"}


def test_xdial_languages(dataset_path: DataPath) -> None:
    folder = dataset_path("xdial_fed_turn").parents[1]
    english = load_items("xdial_fed_turn", folder)
    german = load_items("xdial_fed_turn-german", folder)
    assert german[0].dataset == "xdial_fed_turn-german" and german[0].system_id == "german"
    assert german[0].inputs["response"] == "Es ist wahrscheinlich langweilig, nicht wahr?"
    assert english[0].inputs["response"] == "It's probably boring, isn't it?"
    assert [i.human_scores for i in german] == [i.human_scores for i in english]
    assert len(LANGUAGES) == 10
    with pytest.raises(UserError, match=r"unknown language 'klingon'.*valid: english, arabic"):
        get_dataset("xdial_fed_turn-klingon")
    template = builtin_template("xdial_fed_turn-german", "overall")
    assert "Es ist wahrscheinlich langweilig" in template.render(german[0].inputs)


def test_every_single_score_aspect_has_a_template_on_its_scale() -> None:
    for name in ("fed_turn", "fed_dialogue", "xdial_fed_turn", "xdial_fed_dialogue"):
        spec = get_dataset(name)
        for aspect, (low, high) in spec.aspects.items():
            template = builtin_template(name, aspect)
            assert (template.scale.low, template.scale.high) == (low, high), (name, aspect)
            assert set(template.placeholders) == set(spec.inputs)


def _fed_file(tmp_path: Path, annotations: dict) -> Path:
    row = {"context": "User: hi", "response": "System: hello", "system": "Meena", "annotations": annotations}
    path = tmp_path / "fed_data.json"
    path.write_text(json.dumps([row]), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("quality", "ratings", "fragment"),
    [
        ("Overall", [1, 2, "great", 3, 4], 'rating 3: expected an integer or an "N/A (...)" string, got "great"'),
        ("Overall", [1, 2, 9, 3, 4], "9 is outside the scale 0-4"),
        ("Fluent", "2", "expected a list of the annotators' ratings"),
        ("Fluent", [1, 2.5, 1, 1, 1], "rating 2"),
    ],
)
def test_bad_fed_ratings_name_row_and_field(tmp_path: Path, quality: str, ratings: object, fragment: str) -> None:
    from debate_eval.tasks.data.fed import TURN_QUALITIES

    annotations = {name: [1, 1, 1, 1, 1] for name in TURN_QUALITIES}
    annotations[quality] = ratings
    path = _fed_file(tmp_path, annotations)
    with pytest.raises(UserError) as error:
        load_fed(path, spec=get_dataset("fed_turn"))
    assert str(error.value).startswith(f'{path}: row 1 (counted from 1): field "annotations.{quality}": ')
    assert fragment in str(error.value)
