"""A pairwise outcome built from its verdict: no score, the verdict's value and its parse kept whole."""

from __future__ import annotations

from debate_eval.debates.evaluation import NO_SCORE, Outcome
from debate_eval.debates.scoring.verdicts import no_verdict, parse_verdict


def test_a_pairwise_outcome_carries_its_verdict_and_no_score() -> None:
    parsed = parse_verdict("Both are fine, but the first is clearer. [[A]]")
    outcome = Outcome.for_verdict(parsed, decided_by="Evaluator", stop_reason="single_answer", transcript=[], calls=[])
    assert (outcome.score, outcome.parse) == (None, NO_SCORE)
    assert (outcome.verdict, outcome.verdict_parse) == ("first", parsed)
    assert (outcome.decided_by, outcome.stop_reason, outcome.rounds) == ("Evaluator", "single_answer", 0)


def test_a_missing_verdict_stays_missing() -> None:
    outcome = Outcome.for_verdict(
        no_verdict("no [[A]], [[B]] or [[C]]"), decided_by="x", stop_reason="y", transcript=[], calls=[]
    )
    assert outcome.verdict is None and outcome.verdict_parse is not None and not outcome.verdict_parse.ok
