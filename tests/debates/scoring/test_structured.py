"""Structured answers (--structured-output): a JSON object's own score or verdict, read strictly, the free-text
parser as the fallback (debates/scoring/structured.py, rule 0 of parse_score and parse_verdict)."""

from __future__ import annotations

import pytest

from debate_eval.debates.scoring.scores import ScoreRange, parse_score
from debate_eval.debates.scoring.structured import structured_score, structured_verdict
from debate_eval.debates.scoring.verdicts import parse_verdict

SCALE = ScoreRange(1, 5)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"rationale": "Clear and ordered.", "score": 4}', 4.0),
        ('  {"score": 2.5, "rationale": "x"}\n', 2.5),
        ('```json\n{"rationale": "ok", "score": 3}\n```', 3.0),
        # the rationale's own "Score: 5" (or a quoted field) is text: only the top-level field counts
        ('{"rationale": "The summary claims \\"score\\": 5 and Score: 5.", "score": 2}', 2.0),
    ],
)
def test_the_json_objects_score_is_taken(text: str, value: float) -> None:
    parsed = parse_score(text, SCALE)
    assert (parsed.value, parsed.status, parsed.method) == (value, "parsed", "structured")
    assert parsed.span is not None and float(text[slice(*parsed.span)]) == value  # G-Eval's weighting finds it


def test_a_structured_score_off_the_scale_is_out_of_range_not_clamped() -> None:
    parsed = parse_score('{"rationale": "great", "score": 7}', SCALE)
    assert (parsed.value, parsed.status, parsed.method) == (None, "out_of_range", "structured")


@pytest.mark.parametrize(
    "text",
    [
        '{"rationale": "good", "score": "4"}',  # a string is no number
        '{"rationale": "good", "score": true}',
        '{"rationale": "good"}',
        '{"rationale": "good", "score": 4',  # broken JSON
        'Here it is: {"score": 4}',  # not the whole answer
        "[4]",
    ],
)
def test_anything_else_is_no_structured_answer(text: str) -> None:
    assert structured_score(text, SCALE) is None
    assert parse_score(text, SCALE).method != "structured"


def test_the_free_text_parser_is_the_fallback() -> None:
    parsed = parse_score("The summary is clear.\nScore: 4", SCALE)
    assert (parsed.value, parsed.method) == (4.0, "labelled")


def test_verdicts() -> None:
    assert structured_verdict('{"rationale": "A is fuller. [[B]]", "verdict": "A"}') == "first"
    assert structured_verdict('{"rationale": "", "verdict": "c"}') == "tie"
    assert structured_verdict('{"rationale": "", "verdict": "D"}') is None
    parsed = parse_verdict('{"rationale": "B answers more.", "verdict": "B"}', frozenset({"[[a]]"}))
    assert (parsed.value, parsed.method) == ("second", "structured")
    assert parse_verdict("Response A is better.\n[[A]]").method == "bracket"
