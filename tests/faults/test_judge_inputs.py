"""``Judge``'s odd inputs get one line, as ``run``'s do: one id given to two texts in ``score_many`` with
``record_to``, a lone surrogate, an empty output (``run`` refuses an empty cell too)."""

from __future__ import annotations

import json
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
