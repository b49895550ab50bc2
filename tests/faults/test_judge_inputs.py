"""``Judge``'s odd inputs get one line, as ``run``'s do: one id given to two texts in ``score_many`` with
``record_to``, a lone surrogate, an empty output (``run`` refuses an empty cell too)."""

from __future__ import annotations

import gc
import json
import warnings
from pathlib import Path

import pytest

import debate_eval
from debate_eval.agents.errors import UserError

JUDGE = {"method": "geval", "criteria": "Is the answer helpful?", "provider": "scripted"}


def test_one_id_for_two_texts_in_score_many_is_refused(isolated_env: Path) -> None:
    out = isolated_env / "judged"
    with debate_eval.Judge(**JUDGE, record_to=out) as judge:
        with pytest.raises(UserError) as refused:
            judge.score_many([{"output": "dup", "id": "z"}, {"output": "dup2", "id": "z"}])
        message = str(refused.value)
        assert "\n" not in message and "rows 1 and 2" in message and "'z'" in message
        assert not (out / "results.jsonl").exists() or (out / "results.jsonl").read_text() == ""  # nothing judged
        same = judge.score_many([{"output": "same", "id": "y"}, {"output": "same", "id": "y"}])  # one text: fine
        assert [j.id for j in same] == ["y", "y"] and same[0].score == same[1].score


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda judge: judge.score("bad \ud800 text"), "output"),
        (lambda judge: judge.score("fine", source="src \udfff"), "source"),
        (lambda judge: judge.compare("a \ud83d", "b"), "output_a"),
    ],
)
def test_a_lone_surrogate_is_refused_naming_the_input(isolated_env: Path, call, name: str) -> None:
    with debate_eval.Judge(**JUDGE) as judge, pytest.raises(UserError) as refused:
        call(judge)
    assert f": {name} is not valid text: a lone surrogate" in str(refused.value)


@pytest.mark.parametrize("output", ["", "  \n"])
def test_an_empty_output_is_refused_as_run_refuses_an_empty_cell(isolated_env: Path, output: str) -> None:
    with debate_eval.Judge(**JUDGE) as judge, pytest.raises(UserError) as refused:
        judge.score(output)
    assert str(refused.value).startswith("Judge.score: output is ")
    rows = isolated_env / "rows.jsonl"
    rows.write_text(json.dumps({"source": "The text.", "output": output}) + "\n", encoding="utf-8")
    with pytest.raises(UserError) as run_refused:
        debate_eval.evaluate(str(rows), aspect="helpfulness", criteria="Is the answer helpful?", provider="scripted")
    assert 'column "output"' in str(run_refused.value)


def test_score_many_checks_every_row_before_the_first_call(isolated_env: Path) -> None:
    out = isolated_env / "judged"
    rows = [{"output": f"Answer {i}.", "id": f"r{i}"} for i in range(6)]
    rows[2] = {"output": "  ", "id": "blank"}
    with debate_eval.Judge(**JUDGE, record_to=out) as judge:
        with pytest.raises(UserError) as refused:
            judge.score_many(rows, concurrency=2)  # was: rows 1 and 2 judged, then "Judge.score: output is ..."
        assert (
            str(refused.value)
            == "score_many: row 3 (counted from 1): output is whitespace-only text: give the text to judge"
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(UserError, match=r"^score_many: row 2 \(counted from 1\): expected a text or"):
                judge.score_many(["fine", 5])
            gc.collect()
        assert not [w for w in caught if "never awaited" in str(w.message)]  # row 1's call was made, not run
    assert not (out / "results.jsonl").exists() or (out / "results.jsonl").read_text() == ""


@pytest.mark.parametrize(
    ("rows", "concurrency", "message"),
    [
        ({"output": "a mapping"}, 8, "rows is one mapping, not a list of them"),  # was: its key 'output' judged
        (None, 8, "rows must be a list of texts or mappings, got NoneType"),  # was: TypeError
        (["a"], "2", "concurrency='2': give a whole number, 1 or more"),  # was: TypeError
        (["a"], 0, "concurrency=0: give a whole number, 1 or more"),
    ],
)
def test_score_many_refuses_what_is_not_rows(isolated_env: Path, rows, concurrency, message: str) -> None:
    with debate_eval.Judge(**JUDGE) as judge, pytest.raises(UserError) as refused:
        judge.score_many(rows, concurrency=concurrency)
    assert str(refused.value).startswith(f"score_many: {message}")


@pytest.mark.parametrize("scale", [(1, 2, 3), ("a", "b")])
def test_a_scale_that_is_not_two_numbers_is_refused_as_evaluate_refuses_it(isolated_env: Path, scale) -> None:
    expected = f'scale: expected a scale such as "1-5" or (1, 5), got {scale!r}'
    with pytest.raises(UserError) as refused:  # was: (1, 2, 3) taken as 1-2, ("a", "b") a ValueError
        debate_eval.Judge(**JUDGE, scale=scale)
    assert str(refused.value) == f"Judge(): {expected}"
    with pytest.raises(UserError) as run_refused:
        debate_eval.evaluate(
            [{"source": "s", "output": "o"}], aspect="a", criteria="c", provider="scripted", scale=scale
        )
    assert str(run_refused.value).endswith(expected)


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"record_to": 5}, "Judge(): record_to: expected a path, got 5"),  # were TypeErrors
        ({"template": 5, "criteria": None}, "Judge(): template: expected a path, got 5"),
        ({"config": 5}, "Judge(): config: expected a path, got 5"),
        ({"roles": 5}, "Judge(): role_model: expected a mapping of names to values, got 5"),
    ],
)
def test_a_keyword_of_the_wrong_type_is_refused_in_one_line(isolated_env: Path, keywords, message: str) -> None:
    with pytest.raises(UserError) as refused:
        debate_eval.Judge(**{**JUDGE, **keywords})
    assert str(refused.value) == message


def test_roles_as_text_are_read_as_the_role_model_flag_reads_them(isolated_env: Path) -> None:
    models = []
    for roles in ("critic=other-critic", {"critic": "other-critic"}):
        out = isolated_env / f"judged-{len(models)}"
        with debate_eval.Judge(**{**JUDGE, "method": "debate"}, roles=roles, record_to=out) as judge:
            judge.score("An answer.")  # was: a ValueError for the text
        roles_used = json.loads((out / "config.json").read_text(encoding="utf-8"))["models"]["roles"]
        models.append({role: settings["model"] for role, settings in roles_used.items()})
    assert models[0] == models[1] and models[0]["critic"] == "other-critic" != models[0]["scorer"]


@pytest.mark.parametrize(
    ("item_id", "problem"),
    [("", "id is empty"), ("  ", "id is whitespace-only text"), (["x"], "id must be text, got list")],
)
def test_an_id_run_would_refuse_is_refused_and_the_directory_stays_readable(
    isolated_env: Path, item_id, problem: str
) -> None:
    out = isolated_env / "judged"
    with debate_eval.Judge(**JUDGE, record_to=out) as judge:
        judge.score("A first answer.", id="kept")
        with pytest.raises(UserError, match=f"^Judge.score: {problem}"):
            judge.score("An answer.", id=item_id)  # was: a line with item_id "" that no reader accepts
        with pytest.raises(UserError, match=f"^Judge.compare: {problem}"):
            judge.compare("Yes.", "No.", id=item_id)
        with pytest.raises(UserError, match=rf"^score_many: row 1 \(counted from 1\): {problem}"):
            judge.score_many([{"output": "An answer.", "id": item_id}])
    assert [r.item_id for r in debate_eval.load_run(out).records] == ["kept"]
    rows = isolated_env / "rows.jsonl"
    rows.write_text(json.dumps({"source": "The text.", "output": "An answer.", "id": item_id}) + "\n", encoding="utf-8")
    with pytest.raises(UserError, match='column "id"'):  # as run refuses such a cell
        debate_eval.evaluate(str(rows), aspect="helpfulness", criteria="Is the answer helpful?", provider="scripted")
