"""Every judgment's confidence: each method's rule on hand-built records (the expected values counted by hand),
``--swap``'s order check, the record field (old lines without it still read, a bad value refused), and runs of
every method on the scripted provider writing it where ``show``, ``Judge`` and the report read it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import debate_eval
from debate_eval import Record
from debate_eval.agents.errors import UserError
from debate_eval.debates.base import get_method
from debate_eval.debates.kit.confidence import BASIS_KEY, Confidence, agreement, record_confidence, with_confidence
from debate_eval.tasks.cli.main import main

BASE = {"item_id": "x", "dataset": "d", "aspect": "a"}


def record(**fields: object) -> Record:
    return Record.from_json({**BASE, **fields})


def test_agreement_is_the_share_of_the_most_common_answer() -> None:
    assert agreement([3.0, 3.0, 4.0, 3.0, None], "samples") == Confidence(3 / 5, "3 of 5 samples agree (3.0)")
    assert agreement([None, None], "referees") == Confidence(0.0, "no referees gave an answer")
    assert agreement([], "branches") is None
    with pytest.raises(ValueError):
        Confidence(1.5, "too sure")


def test_debate_confidence_follows_the_course() -> None:
    debate = get_method("debate")
    at_once = record(score=4, agreed=True, rounds=1, stop_reason="agreed")
    second = record(score=4, agreed=True, rounds=2, stop_reason="agreed")
    objected = record(score=4, agreed=False, rounds=2, stop_reason="max_rounds")
    tiebreak = record(score=4, agreed=False, rounds=3, stop_reason="tiebreaker")
    assert debate.confidence(at_once) == Confidence(1.0, "the Critic agreed at once")
    assert debate.confidence(second).value == 0.5
    assert debate.confidence(objected).value == 0.0
    assert "Tie-breaker" in debate.confidence(tiebreak).basis
    assert debate.confidence(record(score=4, rounds=0)) is None


def test_geval_probabilities_and_samples() -> None:
    geval = get_method("geval")
    weighted = record(score=3.4, details={"method": "logprob_weighted", "probabilities": {"3": 0.6, "4": 0.4}})
    assert geval.confidence(weighted).value == pytest.approx(0.6)
    answers = [{"agent": "Evaluator", "score": {"value": v, "status": "parsed"}} for v in (2, 3, 3, 3)]
    answers.append({"agent": "Evaluator", "score": {"value": None, "status": "no_score"}})
    sampled = record(score=2.75, decided_by="Evaluator", details={"method": "sample_mean"}, transcript=answers)
    assert geval.confidence(sampled).value == pytest.approx(3 / 5)  # 3 of 5 answers say 3; one has no score
    assert geval.confidence(record(score=3, details={"method": "parsed"})) is None


def test_panels_samples_and_branches_agreement() -> None:
    referees = record(score=4, details={"final_scores": {"A": 4.0, "B": 4.0, "C": 2.0}})
    assert get_method("chateval").confidence(referees).value == pytest.approx(2 / 3)
    votes = {"final_verdicts": {"A": "first", "B": "second", "C": "first", "D": "first"}}
    pair = record(task_type="pairwise", verdict="first", details=votes)
    assert get_method("chateval").confidence(pair).value == pytest.approx(3 / 4)
    branches = [{"score": {"value": v, "status": "parsed"}} for v in (3, 3, 5)]
    assert get_method("fennec").confidence(record(score=3.7, details={"tree": branches})).value == pytest.approx(2 / 3)
    results = [{"parse": {"value": v, "status": "parsed"}} for v in (4, 4, 4, 5)]
    samples = record(score=4.25, details={"sample_results": results})
    assert get_method("self-consistency").confidence(samples).value == pytest.approx(3 / 4)


def test_swap_disagreement_is_zero_and_agreement_keeps_the_less_sure_order() -> None:
    geval = get_method("geval")
    orders = {
        "original": {"verdict": "first", "details": {}},
        "swapped": {"verdict": "second", "details": {}},
    }
    torn = record(task_type="pairwise", verdict="tie", consistent=False, details={"orders": orders})
    assert record_confidence(geval, torn) == Confidence(0.0, "--swap: the two orders disagree")
    agreed_orders = {"original": {"verdict": "first", "details": {}}, "swapped": {"verdict": "first", "details": {}}}
    agreed = record(task_type="pairwise", verdict="first", consistent=True, details={"orders": agreed_orders})
    assert record_confidence(geval, agreed).value == 1.0  # G-Eval's one answer gives none: the orders' agreement
    panels = {
        "original": {"verdict": "first", "details": {"final_verdicts": {"A": "first", "B": "first"}}},
        "swapped": {"verdict": "first", "details": {"final_verdicts": {"A": "first", "B": "second"}}},
    }
    panel = record(task_type="pairwise", verdict="first", consistent=True, details={"orders": panels})
    assert record_confidence(get_method("chateval"), panel).value == 0.5  # min(2/2, 1/2)


def test_the_record_field_is_optional_checked_and_round_trips() -> None:
    old = record(score=3)  # a line written before confidences
    assert old.confidence is None and "confidence" not in old.to_json()
    new = with_confidence(get_method("debate"), record(score=3, agreed=True, rounds=1, details={}))
    assert new.confidence == 1.0 and new.details[BASIS_KEY] == "the Critic agreed at once"
    again = Record.from_json(json.loads(json.dumps(new.to_json())))
    assert again.confidence == 1.0 and again.row()["confidence"] == 1.0
    with pytest.raises(UserError, match=r"results.jsonl: line 4 \(counted from 1\): confidence must be"):
        Record.from_json({**BASE, "confidence": 1.2}, path="results.jsonl", line=4)


@pytest.mark.parametrize("method", ["debate", "geval", "chateval", "fennec", "self-consistency"])
def test_scripted_runs_write_a_confidence_that_show_prints(
    method: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / method
    argv = ["run", "--dataset", "summeval", "--aspect", "coherence", "--method", method, "--provider", "scripted"]
    assert main([*argv, "--limit", "2", "--out", str(out), "--no-progress"]) == 0
    records = debate_eval.load_run(out).records
    assert records and all(r.confidence is not None and 0 <= r.confidence <= 1 for r in records)
    assert all(r.details[BASIS_KEY] for r in records)
    capsys.readouterr()
    assert main(["show", str(out), "--item", "1"]) == 0
    assert f"confidence {records[0].confidence:.2f}" in capsys.readouterr().out


def test_judge_returns_the_confidence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with debate_eval.Judge(method="self-consistency", criteria="Is it clear?", provider="scripted") as judge:
        judgment = judge.score("The cat sat on the mat.")
    assert judgment.confidence is not None and 0 <= judgment.confidence <= 1


def test_rescore_adds_the_confidence_to_a_run_made_before_it(tmp_path: Path) -> None:
    import shutil

    fixture = Path(__file__).parents[2] / "tasks" / "engine" / "fixtures" / "run-0.1.0" / "debate"
    run = tmp_path / "old"
    shutil.copytree(fixture, run)
    before = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]
    assert all("confidence" not in line for line in before)
    assert main(["rescore", str(run / "results.jsonl")]) == 0
    for old, record in zip(before, debate_eval.load_run(run).records, strict=True):
        expected = 1 / old["rounds"] if old["agreed"] else 0.0  # the debate's rule, from the stored course
        assert record.confidence == pytest.approx(expected)
