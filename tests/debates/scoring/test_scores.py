"""Table-driven tests for the score parser: strict, per-turn and lenient rules, range checks, no score."""

from __future__ import annotations

import json

import pytest

from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange, parse_score

LIKERT = ScoreRange(1, 5)
GEVAL_FLUENCY = ScoreRange(1, 3)
BINARY = ScoreRange(0, 1)

GPT4_RATIONALE = """Evaluation Steps:
1. Read the news article carefully and identify the main topic and key points.
2. Read the summary and compare it to the article, on a scale of 1 to 5.
3. Assign a score for coherence on a 1-5 scale (1-5), where 1 is the lowest and 5 is the highest.

The article, published on April 3, 2015, describes 3 incidents and quotes two officials. The summary
has 3 sentences; the first two follow the order of the article, but sentence 3 jumps back to an event
from 2014 without a transition. About 20% of the content is repeated, and there are 2 errors in names.

Overall the summary is well structured from sentence to sentence, with one weak link.

Coherence: 4"""

REVISED_RATIONALE = """Thank you for the critique. The score of 2 seems low given that the summary covers
the main points; the critic is right that I over-penalised the ordering in step 3.

Having reconsidered (the scale is 1 to 5), I revise my assessment.

Final score: 4"""

G_EVAL_FLUENCY = """- Fluency (1-3): the quality of the summary in terms of grammar, spelling and punctuation.

Fluency (1-3): 2"""

DIALOGUE_PER_TURN = """Here are my scores for each response of the dialogue:
Turn 1: 3
Turn 2: 2
Turn 3: 3
Turn 4: 4"""

NUMBERS_ONLY_MID_RATIONALE = """The summary has 3 sentences and mentions 2 of the 5 people in the article.
It was published in April 2015.

I cannot tell whether it is coherent without the full article."""

LONG_RATIONALE_THEN_SCORE = """The summary has 3 sentences and covers 2 of the 4 key points. A score of 5 would
require all of them, and the previous score of 2 ignored how well the events are ordered. I would not
give it a 1 either.

Score: 3"""

CASES = [
    # --- labelled (strict) ---
    ("Score: 4", LIKERT, None, 4.0, "parsed", "labelled"),
    ("The summary reads well. score of 4", LIKERT, None, 4.0, "parsed", "labelled"),
    ("**Coherence: 3**", LIKERT, "coherence", 3.0, "parsed", "labelled"),
    ("**Coherence:** 3", LIKERT, "coherence", 3.0, "parsed", "labelled"),
    ("_Coherence_: 2", LIKERT, "coherence", 2.0, "parsed", "labelled"),
    ("Coherence - 4", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("Coherence – 4", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("- Coherence: 4", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("COHERENCE: 5", LIKERT, "coherence", 5.0, "parsed", "labelled"),
    ("Fluency (1-3): 2", GEVAL_FLUENCY, "fluency", 2.0, "parsed", "labelled"),
    (G_EVAL_FLUENCY, GEVAL_FLUENCY, "fluency", 2.0, "parsed", "labelled"),
    ("Final score: 3.5", LIKERT, None, 3.5, "parsed", "labelled"),
    ("Rating: 4", LIKERT, None, 4.0, "parsed", "labelled"),
    ("Overall: 2", LIKERT, None, 2.0, "parsed", "labelled"),
    ("The score is 4.", LIKERT, None, 4.0, "parsed", "labelled"),
    ("Coherence: 4/5", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("Coherence score: 3 out of 5", LIKERT, "coherence", 3.0, "parsed", "labelled"),
    ("Topical relevance: 3", LIKERT, "topical_relevance", 3.0, "parsed", "labelled"),
    ("Score: four", LIKERT, None, 4.0, "parsed", "labelled"),
    (
        "Score: 4\n\nThe summary is concise and keeps the order of events.",
        LIKERT,
        None,
        4.0,
        "parsed",
        "labelled",
    ),
    (GPT4_RATIONALE, LIKERT, "coherence", 4.0, "parsed", "labelled"),
    # --- last strict match wins ---
    (REVISED_RATIONALE, LIKERT, None, 4.0, "parsed", "labelled"),
    ("Initial score: 2\nAfter the critique, revised score: 3", LIKERT, None, 3.0, "parsed", "labelled"),
    ("Coherence: 2 in my first pass.\nCoherence: 5", LIKERT, "coherence", 5.0, "parsed", "labelled"),
    # --- hypotheticals, comparisons and negations are set aside; verdict lines win (audit) ---
    ("Score: 4\n\nNote: a score of 5 would require…", LIKERT, None, 4.0, "parsed", "labelled"),
    ("Score: 4. The previous score of 2 was too harsh.", LIKERT, None, 4.0, "parsed", "labelled"),
    ("Score: 3\n\nI would give it a 4 if it were shorter.", LIKERT, None, 3.0, "parsed", "labelled"),
    (
        "Groundedness: 1 (yes)\n\nscore 0 would mean the fact is unused.",
        BINARY,
        "groundedness",
        1.0,
        "parsed",
        "labelled",
    ),
    ("Rating: 3/5 (vs. 4/5 by the Scorer)", LIKERT, None, 3.0, "parsed", "labelled"),
    ("Rating = 4/5; previous rating = 3/5", LIKERT, None, 4.0, "parsed", "labelled"),
    ("Score: 4\n\n…would be rated 2 by a strict judge… no, I keep 4.", LIKERT, None, 4.0, "parsed", "labelled"),
    ("I would not give it a 5; a 3 is more fitting.", LIKERT, None, 3.0, "parsed", "last_number"),
    ("Coherence: 1. The summary… Final: 4", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("Coherence: 1. The summary… Final score: 4", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("Coherence: 1. The summary… Answer: 4", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("Score: 4, not 5", LIKERT, None, 4.0, "parsed", "labelled"),
    ("Coherence: 4\n\n(the earlier judge's rating: 2)", LIKERT, "coherence", 4.0, "parsed", "labelled"),
    ("I think a score of 4 would be fair.", LIKERT, None, 4.0, "parsed", "labelled"),
    ("I would not hesitate to give it a 5.", LIKERT, None, 5.0, "parsed", "rate_phrase"),
    # --- a revision still wins: the final verdict, also after a long rationale with other numbers ---
    (
        "Initially I'd say 3, since the ending is abrupt.\n\nAfter reconsidering, Score: 4",
        LIKERT,
        None,
        4.0,
        "parsed",
        "labelled",
    ),
    (
        "Initially I'd rate it 3.\n\nAfter reconsidering the critique, I'd rate it 4.",
        LIKERT,
        None,
        4.0,
        "parsed",
        "rate_phrase",
    ),
    (
        "Score: 3\n\nThe critic is right about the ordering.\n\nRevised score: 4",
        LIKERT,
        None,
        4.0,
        "parsed",
        "labelled",
    ),
    ("Score: 3\n\nOn reflection, I'd rate it 4.", LIKERT, None, 4.0, "parsed", "rate_phrase"),
    (LONG_RATIONALE_THEN_SCORE, LIKERT, None, 3.0, "parsed", "labelled"),
    # --- signs, decimal commas, ambiguity ---
    ("My score: -1", LIKERT, None, None, "out_of_range", "labelled"),
    ("Groundedness: -1", BINARY, "groundedness", None, "out_of_range", "labelled"),
    ("-1", LIKERT, None, None, "out_of_range", "bare_number"),
    ("Score: 4,5", LIKERT, None, 4.5, "parsed", "labelled"),
    ("Coherence: 3,5", LIKERT, "coherence", 3.5, "parsed", "labelled"),
    ("Scores: 3,4,5", LIKERT, None, None, "no_score", "none"),
    ("Score: 3 or 4", LIKERT, None, None, "no_score", "none"),
    # --- fractions, out of, rate phrases ---
    ("4/5", LIKERT, None, 4.0, "parsed", "fraction"),
    ("The summary deserves 4 / 5.", LIKERT, None, 4.0, "parsed", "fraction"),
    ("The summary deserves 4/5. It is concise.", LIKERT, None, 4.0, "parsed", "fraction"),
    ("It earns 4 out of 5.", LIKERT, None, 4.0, "parsed", "out_of"),
    ("I would rate this a 2 out of 5", LIKERT, None, 2.0, "parsed", "rate_phrase"),
    ("I would give it a 3", LIKERT, None, 3.0, "parsed", "rate_phrase"),
    ("I rate the coherence as 4", LIKERT, "coherence", 4.0, "parsed", "rate_phrase"),
    ("I'd rate it 4/5.", LIKERT, None, 4.0, "parsed", "rate_phrase"),
    # --- per-turn lists (DialEvalML) ---
    (DIALOGUE_PER_TURN, LIKERT, None, 3.0, "parsed", "per_turn_average"),
    ("Response 1: 3\nResponse 2: 2", LIKERT, None, 2.5, "parsed", "per_turn_average"),
    ("Turn 1: 3/5\nTurn 2: 4/5", LIKERT, None, 3.5, "parsed", "per_turn_average"),
    ("Turn 1: 3\nTurn 2: 2\nOverall score: 4", LIKERT, None, 4.0, "parsed", "labelled"),
    ("Turn 1: 3\nTurn 2: 9", LIKERT, None, None, "out_of_range", "per_turn_average"),
    # --- lenient ---
    ("3", LIKERT, None, 3.0, "parsed", "bare_number"),
    (" 4.5 ", LIKERT, None, 4.5, "parsed", "bare_number"),
    ("3.", LIKERT, None, 3.0, "parsed", "bare_number"),
    ("**3**", LIKERT, None, 3.0, "parsed", "bare_number"),
    ("3.5", LIKERT, None, 3.5, "parsed", "bare_number"),
    ("7", LIKERT, None, None, "out_of_range", "bare_number"),
    ("Fluency (1-3): 2", GEVAL_FLUENCY, None, 2.0, "parsed", "last_number"),
    (GPT4_RATIONALE, LIKERT, None, 4.0, "parsed", "last_number"),
    (
        "The summary has 3 sentences.\nOverall I'd say it deserves a 4.",
        LIKERT,
        None,
        4.0,
        "parsed",
        "last_number",
    ),
    ("It is between a 2 and a 3.", LIKERT, None, None, "no_score", "none"),
    (NUMBERS_ONLY_MID_RATIONALE, LIKERT, None, None, "no_score", "none"),
    # --- out of range: reported, never clamped ---
    ("Score: 7", LIKERT, None, None, "out_of_range", "labelled"),
    ("Score: 0", LIKERT, None, None, "out_of_range", "labelled"),
    ("Groundedness: 2", BINARY, "groundedness", None, "out_of_range", "labelled"),
    ("Score: 8/10", LIKERT, None, None, "out_of_range", "labelled"),
    # --- 0-1 scale: zero is a real score ---
    ("Groundedness: 0", BINARY, "groundedness", 0.0, "parsed", "labelled"),
    ("Groundedness: 1", BINARY, "groundedness", 1.0, "parsed", "labelled"),
    ("0", BINARY, None, 0.0, "parsed", "bare_number"),
    ("Score: 0.5", BINARY, None, 0.5, "parsed", "labelled"),
    # --- other numbers are not scores ---
    ("rate on a scale from 1 to 5", LIKERT, None, None, "no_score", "none"),
    ("Please evaluate on a 1-5 scale (1-5), between 1 and 3.", LIKERT, None, None, "no_score", "none"),
    ("Score: 1-5", LIKERT, None, None, "no_score", "none"),
    ("Coherence: one of the weaker aspects here.", LIKERT, "coherence", None, "no_score", "none"),
    ("2 out of 3 sentences are fine", LIKERT, None, None, "no_score", "none"),
    ("Published on 4/5/2015.", LIKERT, None, None, "no_score", "none"),
    ("The article, published 4/5, is summarized well.", LIKERT, None, None, "no_score", "none"),
    ("It was published 4/5", LIKERT, None, None, "no_score", "none"),
    ("About 3% of it is wrong", LIKERT, None, None, "no_score", "none"),
    ("See step 2 in version 1.2.3", LIKERT, None, None, "no_score", "none"),
    ("1. Read the article\n2. Read the summary", LIKERT, None, None, "no_score", "none"),
    ("It was published on April 3", LIKERT, None, None, "no_score", "none"),
    # --- no score at all ---
    ("I cannot evaluate this.", LIKERT, None, None, "no_score", "none"),
    ("", LIKERT, None, None, "no_score", "none"),
    ("   \n  ", LIKERT, None, None, "no_score", "none"),
    ("NO_ISSUES", LIKERT, None, None, "no_score", "none"),
]


@pytest.mark.parametrize(("text", "scale", "aspect", "value", "status", "method"), CASES)
def test_parse_score(
    text: str, scale: ScoreRange, aspect: str | None, value: float | None, status: str, method: str
) -> None:
    result = parse_score(text, scale, aspect)
    assert (result.value, result.status, result.method) == (value, status, method), result.reason
    assert result.ok is (status == "parsed")
    assert result.reason


@pytest.mark.parametrize(
    ("text", "scale", "aspect", "needle"),
    [
        ("Score: 7", LIKERT, None, "7"),
        ("Score: 7", LIKERT, None, "1-5"),
        ("Groundedness: 2", BINARY, "groundedness", "0-1"),
        ("**Coherence: 3**", LIKERT, "coherence", "'Coherence: 3'"),
        ("I cannot evaluate this.", LIKERT, None, "No score"),
        ("", LIKERT, None, "empty"),
        ("My score: -1", LIKERT, None, "out of range"),
        ("Score: 3 or 4", LIKERT, None, "ambiguous"),
        ("A score of 5 would require more detail.", LIKERT, None, "hypothetical"),
    ],
)
def test_reason_quotes_match_or_explains(text: str, scale: ScoreRange, aspect: str | None, needle: str) -> None:
    assert needle in parse_score(text, scale, aspect).reason


def test_to_dict_is_json_ready() -> None:
    result = parse_score("Coherence: 4", LIKERT, "coherence")
    as_dict = result.to_dict()
    assert set(as_dict) == {"value", "status", "method", "reason"}
    assert as_dict["value"] == 4.0 and as_dict["status"] == "parsed" and as_dict["method"] == "labelled"
    assert json.loads(json.dumps(as_dict)) == as_dict


def test_to_dict_no_score_has_null_value() -> None:
    as_dict = parse_score("NO_ISSUES", LIKERT).to_dict()
    assert as_dict["value"] is None and as_dict["status"] == "no_score" and as_dict["method"] == "none"


def test_ok_property() -> None:
    assert parse_score("Score: 3", LIKERT).ok
    assert not parse_score("Score: 9", LIKERT).ok
    assert not parse_score("nothing here", LIKERT).ok


@pytest.mark.parametrize(
    ("value", "status"), [(None, "parsed"), (3.0, "no_score"), (3.0, "out_of_range"), (None, "weird")]
)
def test_parsed_score_rejects_inconsistent_fields(value: float | None, status: str) -> None:
    with pytest.raises(ValueError):
        ParsedScore(value, status, "labelled", "x")


def test_parse_is_pure() -> None:
    text = "Turn 1: 3\nTurn 2: 2"
    assert parse_score(text, LIKERT) == parse_score(text, LIKERT)


# G-Eval's rule: an answer that starts with a bare number takes it, unless a verdict line says otherwise.
LEADING_CASES = [
    ("4\n\nThe summary is coherent and well organised.", LIKERT, "coherence", 4.0, "parsed", "leading_number"),
    ("4. The summary is consistent.", LIKERT, "consistency", 4.0, "parsed", "leading_number"),
    ("3.5\nfluent, with one slip", LIKERT, None, 3.5, "parsed", "leading_number"),
    ("2: the summary misses the main point", LIKERT, None, 2.0, "parsed", "leading_number"),
    ("5 - an excellent summary", LIKERT, None, 5.0, "parsed", "leading_number"),
    ("3) The summary repeats itself.", LIKERT, None, 3.0, "parsed", "leading_number"),
    ("2\n\nThe summary has 3 sentences.", LIKERT, None, 2.0, "parsed", "leading_number"),
    # the leading number beats an in-sentence rating and a hypothetical one later on
    ("3\n\nOverall, I rate the coherence as 4 because it flows.", LIKERT, "coherence", 3.0, "parsed", "leading_number"),
    ("2\n\nI would give it a 4 if the order were clearer.", LIKERT, None, 2.0, "parsed", "leading_number"),
    (" 4\n\nThe previous score of 2 was too harsh.", LIKERT, None, 4.0, "parsed", "leading_number"),
    ("2\n\nFluency (1-3): the grammar is fine.", GEVAL_FLUENCY, "fluency", 2.0, "parsed", "leading_number"),
    # ... but a labelled verdict line says otherwise
    ("4\n\nCoherence: 2", LIKERT, "coherence", 2.0, "parsed", "labelled"),
    ("4\n\nThe summary is good.\n\nScore: 3", LIKERT, None, 3.0, "parsed", "labelled"),
    # not a leading score: a whole-message number, a list step, a count, a year, a hypothetical
    ("4", LIKERT, None, 4.0, "parsed", "bare_number"),
    ("1. Read the text.", LIKERT, None, None, "no_score", "none"),
    ("1. Read the article.\n2. Compare it with the summary.", LIKERT, None, None, "no_score", "none"),
    ("1. The summary is coherent.\n2. It is short.", LIKERT, None, None, "no_score", "none"),
    ("3 sentences are fine", LIKERT, None, None, "no_score", "none"),
    ("2015. The article", LIKERT, None, None, "no_score", "none"),
    ("4, if it were shorter.", LIKERT, None, None, "no_score", "none"),
    # outside the scale: out of range, never clamped
    ("7\n\nThe summary is fine.", LIKERT, None, None, "out_of_range", "leading_number"),
    ("3\n\nIt reads well.", GEVAL_FLUENCY, "fluency", 3.0, "parsed", "leading_number"),
    ("0\n\nNot grounded in the fact.", BINARY, "groundedness", 0.0, "parsed", "leading_number"),
]


@pytest.mark.parametrize(("text", "scale", "aspect", "value", "status", "method"), LEADING_CASES)
def test_leading_number_rule(
    text: str, scale: ScoreRange, aspect: str | None, value: float | None, status: str, method: str
) -> None:
    result = parse_score(text, scale, aspect)
    assert (result.value, result.status, result.method) == (value, status, method), result.reason
    if result.span is not None:
        assert float(text[result.span[0] : result.span[1]]) == result.value or status != "parsed"
