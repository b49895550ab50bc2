"""``evaluate`` on outputs without human ratings: a DataFrame, a ``datasets.Dataset``, a Parquet file and a
pairwise list of dicts are judged as any run; meta-evaluating them raises the command's one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import debate_eval
from debate_eval import UserError

from .conftest import SCRIPTED

UNLABELLED = {
    "aspect": "quality",
    "fields": {"source": "doc", "output": "summ"},
    "criteria": "Faithful?",
    "scale": "1-5",
}
NO_HUMAN = "no human ratings in its 4 record(s): nothing to meta-evaluate"


def _rows() -> list[dict[str, object]]:
    return [{"doc": f"Article {i}: the council approved the budget.", "summ": f"Summary {i}."} for i in range(4)]


def _check_scored(run: debate_eval.Run) -> None:
    frame = run.to_pandas()
    assert len(frame) == 4 and frame["score"].notna().all() and frame["human_score"].isna().all()
    assert run.transcript(run.records[0].item_id)
    with pytest.raises(UserError, match=re.escape(NO_HUMAN)):
        run.meta_evaluate()
    with pytest.raises(UserError, match=re.escape(NO_HUMAN)):
        debate_eval.assert_judge_meets(run, spearman=0.0)


def test_a_data_frame_without_ratings(api_env: Path) -> None:
    pandas = pytest.importorskip("pandas")
    run = debate_eval.evaluate(pandas.DataFrame(_rows()), method="geval", out="frame", **UNLABELLED, **SCRIPTED)
    _check_scored(run)
    again = debate_eval.evaluate(pandas.DataFrame(_rows()), method="geval", out="frame", **UNLABELLED, **SCRIPTED)
    assert again.summary["this_invocation"]["already_done"] == 4 and again.summary["this_invocation"]["llm_calls"] == 0


def test_a_hugging_face_dataset_and_a_parquet_file_without_ratings(api_env: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="the [hf] extra")
    _check_scored(debate_eval.evaluate(datasets.Dataset.from_list(_rows()), out="hf", **UNLABELLED, **SCRIPTED))
    pandas = pytest.importorskip("pandas")
    pandas.DataFrame(_rows()).to_parquet(api_env / "outputs.parquet")
    _check_scored(debate_eval.evaluate("outputs.parquet", method="geval", out="pq", **UNLABELLED, **SCRIPTED))


def test_pairwise_rows_without_labels(api_env: Path) -> None:
    rows = [{"question": f"Question {i}?", "output_a": f"A{i}.", "output_b": f"B{i}."} for i in range(4)]
    fields = {"question": "question", "output_a": "output_a", "output_b": "output_b"}
    run = debate_eval.evaluate(rows, aspect="preference", fields=fields, method="geval", out="pairs", **SCRIPTED)
    assert [r.verdict in ("first", "second", "tie") for r in run.records] == [True] * 4
    assert all(r.human_label is None for r in run.records)
    with pytest.raises(UserError, match=re.escape(NO_HUMAN)):
        debate_eval.meta_evaluate(run)
    page = run.report(api_env / "pairs.html")
    assert "No human ratings in this run" in page.read_text(encoding="utf-8")
