"""The user's own data: --dataset FILE with --fields (CSV, JSONL, JSON), pairwise labels, and bad rows."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.datasets import get_dataset, load_items, select_items
from debate_eval.tasks.data.own_file import register_own_file

CSV = """doc,article,summ,rating,ref
a,"The cat sat on the mat. It was warm.","A cat sat.",4,"Cat on mat."
a,"The cat sat on the mat. It was warm.","Dogs bark loudly.",1,"Cat on mat."
a,"The cat sat on the mat. It was warm.","The cat was on a warm mat.",5,"Cat on mat."
b,"Rain fell all day in the city.","It rained.",4,"Rainy day."
b,"Rain fell all day in the city.","Sunny skies.",1,"Rainy day."
b,"Rain fell all day in the city.","The city had rain all day long.",5,"Rainy day."
c,"Stocks rose 3% on Monday.","Markets up.",3,"Stocks rose."
c,"Stocks rose 3% on Monday.","Stocks fell.",1,"Stocks rose."
c,"Stocks rose 3% on Monday.","Stocks rose three percent Monday.",5,"Stocks rose."
"""
FIELDS = {"source": "article", "output": "summ", "human": "rating", "group": "doc", "reference": "ref"}


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_csv_with_renamed_columns_and_three_groups(tmp_path: Path) -> None:
    name = _write(tmp_path, "mine.csv", CSV)
    spec = register_own_file(name, fields=FIELDS, aspect="faithfulness", scale=(1, 5))
    assert get_dataset(name) is spec and spec.level == "group" and spec.aspects == {"faithfulness": (1, 5)}
    assert spec.inputs == ("source", "reference", "output")
    items = load_items(name)
    assert len(items) == 9 and [item.group_id for item in items] == list("aaabbbccc")
    assert items[1].inputs == {
        "source": "The cat sat on the mat. It was warm.",
        "reference": "Cat on mat.",
        "output": "Dogs bark loudly.",
    }
    assert items[1].human_scores == {"faithfulness": 1.0} and items[1].item_id == "row-2"
    assert select_items(items, docs=2) == items[:6]


def test_without_group_each_item_is_its_own_group(tmp_path: Path) -> None:
    rows = [{"src": f"text {i}", "out": f"summary {i}", "score": i % 3 + 1, "uid": f"u{i}"} for i in range(5)]
    name = _write(tmp_path, "mine.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    spec = register_own_file(
        name, fields={"source": "src", "output": "out", "human": "score", "id": "uid"}, aspect="quality"
    )
    items = load_items(name)
    assert spec.level == "item" and [item.group_id for item in items] == ["u0", "u1", "u2", "u3", "u4"]
    assert spec.aspects == {"quality": (1.0, 3.0)}  # no --scale: the range seen, shown by `datasets`


def test_json_file_and_same_named_columns(tmp_path: Path) -> None:
    rows = [{"source": "s", "output": "o", "human": 2.5, "context": "ctx", "group": 7}]
    name = _write(tmp_path, "mine.json", json.dumps(rows))
    register_own_file(name, fields={}, aspect="quality", scale=(0, 5))
    [item] = load_items(name)
    assert item.inputs == {"context": "ctx", "source": "s", "output": "o"} and item.group_id == "7"


def test_every_bad_row_is_one_line_counted_from_1(tmp_path: Path) -> None:
    bad = CSV.replace('"Dogs bark loudly.",1', '"Dogs bark loudly.",high').replace(
        'c,"Stocks rose 3% on Monday.","Stocks fell.",1', 'c,"Stocks rose 3% on Monday.","",9'
    )
    name = _write(tmp_path, "bad.csv", bad)
    with pytest.raises(UserError) as error:
        register_own_file(name, fields=FIELDS, aspect="faithfulness", scale=(1, 5))
    lines = str(error.value).splitlines()
    where = "(counted from 1, the header line not counted)"
    assert lines == [
        f"{name}: 3 problem(s) in 9 rows; nothing was evaluated:",
        f'{name}: row 2 {where}: column "rating": expected a number, got "high"',
        f'{name}: row 8 {where}: column "summ": empty',
        f'{name}: row 8 {where}: column "rating": 9 is outside the scale 1-5 (--scale)',
    ]
    with pytest.raises(UserError, match=r"unknown dataset|file of your own"):
        get_dataset(name)  # nothing was registered


def test_jsonl_rows_and_types(tmp_path: Path) -> None:
    lines = [
        {"source": "s", "output": "o", "human": 3, "id": "x"},
        {"source": ["not", "text"], "output": "o", "human": 3, "id": "y"},
        {"source": "s", "output": "o", "human": None, "id": "x"},
    ]
    name = _write(tmp_path, "rows.jsonl", "".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(UserError) as error:
        register_own_file(name, fields={}, aspect="q")
    message = str(error.value)
    assert f'{name}: row 2 (counted from 1): column "source": expected text, got a list' in message
    assert f"{name}: row 3 (counted from 1): column \"id\": duplicate id 'x' (first at row 1)" in message
    assert 'column "human"' not in message  # a null rating is an unrated row, judged and left out of meta-eval


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"output": "summ", "human": "rating"}, "no column for source; map them with --fields source=COLUMN"),
        ({**FIELDS, "human": "score"}, "--fields human=score: no such column"),
    ],
)
def test_missing_columns(tmp_path: Path, fields: dict[str, str], fragment: str) -> None:
    name = _write(tmp_path, "mine.csv", CSV)
    with pytest.raises(UserError, match=re.escape(fragment)):
        register_own_file(name, fields=fields, aspect="faithfulness")


def test_broken_files(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="file not found"):
        register_own_file(str(tmp_path / "nope.csv"), fields={}, aspect="q")
    name = _write(tmp_path, "x.jsonl", '{"source": "s"}\n{oops\n')
    with pytest.raises(UserError, match=r"row 2 \(counted from 1\), line 2: invalid JSON"):
        register_own_file(name, fields={}, aspect="q")
    name = _write(tmp_path, "y.json", '{"rows": []}')
    with pytest.raises(UserError, match="expected a JSON list of row objects"):
        register_own_file(name, fields={}, aspect="q")


def test_pairwise_file_with_a_label_mapping(tmp_path: Path) -> None:
    text = "q,a,b,winner\nWhat is 2+2?,4,5,A\nName a colour.,blue,red,same\nSay hi.,hi,,B\n"
    name = _write(tmp_path, "pairs.csv", text)
    spec = register_own_file(
        name,
        fields={"question": "q", "output_a": "a", "output_b": "b", "label": "winner"},
        aspect="preference",
        labels={"first": "A", "second": "B", "tie": "same"},
    )
    items = load_items(name)
    assert spec.task_type == "pairwise" and [item.human_label for item in items] == ["first", "tie", "second"]
    assert items[0].inputs == {"question": "What is 2+2?", "output_a": "4", "output_b": "5"}
    assert items[2].inputs["output_b"] == ""  # an empty response is allowed in a pairwise file
    assert all(item.task_type == "pairwise" for item in items)
    bad = _write(tmp_path, "pairs2.csv", text.replace(",A\n", ",C\n"))
    with pytest.raises(UserError, match=r"row 1 .*column \"winner\": unknown label 'C'"):
        register_own_file(
            bad,
            fields={"question": "q", "output_a": "a", "output_b": "b", "label": "winner"},
            aspect="preference",
            labels={"first": "A", "second": "B", "tie": "same"},
        )


def test_a_file_read_once_is_kept_until_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process's next runs on the same file reuse its checked items; an edited file is read again."""
    from dataclasses import replace

    from debate_eval.tasks.data import registry

    name = _write(tmp_path, "kept.csv", CSV)
    spec = register_own_file(name, fields=FIELDS, aspect="faithfulness", scale=(1, 5))
    reads: list[Path] = []

    def counting(path: Path, **options: object) -> list[object]:
        reads.append(path)
        return spec.loader(path, **options)

    monkeypatch.setitem(registry._OWN_FILES, name, replace(spec, loader=counting))
    first, second = load_items(name), load_items(name)
    assert first == second and first is not second and len(first) == 9 and len(reads) == 1
    first.clear()  # a caller's list is its own
    assert len(load_items(name)) == 9 and len(reads) == 1
    Path(name).write_text(CSV + 'd,"New text.","New.",2,"New."\n', encoding="utf-8")
    assert len(load_items(name)) == 10 and len(reads) == 2


def _streamed(name: str) -> list[object]:
    """The items a run takes of a registered own file, read again row by row."""
    from debate_eval.tasks.data.datasets import item_source

    source = item_source(name)
    return [item for item, _ in source.items_at((position, None) for position in range(len(source)))]


def test_rows_read_one_at_a_time_give_the_items_read_whole(tmp_path: Path) -> None:
    """A JSON-lines file whose first row lacks a column that later rows have (checked again under the map of
    every row's columns), a gzip-compressed one and a CSV with a byte-order mark: the items a run takes, read
    row by row, are those of the file read whole, and the registered summary is the same."""
    import gzip

    from debate_eval.tasks.data import own_file
    from debate_eval.tasks.data.sources import ListSource

    rows = [{"source": f"text {i}", "output": f"out {i}", **({"human": i % 5 + 1} if i else {})} for i in range(7)]
    text = "".join(json.dumps(row) + "\n" for row in rows)
    jsonl = _write(tmp_path, "late.jsonl", text)
    packed = tmp_path / "packed.jsonl.gz"
    packed.write_bytes(gzip.compress(text.encode("utf-8")))
    bom = tmp_path / "bom.csv"
    bom.write_text("\ufeff" + CSV, encoding="utf-8")
    for name, fields in ((jsonl, {}), (str(packed), {}), (str(bom), FIELDS)):
        spec = register_own_file(name, fields=fields, aspect="quality", scale=None)
        whole = load_items(name)
        assert not isinstance(own_file.own_file_source(spec), ListSource)
        assert _streamed(name) == whole and len(whole) in (7, 9)
    assert get_dataset(jsonl).aspects == {"quality": (1.0, 5.0)} and _streamed(jsonl)[0].human_scores == {}


def test_a_file_changed_after_its_check_is_refused(tmp_path: Path) -> None:
    name = _write(tmp_path, "edited.csv", CSV)
    register_own_file(name, fields=FIELDS, aspect="faithfulness", scale=(1, 5))
    from debate_eval.tasks.data.datasets import item_source

    source = item_source(name)
    Path(name).write_text(CSV.replace("A cat sat.", "A dog sat."), encoding="utf-8")
    with pytest.raises(UserError, match=r"edited\.csv: the file changed since it was checked"):
        list(source.items_at([(0, None)]))
    Path(name).unlink()
    with pytest.raises(UserError, match=r"edited\.csv: file not found \(it was checked before the run started\)"):
        list(source.items_at([(0, None)]))
    with pytest.raises(UserError, match=r"edited\.csv: file not found"):
        item_source(name)


def test_duplicate_ids_in_a_large_file_name_both_rows(tmp_path: Path) -> None:
    """Ids are checked for duplicates from the ids kept (no set of them all); a duplicate is named as before."""
    from debate_eval.tasks.data.sources import has_duplicate

    rows = [{"id": f"id-{i}", "source": "s", "output": "o"} for i in range(3000)] + [
        {"id": "id-17", "source": "s", "output": "o"}
    ]
    name = _write(tmp_path, "many.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(UserError) as raised:
        register_own_file(name, fields={}, aspect="quality")
    assert f"{name}: row 3001 (counted from 1): column \"id\": duplicate id 'id-17' (first at row 18)" in str(
        raised.value
    )
    assert has_duplicate([f"k{i}" for i in range(5000)] + ["k4999"]) and not has_duplicate(
        [f"k{i}" for i in range(5000)]
    )


def test_items_chosen_from_the_ids_are_those_select_items_keeps(tmp_path: Path) -> None:
    """--docs and --limit applied to the ids kept by the check choose the items select_items chooses."""
    from debate_eval.tasks.data.datasets import item_source, select_positions

    name = _write(tmp_path, "chosen.csv", CSV)
    register_own_file(name, fields=FIELDS, aspect="faithfulness", scale=(1, 5))
    whole, source = load_items(name), item_source(name)
    for docs, limit in ((None, None), (2, None), (None, 4), (2, 5), (1, 100), (5, 2)):
        chosen = list(select_positions(source, limit=limit, docs=docs))
        taken = [item for item, _ in source.items_at((position, None) for position, _ in chosen)]
        assert taken == select_items(whole, limit=limit, docs=docs) and [i for _, i in chosen] == [
            item.item_id for item in taken
        ]


def test_several_annotators_in_columns_or_a_list_column(tmp_path: Path) -> None:
    rows = [
        {"src": "text 0", "out": "o0", "a": 4, "b": 2, "c": "", "all": [4, 2, None]},
        {"src": "text 1", "out": "o1", "a": 1, "b": 5, "c": 3, "all": "1|5|3"},
    ]
    name = _write(tmp_path, "ann.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    register_own_file(name, fields={"source": "src", "output": "out", "annotators": "a|b|c"}, aspect="q", scale=(1, 5))
    first, second = load_items(name)
    assert first.annotator_scores == {"a": 4.0, "b": 2.0} and first.human_scores == {"q": 3.0}  # their mean
    assert second.annotator_scores == {"a": 1.0, "b": 5.0, "c": 3.0} and second.human_scores == {"q": 3.0}
    listed = _write(tmp_path, "listed.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    register_own_file(listed, fields={"source": "src", "output": "out", "annotators": "all"}, aspect="q", scale=(1, 5))
    first, second = load_items(listed)
    assert first.annotator_scores == {"annotator 1": 4.0, "annotator 2": 2.0}
    assert second.annotator_scores == {"annotator 1": 1.0, "annotator 2": 5.0, "annotator 3": 3.0}


def test_bad_annotator_ratings_are_one_line_each(tmp_path: Path) -> None:
    rows = [{"src": "t", "out": "o", "a": 9, "b": "x"}, {"src": "t2", "out": "o2", "a": 1, "b": 2}]
    name = _write(tmp_path, "bad.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(UserError) as error:
        register_own_file(
            name, fields={"source": "src", "output": "out", "annotators": "a|b"}, aspect="q", scale=(1, 5)
        )
        load_items(name)
    text = str(error.value)
    assert 'row 1 (counted from 1): column "a": 9 is outside the scale 1-5' in text
    assert 'row 1 (counted from 1): column "b": expected a number' in text
    with pytest.raises(UserError, match=r"--fields annotators=a\|zz: no such column"):
        register_own_file(name, fields={"source": "src", "output": "out", "annotators": "a|zz"}, aspect="q")
