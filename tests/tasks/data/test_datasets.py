"""Dataset loaders: the real files' facts, selection, stable ids, and a corpus of broken files."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.datasets import (
    DATA_DIR_ENV,
    DATASETS,
    Item,
    check_aspect,
    default_data_dir,
    get_dataset,
    git_blob_id,
    load_items,
    resolve_data_dir,
    select_items,
    topical_chat_context_id,
)
from debate_eval.tasks.data.summeval import load_summeval as _load_summeval
from debate_eval.tasks.data.topical_chat import load_topical_chat as _load_topical_chat


def load_summeval(path: Path) -> list[Item]:
    return _load_summeval(path, spec=get_dataset("summeval"))


def load_topical_chat(path: Path) -> list[Item]:
    return _load_topical_chat(path, spec=get_dataset("topical_chat"))


SHIPPED = [name for name, spec in DATASETS.items() if spec.shipped]

SUMMEVAL_SYSTEMS = {f"M{n}" for n in (0, 1, 2, 5, 8, 9, 10, 11, 12, 13, 14, 15, 17, 20, 22, 23)}
TOPICAL_CHAT_SYSTEMS = {
    "Original Ground Truth",
    "Argmax Decoding",
    "Nucleus Decoding (p = 0.3)",
    "Nucleus Decoding (p = 0.5)",
    "Nucleus Decoding (p = 0.7)",
    "New Human Generated",
}


def _groups(items: list[Item]) -> Counter[str]:
    return Counter(item.group_id for item in items)


def _is_third(value: float) -> bool:
    return abs(value * 3 - round(value * 3)) < 1e-6


# --------------------------------------------------------------------------------------------------
# The real files


@pytest.fixture(scope="module")
def summeval(shared_data_dir: Path) -> list[Item]:
    return load_items("summeval", shared_data_dir)


@pytest.fixture(scope="module")
def topical_chat(shared_data_dir: Path) -> list[Item]:
    return load_items("topical_chat", shared_data_dir)


def test_summeval_has_100_documents_of_16_systems(summeval: list[Item]) -> None:
    assert len(summeval) == 1600
    groups = _groups(summeval)
    assert len(groups) == 100 and set(groups.values()) == {16}
    assert {item.system_id for item in summeval} == SUMMEVAL_SYSTEMS
    assert [item.row_index for item in summeval] == list(range(1600))
    assert len({item.item_id for item in summeval}) == 1600


def test_summeval_rows_of_a_document_are_contiguous(summeval: list[Item]) -> None:
    order = [item.group_id for item in summeval]
    for start in range(0, 1600, 16):
        assert len(set(order[start : start + 16])) == 1


def test_summeval_first_item_matches_the_readme_example(summeval: list[Item]) -> None:
    first = summeval[0]
    assert first.item_id == "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2/M11"
    assert first.dataset == "summeval" and first.group_id.startswith("dm-test-") and first.system_id == "M11"
    assert list(first.inputs) == ["Document", "Summary"]
    assert first.inputs["Document"].startswith("Paul Merson has restarted his row with Andros Townsend")
    assert first.inputs["Summary"].endswith("Click here for all the latest arsenal news news .")
    assert first.human_scores["coherence"] == pytest.approx(1.333, abs=1e-3)
    assert first.human_scores["overall"] == pytest.approx(1.75)


def test_summeval_scales(summeval: list[Item]) -> None:
    for item in summeval:
        scores = item.human_scores
        assert set(scores) == {"coherence", "consistency", "fluency", "relevance", "overall"}
        for aspect in ("coherence", "consistency", "fluency", "relevance"):
            assert 1 <= scores[aspect] <= 5 and _is_third(scores[aspect])
        mean = (scores["coherence"] + scores["consistency"] + scores["fluency"] + scores["relevance"]) / 4
        assert scores["overall"] == pytest.approx(mean)
    for aspect in ("coherence", "consistency", "fluency", "relevance"):
        values = [item.human_scores[aspect] for item in summeval]
        assert min(values) == 1 and max(values) == 5


def test_summeval_documents_with_constant_scores(summeval: list[Item]) -> None:
    expected = {"consistency": 4, "fluency": 2, "coherence": 0, "relevance": 0}
    for aspect, count in expected.items():
        per_doc: dict[str, set[float]] = {}
        for item in summeval:
            per_doc.setdefault(item.group_id, set()).add(item.human_scores[aspect])
        assert sum(len(values) == 1 for values in per_doc.values()) == count, aspect


def test_topical_chat_has_60_contexts_of_6_responses(topical_chat: list[Item]) -> None:
    assert len(topical_chat) == 360
    groups = _groups(topical_chat)
    assert len(groups) == 60 and set(groups.values()) == {6}
    for start in range(0, 360, 6):
        block = topical_chat[start : start + 6]
        assert len({item.group_id for item in block}) == 1
        assert {item.system_id for item in block} == TOPICAL_CHAT_SYSTEMS


def test_topical_chat_items(topical_chat: list[Item]) -> None:
    first = topical_chat[0]
    assert first.system_id == "Original Ground Truth" and first.dataset == "topical_chat"
    assert list(first.inputs) == ["Dialogue", "Fact", "Response"]
    assert first.inputs["Dialogue"].startswith("so , i 'm reading the latest film from studio ghibli")
    assert first.group_id == topical_chat_context_id(first.inputs["Dialogue"])
    assert first.item_id == f"{first.group_id}/Original Ground Truth"
    for item in topical_chat:
        assert item.inputs["Dialogue"].endswith("\n\n") and item.inputs["Fact"].endswith("\n")
        assert item.group_id.startswith("tc-") and len(item.group_id) == 13


def test_topical_chat_scales(topical_chat: list[Item]) -> None:
    ranges = {
        "understandability": (0, 1),
        "naturalness": (1, 3),
        "coherence": (1, 3),
        "engagingness": (1, 3),
        "groundedness": (0, 1),
        "overall": (1, 5),
    }
    for item in topical_chat:
        assert set(item.human_scores) == set(ranges)
        for aspect, (low, high) in ranges.items():
            assert low <= item.human_scores[aspect] <= high
            assert _is_third(item.human_scores[aspect])
    for aspect, (low, high) in ranges.items():
        values = [item.human_scores[aspect] for item in topical_chat]
        assert min(values) == low and max(values) == high, aspect


@pytest.mark.parametrize("name", SHIPPED)
def test_real_files_match_the_upstream_blob_ids(shared_data_dir: Path, name: str) -> None:
    spec = DATASETS[name]
    data = (shared_data_dir / spec.relative_path).read_bytes()
    assert len(data) == spec.size_bytes
    assert git_blob_id(data) == spec.git_blob_id


def test_topical_chat_context_ids_survive_reordering(topical_chat: list[Item], tmp_path: Path) -> None:
    rows = [
        {
            "source": item.inputs["Dialogue"],
            "system_id": item.system_id,
            "system_output": item.inputs["Response"],
            "context": item.inputs["Fact"],
            "scores": dict(item.human_scores),
        }
        for item in topical_chat
    ]
    random.Random(7).shuffle(rows)
    path = tmp_path / "topical_chat.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    shuffled = load_topical_chat(path)
    original = {item.item_id: (item.group_id, item.inputs["Response"]) for item in topical_chat}
    assert {item.item_id: (item.group_id, item.inputs["Response"]) for item in shuffled} == original
    assert _groups(shuffled) == _groups(topical_chat)


def test_select_items_on_the_real_data(summeval: list[Item], topical_chat: list[Item]) -> None:
    two_docs = select_items(summeval, docs=2)
    assert two_docs == summeval[:32] and len(_groups(two_docs)) == 2
    assert select_items(summeval, limit=5) == summeval[:5]
    assert select_items(summeval, docs=3, limit=20) == summeval[:20]
    assert select_items(summeval, docs=1, limit=100) == summeval[:16]
    assert select_items(topical_chat, docs=1) == topical_chat[:6]
    assert select_items(summeval) == summeval and select_items(summeval) is not summeval


def test_git_blob_id_matches_git_hash_object() -> None:
    assert git_blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    assert git_blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


# --------------------------------------------------------------------------------------------------
# Selection, lookups and the data folder


def _item(group: str, system: str, row: int) -> Item:
    return Item(f"{group}/{system}", "summeval", group, system, {"Document": "d", "Summary": "s"}, {}, row)


def test_select_items_takes_whole_groups_even_when_not_contiguous() -> None:
    items = [_item("A", "x", 0), _item("B", "x", 1), _item("A", "y", 2), _item("C", "x", 3), _item("B", "y", 4)]
    assert select_items(items, docs=1) == [items[0], items[2]]
    assert select_items(items, docs=2) == [items[0], items[1], items[2], items[4]]
    assert select_items(items, docs=2, limit=3) == items[:3]
    assert select_items(items, docs=10) == items
    assert select_items(items, limit=10) == items


@pytest.mark.parametrize("value", [0, -1, True, 1.5, "3"])
@pytest.mark.parametrize("option", ["limit", "docs"])
def test_select_items_rejects_non_positive_integers(option: str, value: Any) -> None:
    with pytest.raises(UserError, match=f"--{option} must be a positive whole number"):
        select_items([_item("A", "x", 0)], **{option: value})


def test_items_are_hashable() -> None:
    assert len({_item("A", "x", 0), _item("A", "x", 0), _item("A", "y", 1)}) == 2


def test_dataset_specs() -> None:
    assert get_dataset("summeval").aspects == {
        "coherence": (1, 5),
        "consistency": (1, 5),
        "fluency": (1, 5),
        "relevance": (1, 5),
    }
    assert get_dataset("topical_chat").aspects == {
        "naturalness": (1, 3),
        "coherence": (1, 3),
        "engagingness": (1, 3),
        "groundedness": (0, 1),
    }
    assert get_dataset("summeval").kind == "summarization" and get_dataset("topical_chat").kind == "dialogue"
    for spec in DATASETS.values():
        assert len(spec.git_blob_id) == 40 and spec.upstream_url.startswith("https://")


def test_unknown_dataset_lists_the_valid_names() -> None:
    with pytest.raises(UserError, match="unknown dataset 'summ'; valid datasets: summeval, topical_chat, fed_turn"):
        get_dataset("summ")


def test_check_aspect() -> None:
    check_aspect("summeval", "fluency")
    check_aspect("topical_chat", "groundedness")
    with pytest.raises(UserError, match="valid aspects: coherence, consistency, fluency, relevance"):
        check_aspect("summeval", "overall")
    with pytest.raises(UserError, match=r"'fluency' for dataset topical_chat.*naturalness"):
        check_aspect("topical_chat", "fluency")
    with pytest.raises(UserError, match="unknown dataset"):
        check_aspect("nope", "coherence")


def test_resolve_data_dir_precedence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    assert default_data_dir() == tmp_path / "xdg" / "debate-eval" / "data"
    assert resolve_data_dir(None) == default_data_dir()
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "env"))
    assert resolve_data_dir(None) == tmp_path / "env"
    assert resolve_data_dir("") == tmp_path / "env"
    assert resolve_data_dir(tmp_path / "cli") == tmp_path / "cli"
    assert resolve_data_dir(str(tmp_path / "cli")) == tmp_path / "cli"


def test_default_data_dir_without_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_data_dir() == tmp_path / ".cache" / "debate-eval" / "data"


def test_missing_file_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with pytest.raises(UserError) as error:
        load_items("fed_turn", tmp_path)
    message = str(error.value)
    assert str(tmp_path / "fed" / "fed_data.json") in message
    assert str(tmp_path / "cache" / "debate-eval" / "data" / "fed" / "fed_data.json") in message
    assert "debate-eval data download" in message and "--data-dir" in message and DATA_DIR_ENV in message


def test_load_items_reads_the_layout(tmp_path: Path) -> None:
    path = tmp_path / "summeval" / "summeval.json"
    path.parent.mkdir()
    path.write_text(json.dumps(_summeval_rows()), encoding="utf-8")
    items = load_items("summeval", tmp_path)
    assert [item.item_id for item in items] == ["d1/M0", "d1/M1", "d2/M0", "d2/M1"]
    assert items[2].human_scores == {"coherence": 1.0, "consistency": 5.0, "fluency": 2.0, "relevance": 3.0}


# --------------------------------------------------------------------------------------------------
# Broken files


def _summeval_rows() -> list[dict[str, Any]]:
    scores = {"coherence": 1, "consistency": 5, "fluency": 2.0, "relevance": 3.0}
    return [
        {
            "doc_id": doc,
            "system_id": system,
            "source": f"Source of {doc} .",
            "reference": "A reference .",
            "system_output": f"Summary by {system} .",
            "scores": dict(scores),
        }
        for doc in ("d1", "d2")
        for system in ("M0", "M1")
    ]


def _topical_chat_rows() -> list[dict[str, Any]]:
    scores = {"understandability": 1, "naturalness": 3, "coherence": 2, "engagingness": 1, "groundedness": 0}
    return [
        {
            "source": f"hi \n how are you in dialogue {context} ? \n\n",
            "system_id": system,
            "system_output": f"reply by {system}",
            "context": "a fact .\n",
            "scores": {**scores, "overall": 4},
        }
        for context in ("one", "two")
        for system in ("Argmax Decoding", "New Human Generated")
    ]


Mutation = Callable[[list[Any]], Any]


def _set(row: int, field: str, value: Any) -> Mutation:
    def mutate(rows: list[Any]) -> list[Any]:
        target = rows[row]
        *parents, last = field.split(".")
        for parent in parents:
            target = target[parent]
        target[last] = value
        return rows

    return mutate


def _delete(row: int, field: str) -> Mutation:
    def mutate(rows: list[Any]) -> list[Any]:
        target = rows[row]
        *parents, last = field.split(".")
        for parent in parents:
            target = target[parent]
        del target[last]
        return rows

    return mutate


def _replace_row(row: int, value: Any) -> Mutation:
    def mutate(rows: list[Any]) -> list[Any]:
        rows[row] = value
        return rows

    return mutate


def _copy_ids(row: int, source_row: int, fields: tuple[str, ...]) -> Mutation:
    def mutate(rows: list[Any]) -> list[Any]:
        for name in fields:
            rows[row][name] = rows[source_row][name]
        return rows

    return mutate


# (case id, dataset, mutation of the parsed rows, fragments the message must contain)
ROW_CASES: list[tuple[str, str, Mutation, list[str]]] = [
    ("top-level-dict", "summeval", lambda rows: {"rows": rows}, ["top level", "got an object"]),
    ("empty-list", "summeval", lambda rows: [], ["no rows"]),
    (
        "row-is-a-list",
        "summeval",
        _replace_row(1, ["d1", "M1"]),
        ["row 2 (counted from 1):", "expected an object, got a list"],
    ),
    ("row-is-a-string", "topical_chat", _replace_row(3, "text"), ["row 4 (counted from 1):", 'got "text"']),
    (
        "missing-system-output",
        "summeval",
        _delete(2, "system_output"),
        ["row 3 (counted from 1):", '"system_output"', "missing"],
    ),
    ("missing-doc-id", "summeval", _delete(0, "doc_id"), ["row 1 (counted from 1):", '"doc_id"', "missing"]),
    ("missing-scores", "summeval", _delete(3, "scores"), ["row 4 (counted from 1):", '"scores"', "missing"]),
    (
        "scores-missing-an-aspect",
        "summeval",
        _delete(1, "scores.fluency"),
        ["row 2 (counted from 1):", '"scores.fluency"', "missing"],
    ),
    (
        "score-is-a-string",
        "summeval",
        _set(3, "scores.coherence", "high"),
        ["row 4 (counted from 1):", 'field "scores.coherence": expected a number, got "high"'],
    ),
    ("score-is-a-bool", "summeval", _set(0, "scores.relevance", True), ['"scores.relevance"', "got true"]),
    ("score-is-null", "topical_chat", _set(2, "scores.naturalness", None), ['"scores.naturalness"', "got null"]),
    (
        "other-score-not-a-number",
        "summeval",
        _set(2, "scores.overall", "n/a"),
        ["row 3 (counted from 1):", '"scores.overall"'],
    ),
    (
        "scores-is-a-list",
        "summeval",
        _set(1, "scores", [1, 2]),
        ["row 2 (counted from 1):", '"scores"', "expected an object"],
    ),
    (
        "coherence-out-of-scale",
        "summeval",
        _set(2, "scores.coherence", 7),
        ["row 3 (counted from 1):", '"scores.coherence"', "7 is outside", "1-5"],
    ),
    (
        "relevance-below-scale",
        "summeval",
        _set(1, "scores.relevance", 0.5),
        ["row 2 (counted from 1):", '"scores.relevance"', "1-5"],
    ),
    (
        "groundedness-out-of-scale",
        "topical_chat",
        _set(1, "scores.groundedness", 2),
        ["row 2 (counted from 1):", '"scores.groundedness"', "0-1"],
    ),
    ("naturalness-out-of-scale", "topical_chat", _set(0, "scores.naturalness", 4), ['"scores.naturalness"', "1-3"]),
    (
        "empty-summary",
        "summeval",
        _set(1, "system_output", ""),
        ["row 2 (counted from 1):", '"system_output"', "empty text"],
    ),
    (
        "whitespace-document",
        "summeval",
        _set(2, "source", "  \n\t "),
        ["row 3 (counted from 1):", '"source"', "whitespace-only"],
    ),
    (
        "doc-id-is-a-number",
        "summeval",
        _set(0, "doc_id", 123),
        ["row 1 (counted from 1):", '"doc_id"', "expected a string, got 123"],
    ),
    ("reference-not-a-string", "summeval", _set(3, "reference", ["x"]), ["row 4 (counted from 1):", '"reference"']),
    (
        "duplicate-doc-and-system",
        "summeval",
        _copy_ids(3, 1, ("doc_id", "system_id")),
        ["row 4 (counted from 1):", '"doc_id"', '"system_id"', "duplicate item d1/M1", "first seen at row 2"],
    ),
    ("tc-missing-context", "topical_chat", _delete(1, "context"), ["row 2 (counted from 1):", '"context"', "missing"]),
    (
        "tc-empty-response",
        "topical_chat",
        _set(2, "system_output", " "),
        ["row 3 (counted from 1):", '"system_output"'],
    ),
    ("tc-missing-source", "topical_chat", _delete(0, "source"), ["row 1 (counted from 1):", '"source"', "missing"]),
    (
        "tc-duplicate-response",
        "topical_chat",
        _copy_ids(3, 2, ("system_id",)),
        ["row 4 (counted from 1):", '"system_id"', "duplicate item", "first seen at row 3"],
    ),
]

LOADERS = {"summeval": load_summeval, "topical_chat": load_topical_chat}
GOOD_ROWS = {"summeval": _summeval_rows, "topical_chat": _topical_chat_rows}


def _write(tmp_path: Path, dataset: str, data: bytes) -> Path:
    path = tmp_path / f"{dataset}.json"
    path.write_bytes(data)
    return path


def _assert_user_error(dataset: str, path: Path, fragments: list[str]) -> str:
    with pytest.raises(UserError) as error:
        LOADERS[dataset](path)
    message = str(error.value)
    assert message.startswith(f"{path}: ")
    assert path.name in message
    for fragment in fragments:
        assert fragment in message
    assert "\n" not in message
    return message


@pytest.mark.parametrize("dataset", list(GOOD_ROWS))
def test_the_good_rows_load(tmp_path: Path, dataset: str) -> None:
    path = _write(tmp_path, dataset, json.dumps(GOOD_ROWS[dataset](), indent=4).encode())
    items = LOADERS[dataset](path)
    assert len(items) == 4 and len(_groups(items)) == 2


@pytest.mark.parametrize(
    ("dataset", "mutate", "fragments"),
    [case[1:] for case in ROW_CASES],
    ids=[case[0] for case in ROW_CASES],
)
def test_broken_rows_are_refused(tmp_path: Path, dataset: str, mutate: Mutation, fragments: list[str]) -> None:
    rows = mutate(copy.deepcopy(GOOD_ROWS[dataset]()))
    path = _write(tmp_path, dataset, json.dumps(rows, indent=4).encode())
    _assert_user_error(dataset, path, fragments)


def test_the_message_format_of_the_brief(tmp_path: Path) -> None:
    rows = _set(3, "scores.coherence", "high")(_summeval_rows())
    path = _write(tmp_path, "summeval", json.dumps(rows).encode())
    message = _assert_user_error("summeval", path, [])
    assert message == f'{path}: row 4 (counted from 1): field "scores.coherence": expected a number, got "high"'


def _good_text(dataset: str) -> str:
    return json.dumps(GOOD_ROWS[dataset](), indent=4)


BYTE_CASES: list[tuple[str, str, Callable[[str], bytes], list[str]]] = [
    (
        "invalid-json",
        "summeval",
        lambda text: text.replace('"system_id": "M0",', '"system_id": "M0",,', 1).encode(),
        ["invalid JSON at line 4, column", "Expecting"],
    ),
    ("not-json-at-all", "topical_chat", lambda text: b"hello", ["invalid JSON at line 1, column 1"]),
    ("empty-file", "summeval", lambda text: b"", ["invalid JSON at line 1, column 1", "truncated"]),
    ("truncated", "summeval", lambda text: text[: len(text) // 2].encode(), ["invalid JSON at line", "column"]),
    ("truncated-at-a-row-end", "topical_chat", lambda text: text[: text.rindex("}")].encode(), ["truncated"]),
    ("nan-score", "summeval", lambda text: text.replace('"fluency": 2.0', '"fluency": NaN', 1).encode(), ["finite"]),
]


@pytest.mark.parametrize(
    ("dataset", "make", "fragments"),
    [case[1:] for case in BYTE_CASES],
    ids=[case[0] for case in BYTE_CASES],
)
def test_broken_files_are_refused(
    tmp_path: Path, dataset: str, make: Callable[[str], bytes], fragments: list[str]
) -> None:
    path = _write(tmp_path, dataset, make(_good_text(dataset)))
    _assert_user_error(dataset, path, fragments)


@pytest.mark.parametrize("dataset", list(GOOD_ROWS))
def test_non_utf8_bytes_give_the_byte_offset(tmp_path: Path, dataset: str) -> None:
    data = _good_text(dataset).encode()
    offset = data.index(b"reply by" if dataset == "topical_chat" else b"Summary by")
    path = _write(tmp_path, dataset, data[:offset] + b"\xff\xfe" + data[offset:])
    _assert_user_error(dataset, path, ["not valid UTF-8", f"byte offset {offset}"])


def test_a_directory_instead_of_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "pandalm" / "testset-v1.json").mkdir(parents=True)
    with pytest.raises(UserError, match="not found"):
        load_items("pandalm", tmp_path)


@pytest.mark.parametrize("name", [name for name, spec in DATASETS.items() if not spec.shipped])
def test_the_other_sets_match_their_upstream_blob_ids(dataset_path: Callable[[str], Path], name: str) -> None:
    spec = DATASETS[name]
    data = dataset_path(name).read_bytes()
    assert len(data) == spec.size_bytes and git_blob_id(data) == spec.git_blob_id
