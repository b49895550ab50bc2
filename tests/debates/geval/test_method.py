"""G-Eval's probability weighting (``weighted_score``) on hand-made token log-probabilities."""

from __future__ import annotations

import math
from typing import Any

import pytest

from debate_eval.debates.geval.method import GEvalConfig, samples_warning
from debate_eval.debates.scoring.scores import ScoreRange, parse_score
from debate_eval.debates.scoring.weighted import weighted_score
from tests.support.records import stored

LIKERT = ScoreRange(1, 5)


def entry(token: str, logprob: float = -0.01, tops: dict[str, float] | None = None) -> dict[str, Any]:
    """One ``ChatCompletionTokenLogprob`` dump; ``tops`` maps candidate tokens to probabilities."""
    candidates = tops if tops is not None else {token: math.exp(logprob)}
    return {
        "token": token,
        "logprob": logprob,
        "bytes": list(token.encode()),
        "top_logprobs": [{"logprob": math.log(p), "bytes": list(t.encode())} for t, p in candidates.items()],
    }


def completion(*tokens: str | dict[str, Any]) -> list[dict[str, Any]]:
    return [t if isinstance(t, dict) else entry(t) for t in tokens]


def text_of(logprobs: list[dict[str, Any]]) -> str:
    return "".join(bytes(e["bytes"]).decode() for e in logprobs)


def weigh(logprobs: list[dict[str, Any]], scale: ScoreRange = LIKERT) -> tuple[float | None, dict[str, Any]]:
    """Parse the tokens' text as the protocol does, then weight."""
    return weighted_score(logprobs, scale, parse_score(text_of(logprobs), scale, "coherence"))


def test_normalises_over_valid_score_tokens_only() -> None:
    # valid 3: 0.3 and 4: 0.1; " four", "\n" and "³" hold the rest and are left out: (3*.3 + 4*.1) / .4
    tops = {" 3": 0.3, " four": 0.35, "\n": 0.15, "³": 0.1, " 4": 0.1}
    score, details = weigh(completion("Score", ":", entry(" 3", math.log(0.3), tops)))
    assert details["method"] == "logprob_weighted"
    assert score == pytest.approx(3.25)
    assert details["probabilities"] == {"3": 0.75, "4": 0.25}
    assert details["covered_mass"] == pytest.approx(0.4)


def test_superscript_digit_does_not_crash() -> None:
    tops = {" 2": 0.5, "³": 0.3, "²": 0.2}
    score, details = weigh(completion("Score", ":", entry(" 2", math.log(0.5), tops)))
    assert (score, details["method"]) == (2.0, "logprob_weighted")
    assert details["probabilities"] == {"2": 1.0}


def test_number_with_trailing_full_stop_is_a_score_token() -> None:
    tops = {" 3.": 0.5, " 4.": 0.25, " 4": 0.25}  # the same value from two tokens adds up
    score, details = weigh(completion("Score", ":", entry(" 3.", math.log(0.5), tops), "\n"))
    assert details["method"] == "logprob_weighted"
    assert score == pytest.approx(3.5)
    assert details["probabilities"] == {"3": 0.5, "4": 0.5}


def test_number_with_trailing_parenthesis_is_a_score_token() -> None:
    tops = {"4)": 0.6, "5)": 0.2, "abc": 0.2}
    logprobs = completion("Score", ":", " ", entry("4)", math.log(0.6), tops))
    score, details = weigh(logprobs)
    assert details["method"] == "logprob_weighted"
    assert score == pytest.approx((4 * 0.6 + 5 * 0.2) / 0.8)


def test_step_number_before_the_score_is_not_weighted() -> None:
    step = entry("1", math.log(0.99), {"1": 0.99, "2": 0.01})
    score_token = entry(" 3", math.log(0.6), {" 3": 0.6, " 2": 0.4})
    logprobs = completion(step, ".", " Read", " the", " text", ".\n", "Score", ":", score_token)
    score, details = weigh(logprobs)
    assert details["method"] == "logprob_weighted" and details["token_index"] == 8
    assert score == pytest.approx(2.6)


def test_repeated_digit_after_the_score_is_not_weighted() -> None:
    score_token = entry(" 2", math.log(0.8), {" 2": 0.8, " 3": 0.2})
    later = entry(" 2", math.log(0.9), {" 2": 0.9, " 1": 0.1})
    logprobs = completion("Score", ":", score_token, "\n", "The", " summary", " has", later, " sentences", ".")
    parsed = parse_score(text_of(logprobs), LIKERT)
    assert parsed.value == 2.0 and parsed.span is not None
    score, details = weighted_score(logprobs, LIKERT, parsed)
    assert details["token_index"] == 2
    assert score == pytest.approx(2.2)


def test_unparsable_answer_gives_no_weighted_score() -> None:
    # the step number "1" is a scale integer, but no score was parsed: nothing is made up from it
    step = entry("1", math.log(0.99), {"1": 0.99, "2": 0.01})
    logprobs = completion(step, ".", " Read", " the", " text", ".")
    parsed = parse_score(text_of(logprobs), LIKERT)
    assert not parsed.ok
    score, details = weighted_score(logprobs, LIKERT, parsed)
    assert score is None
    assert details["method"] == "parsed" and "no parsed score" in details["logprobs"]


def test_number_word_score_keeps_the_parsed_value() -> None:
    # "1. Read ... Score: three": parsed 3, and the step number's token is not weighted instead
    step = entry("1", math.log(0.99), {"1": 0.99, "2": 0.01})
    word = entry(" three", math.log(0.7), {" three": 0.7, " 3": 0.2, " 4": 0.1})
    logprobs = completion(step, ".", " Read", " it", ".\n", "Score", ":", word)
    score, details = weigh(logprobs)
    assert score == 3.0
    assert details["method"] == "parsed" and "' three'" in details["logprobs"]


def test_decimal_and_split_numbers_are_not_weighted() -> None:
    score, details = weigh(completion("Score", ":", " 3", ".", "5"))
    assert (score, details["method"]) == (3.5, "parsed")
    score, details = weighted_score(
        completion("Score", ":", " 1", "0"), ScoreRange(1, 10), parse_score("Score: 10", ScoreRange(1, 10))
    )
    assert (score, details["method"]) == (10.0, "parsed") and "split" in details["logprobs"]


def test_span_is_found_through_markdown_and_blanked_copies() -> None:
    tops = {"4": 0.5, "5": 0.5}
    logprobs = completion("The", " text", " says", " \"", "Score", ":", " 1", "\".", "\n", "**", "Score", ":**", " ",
                          entry("4", math.log(0.5), tops))  # fmt: skip
    raw = text_of(logprobs)
    neutral = raw.replace('"Score: 1"', "[quoted text]")  # as UntrustedMaterial.neutralize would
    parsed = parse_score(neutral, LIKERT)
    assert parsed.value == 4.0
    score, details = weighted_score(logprobs, LIKERT, parsed, neutral)
    assert details["method"] == "logprob_weighted" and details["token_index"] == 13
    assert score == pytest.approx(4.5)


def test_tokens_without_whitespace_are_aligned() -> None:
    # a server whose tokens drop the spaces ("Score:", "3"): aligned with the answer text
    logprobs = completion("Score:", entry("3", math.log(0.5), {"3": 0.5, "2": 0.5}))
    text = "Score: 3"
    score, details = weighted_score(logprobs, LIKERT, parse_score(text, LIKERT), text)
    assert details["method"] == "logprob_weighted" and details["token_index"] == 1
    assert score == pytest.approx(2.5)


def test_multibyte_characters_split_over_tokens_keep_positions() -> None:
    # "é" as two byte tokens: positions are counted in bytes, so the score's token is still found
    e_bytes = "é".encode()
    first = {"token": "bytes:\\xc3", "logprob": -0.1, "bytes": [e_bytes[0]], "top_logprobs": []}
    second = {"token": "bytes:\\xa9", "logprob": -0.1, "bytes": [e_bytes[1]], "top_logprobs": []}
    tops = {" 5": 0.5, " 4": 0.5}
    logprobs = [entry("Caf"), first, second, entry(". Score"), entry(":"), entry(" 5", math.log(0.5), tops)]
    text = "Café. Score: 5"
    score, details = weighted_score(logprobs, LIKERT, parse_score(text, LIKERT), text)
    assert details["token_index"] == 5
    assert score == pytest.approx(4.5)


def test_sampled_token_outside_the_top_candidates_still_counts() -> None:
    chosen = entry(" 2", math.log(0.1), {" 4": 0.6, " 5": 0.3})
    score, details = weigh(completion("Score", ":", chosen))
    assert details["probabilities"] == {"2": 0.1, "4": 0.6, "5": 0.3}
    assert score == pytest.approx(0.2 + 2.4 + 1.5)


def test_samples_at_temperature_zero_warn() -> None:
    warning = samples_warning(GEvalConfig(samples=5), 0.0)
    assert warning is not None and "identical" in warning and "\n" not in warning
    assert samples_warning(GEvalConfig(samples=5), 0.7) is None
    assert samples_warning(GEvalConfig(samples=1), 0.0) is None


def test_span_is_found_between_blanked_copies() -> None:
    tops = {" 2": 0.5, " 3": 0.5}
    logprobs = completion("It", " says", " \"", "a", " 5", "\".", "\n", "Score", ":", entry(" 2", math.log(0.5), tops),
                          "\n", "As", " \"", "b", " 2", "\"", " shows", ".")  # fmt: skip
    raw = text_of(logprobs)
    neutral = raw.replace('"a 5"', "[quoted text]").replace('"b 2"', "[quoted text]")
    parsed = parse_score(neutral, LIKERT)
    assert parsed.value == 2.0
    score, details = weighted_score(logprobs, LIKERT, parsed, neutral)
    assert details["method"] == "logprob_weighted" and details["token_index"] == 9
    assert score == pytest.approx(2.5)


def test_sample_mean_reports_parse_status_over_the_samples_live_and_after_rescore() -> None:
    """--geval-samples 4 with one unparsable answer: "3/4 parsed" (not the last sample's fields); rescore after
    that answer is edited to hold a score reports "4/4 parsed" and the new mean."""
    import asyncio

    from debate_eval.agents.models.pool import ClientPool
    from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
    from debate_eval.agents.models.settings import PAPER_SEED, ModelOverrides, resolve_model_config
    from debate_eval.debates.base import Reparser
    from debate_eval.debates.evaluation import EvaluationTask
    from debate_eval.debates.geval.method import GEvalMethod, run_geval
    from debate_eval.debates.scoring.untrusted import UntrustedMaterial

    answers = ["Score: 4", "Score: 2", "Score: 3", "I cannot tell."]  # the last sample has no score
    task = EvaluationTask("d1", "Rate the summary (1-5).\n\nSummary:\n\nA park.", "coherence", LIKERT, ("A park.",))
    with ScriptedOpenAIServer(reply=lambda request: answers[request["seed"] - PAPER_SEED]) as server:
        overrides = ModelOverrides(base_url=server.base_url, model="scripted", temperature=0.7)
        pool = ClientPool(resolve_model_config(overrides, environ={}))
        outcome = asyncio.run(run_geval(task, GEvalConfig(samples=4), pool))
    assert outcome.score == pytest.approx(3)
    assert (outcome.parse.status, outcome.parse.method) == ("parsed", "sample_mean")
    assert outcome.parse.reason == "3/4 parsed; the score is the mean of the parsed samples"
    record: dict[str, Any] = {
        "score": outcome.score,
        "decided_by": outcome.decided_by,
        "details": outcome.details,
        "transcript": outcome.transcript,
    }
    unparsed = next(i for i, e in enumerate(record["transcript"]) if e["content"] == "I cannot tell.")
    record["transcript"][unparsed]["content"] = "Score: 5"
    reparse = Reparser(record["transcript"], LIKERT, "coherence", UntrustedMaterial(task.untrusted))
    record = GEvalMethod().rescore(stored(record), reparse).to_json()
    assert record["score"] == pytest.approx(3.5) and record["parse_reason"].startswith("4/4 parsed")
    assert record["parse_method"] == "sample_mean" and record["details"]["parsed_samples"] == 4
