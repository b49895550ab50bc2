"""Importers of published judge outputs, on small files of the released shapes (written here)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from analysis_factories import spearman

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.analysis.imports import debate_authors, geval, jsonl, pandalm
from debate_eval.tasks.analysis.meta_eval import meta_evaluate

DOC = "dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2"
SYSTEMS = ["M11", "M13", "M1", "M14", "M15"]  # the first five SummEval rows
HUMAN_COHERENCE = [4 / 3, 7 / 3, 7 / 3, 5 / 3, 10 / 3]
CON_PROMPT = "Evaluation Criteria:\n\nConsistency (1-5) - the factual alignment between the summary and the source."
FLU_PROMPT = "Evaluation Criteria:\n\nFluency (1-3): the quality of the summary in terms of grammar."
COH_PROMPT = "Evaluation Criteria:\n\nCoherence (1-5) - the collective quality of all sentences."


@pytest.fixture(autouse=True)
def data(shared_data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEBATE_EVAL_DATA_DIR", str(shared_data_dir))


def summeval_row(system: str, prompt: str, **extra: Any) -> dict[str, Any]:
    return {
        "doc_id": DOC,
        "system_id": system,
        "source": "(article)",
        "reference": "(reference)",
        "system_output": "(summary)",
        "scores": {"coherence": 1.0},
        "prompt": prompt,
        **extra,
    }


def write(path: Path, rows: Any) -> Path:
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def test_debate_authors_answer_field_aspect_and_scale_from_the_file(tmp_path: Path) -> None:
    # their consistency files keep the answer under "coherence"; the prompt says what was judged
    answers = ["- Consistency: 1", "- Consistency: 2", "4\n\nThe summary is consistent.", "- Consistency: 2", "5"]
    rows = [summeval_row(s, CON_PROMPT, coherence=a) for s, a in zip(SYSTEMS, answers, strict=True)]
    rows.append(summeval_row("M99", CON_PROMPT, coherence="- Consistency: 3"))  # no such SummEval row
    result, aspect, scale = debate_authors.import_file(write(tmp_path / "con.json", rows), {})
    assert (aspect, str(scale)) == ("consistency", "1-5")
    assert result.unmatched == [f"{DOC}/M99"]
    assert [r["score"] for r in result.records] == [1.0, 2.0, 4.0, 2.0, 5.0]
    assert [r["parse_method"] for r in result.records] == [
        "labelled",
        "labelled",
        "leading_number",
        "labelled",
        "bare_number",
    ]
    first = result.records[0]
    assert (first["dataset"], first["method"], first["human_score"]) == ("summeval", "debate", 1.0)
    assert first["transcript"][0]["content"] == "- Consistency: 1"  # the raw answer is kept
    assert first["imported"] == {
        "format": "debate-authors",
        "file": str(tmp_path / "con.json"),
        "row": 1,
        "answer_field": "coherence",
    }


def test_debate_authors_meta_eval_matches_an_independent_count(tmp_path: Path) -> None:
    predicted = [1.0, 2.0, 3.0, 2.0, 4.0]
    rows = [
        summeval_row(s, COH_PROMPT, coherence=f"- Coherence: {p:g}") for s, p in zip(SYSTEMS, predicted, strict=True)
    ]
    result, _, _ = debate_authors.import_file(write(tmp_path / "coh.json", rows), {})
    entry = meta_evaluate(result.records)["summeval"]["coherence"]
    assert entry.spearman == pytest.approx(spearman(predicted, HUMAN_COHERENCE))
    assert (entry.n_items, entry.n_groups) == (5, 1)


def test_debate_authors_fluency_prompt_scale_and_override(tmp_path: Path) -> None:
    rows = [
        summeval_row("M11", FLU_PROMPT, coherence="- Fluency (1-3): 3"),
        summeval_row("M13", FLU_PROMPT, coherence="Fluency: 5"),
    ]
    path = write(tmp_path / "flu.json", rows)
    result, aspect, scale = debate_authors.import_file(path, {})
    assert (aspect, str(scale)) == ("fluency", "1-3")
    assert [(r["score"], r["parse_status"]) for r in result.records] == [(3.0, "parsed"), (None, "out_of_range")]
    result, _, scale = debate_authors.import_file(path, {"scale": ScoreRange(1, 5)})
    assert str(scale) == "1-5"
    assert [r["score"] for r in result.records] == [3.0, 5.0]


def test_debate_authors_needs_a_clear_answer_field_and_aspect(tmp_path: Path) -> None:
    rows = [summeval_row("M11", "no scale line here", coherence="- Coherence: 3", note="extra text")]
    path = write(tmp_path / "two.json", rows)
    with pytest.raises(UserError, match="--answer-field"):
        debate_authors.import_file(path, {})
    with pytest.raises(UserError, match="--aspect"):
        debate_authors.import_file(path, {"answer_field": "coherence"})
    result, aspect, scale = debate_authors.import_file(path, {"answer_field": "coherence", "aspect": "coherence"})
    assert (aspect, str(scale), result.records[0]["score"]) == ("coherence", "1-5", 3.0)
    with pytest.raises(UserError, match=r"row 1 \(counted from 1\)"):
        debate_authors.import_file(
            write(tmp_path / "bad.json", [{"doc_id": DOC, "coherence": "3"}]), {"aspect": "coherence"}
        )
    with pytest.raises(UserError, match="not valid JSON"):
        (tmp_path / "broken.json").write_text("[{", encoding="utf-8")
        debate_authors.import_file(tmp_path / "broken.json", {})


def test_geval_sample_mean_reports_the_samples(tmp_path: Path) -> None:
    samples = ["4"] * 9 + ["3\n\nThe summary"] * 9 + ["I cannot", ""]
    rows = [
        summeval_row("M11", CON_PROMPT, all_responses=samples),
        summeval_row("M13", CON_PROMPT, all_responses=["x"] * 20),
    ]
    result, aspect, _ = geval.import_file(write(tmp_path / "gpt4_con_detailed.json", rows), {})
    assert aspect == "consistency"
    first, second = result.records
    assert first["score"] == pytest.approx(3.5)  # mean of the 18 parsed samples, the 2 others left out (not 0)
    assert "18/20 parsed" in first["parse_reason"]
    assert (first["parse_status"], first["parse_method"]) == ("parsed", "sample_mean")
    assert (first["details"]["samples"], first["details"]["parsed_samples"]) == (20, 18)
    assert len(first["transcript"]) == 20
    assert (second["score"], second["parse_status"]) == (None, "no_score")
    assert "0/20 parsed" in second["parse_reason"]


def test_geval_aspect_from_the_file_name(tmp_path: Path) -> None:
    rows = [summeval_row("M11", "no scale here", all_responses=["2", "3"])]
    result, aspect, scale = geval.import_file(write(tmp_path / "gpt4_rel_detailed.json", rows), {})
    assert (aspect, str(scale), result.records[0]["score"]) == ("relevance", "1-5", 2.5)


def test_jsonl_single_and_pairwise(tmp_path: Path, dataset_path: Callable[[str], Path]) -> None:
    lines = [{"qid": f"{DOC}/M11", "answer": "Coherence: 2"}, {"qid": "nope", "answer": "3"}]
    path = tmp_path / "mine.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n\n", encoding="utf-8")
    options = {"dataset": "summeval", "aspect": "coherence", "fields": "id=qid,text=answer"}
    result, aspect, _ = jsonl.import_file(path, options)
    assert [r["score"] for r in result.records] == [2.0]
    assert result.unmatched == ["nope"]
    assert result.records[0]["method"] == "geval"
    dataset_path("pandalm")  # the pairwise half needs PandaLM, which does not ship: skips with the reason
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps({"id": "0", "text": "Response 2 is better.\n\nVerdict: [[B]]"})
        + "\n"
        + json.dumps({"id": 1, "text": "Both fine."})
        + "\n",
        encoding="utf-8",
    )
    result, aspect, scale = jsonl.import_file(pairs, {"dataset": "pandalm"})
    assert (aspect, scale) == ("preference", None)
    assert [(r["verdict"], r["human_label"]) for r in result.records] == [("second", "second"), (None, "first")]
    assert result.records[0]["task_type"] == "pairwise"
    with pytest.raises(UserError, match="--fields"):
        jsonl.import_file(pairs, {"dataset": "pandalm", "fields": "id=id,answer"})
    with pytest.raises(UserError, match="line 1"):
        jsonl.import_file(pairs, {"dataset": "pandalm", "fields": "text=missing"})
    with pytest.raises(UserError, match="--aspect"):
        jsonl.import_file(path, {"dataset": "summeval", "fields": "id=qid,text=answer"})


def test_pandalm_codes_join_and_metrics(tmp_path: Path, dataset_path: Callable[[str], Path]) -> None:
    dataset_path("pandalm")  # does not ship with the package: skips with the reason outside the CI layout
    rows = [
        {"idx": "0", "gpt_result": "2", "gpt_reason": "Response 2 is more concise."},  # human: second
        {"idx": "1", "gpt_result": "1", "gpt_reason": "..."},  # human: first
        {"idx": "2", "gpt_result": "Tie", "gpt_reason": "..."},  # human: second
        {"idx": "3", "gpt_result": "garbage"},  # human: first -> no verdict
        {"idx": 4, "gpt_result": "0"},
        {"idx": "99999", "gpt_result": "1"},
    ]
    result, aspect, _ = pandalm.import_file(write(tmp_path / "gpt.json", rows), {})
    assert result.unmatched == ["99999"]
    assert [r["verdict"] for r in result.records] == ["second", "first", "tie", None, "tie"]
    assert result.records[3]["parse_status"] == "no_verdict"
    assert result.records[0]["details"]["raw"]["gpt_reason"] == "Response 2 is more concise."
    entry = meta_evaluate(result.records)["pandalm"][aspect]
    human = [r["human_label"] for r in result.records]
    scored = [(r["verdict"], h) for r, h in zip(result.records, human, strict=True) if r["verdict"] is not None]
    assert entry.accuracy == pytest.approx(sum(v == h for v, h in scored) / len(scored))
    assert (entry.n_items, entry.n_missing) == (5, 1)
    own = [{"idx": "0", "pandalm_result": 2}, {"idx": "1", "pandalm_result": 7}]
    result, _, _ = pandalm.import_file(write(tmp_path / "own.json", own), {})
    assert [r["verdict"] for r in result.records] == ["second", None]
