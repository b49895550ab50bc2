"""Answer formats: the GBNF grammar and JSON schema of each kind, their sizing to the cap, and the plan that
picks one per call (agents/models/answer_format.py), and the providers' request options for them."""

from __future__ import annotations

import re

import pytest

from debate_eval.agents.models.answer_format import (
    ENDING_RESERVE,
    FREE,
    GRAMMAR,
    JSON,
    UNCAPPED_RATIONALE_CHARS,
    AnswerFormat,
    AnswerPlan,
    AnswerTask,
    answering,
    current_answer_task,
    json_schema_response_format,
)
from debate_eval.agents.models.providers import get_provider


def bound(grammar: str, rule: str) -> int:
    """The upper repetition bound of ``rule ::= [ -~]{1,N}`` in ``grammar``."""
    match = re.search(rf"^{rule} ::= \[ -~\]\{{1,(\d+)\}}$", grammar, re.MULTILINE)
    assert match, grammar
    return int(match.group(1))


def test_score_grammar_forces_a_score_line_on_the_scale_after_a_rationale_that_fits_the_cap() -> None:
    grammar = AnswerFormat("score", max_tokens=96, low=1, high=5).grammar()
    assert grammar is not None
    assert grammar.splitlines()[0] == 'root ::= rationale "\\nScore: " value'
    assert 'value ::= "1" | "2" | "3" | "4" | "5"' in grammar
    # one token is at least one printable ASCII character: the rationale plus the ending never reach the cap
    assert bound(grammar, "rationale") == 96 - ENDING_RESERVE


def test_scales_without_integer_ends_or_too_many_values_are_digits_the_parser_checks() -> None:
    assert AnswerFormat("score", max_tokens=64, low=0, high=1).scale_values() == [0, 1]
    assert AnswerFormat("score", max_tokens=64, low=0.5, high=2.5).scale_values() is None
    assert AnswerFormat("score", max_tokens=64, low=1, high=1000).scale_values() is None
    grammar = AnswerFormat("score", max_tokens=64, low=0.5, high=2.5).grammar()
    assert grammar is not None and 'value ::= "-"? [0-9]{1,6}' in grammar


def test_other_kinds() -> None:
    assert (
        AnswerFormat("score_only", max_tokens=8, low=1, high=3).grammar() == 'root ::= value\nvalue ::= "1" | "2" | "3"'
    )
    verdict = AnswerFormat("verdict", max_tokens=96).grammar()
    assert verdict is not None and '"\\n" ("[[A]]" | "[[B]]" | "[[C]]")' in verdict
    critique = AnswerFormat("critique", max_tokens=96).grammar()
    assert critique is not None and critique.startswith('root ::= "NO ISSUE" | feedback')
    assert bound(critique, "feedback") <= 96 - 2
    criteria = AnswerFormat("criteria", max_tokens=160, items=3).grammar()
    assert criteria is not None and criteria.startswith('root ::= "1. " item "\\n" "2. " item "\\n" "3. " item')
    assert 3 * (4 + bound(criteria, "item")) <= 160 - 2  # "N. " and a newline per line, all inside the cap
    assert AnswerFormat("text", max_tokens=128).grammar() is None
    assert bound(AnswerFormat("score").grammar() or "", "rationale") == UNCAPPED_RATIONALE_CHARS


def test_bad_formats_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown answer kind"):
        AnswerFormat("essay")
    with pytest.raises(ValueError, match="number of items"):
        AnswerFormat("criteria")
    with pytest.raises(ValueError, match="grammar or json"):
        AnswerFormat("score", mode=FREE)


def test_json_schemas() -> None:
    score = AnswerFormat("score", mode=JSON, max_tokens=96).json_schema()
    assert score == {
        "type": "object",
        "properties": {"rationale": {"type": "string"}, "score": {"type": "integer", "enum": [1, 2, 3, 4, 5]}},
        "required": ["rationale", "score"],
        "additionalProperties": False,
    }
    bounded = AnswerFormat("score", mode=JSON, max_tokens=96).json_schema(bounded=True)
    assert bounded is not None and bounded["properties"]["rationale"]["maxLength"] == 96 - ENDING_RESERVE
    verdict = AnswerFormat("verdict", mode=JSON).json_schema()
    assert verdict is not None and verdict["properties"]["verdict"] == {"type": "string", "enum": ["A", "B", "C"]}
    decimal = AnswerFormat("score_only", mode=JSON, low=0.5, high=2.5).json_schema()
    assert decimal is not None and decimal["properties"] == {
        "score": {"type": "number", "minimum": 0.5, "maximum": 2.5}
    }
    assert AnswerFormat("critique", mode=JSON).json_schema() is None
    response_format = json_schema_response_format(AnswerFormat("score", mode=JSON))
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["name"] == "score_answer"


PLAN = AnswerPlan(
    modes={"scorer": GRAMMAR, "critic": GRAMMAR, "tiebreaker": FREE},
    kinds={"scorer": "score", "critic": "critique", "criteria_writer": "criteria"},
    caps={"score": 96, "critique": 80, "verdict": 90},
)
TASK = AnswerTask(low=1, high=5)


def test_the_plan_picks_kind_mode_and_cap_per_call() -> None:
    fmt = PLAN.format_for("scorer", "scorer", None, configured_cap=256, provider_cap=256, task=TASK)
    assert fmt == AnswerFormat("score", GRAMMAR, 96, 1, 5)
    # a cap the user set (not the provider's default) is kept
    assert PLAN.format_for("scorer", "scorer", None, 40, 256, TASK) == AnswerFormat("score", GRAMMAR, 40, 1, 5)
    # a remote endpoint has no default cap: the configured one (here none) stands
    assert PLAN.format_for("scorer", "scorer", None, None, None, TASK) == AnswerFormat("score", GRAMMAR, None, 1, 5)
    critic = PLAN.format_for("critic", "critic", None, 256, 256, TASK)
    assert critic is not None and (critic.kind, critic.max_tokens) == ("critique", 80)
    # a role without settings of its own (a referee) has the Scorer's mode; the call site names its kind
    referee = PLAN.format_for("referee", "referee", "score_only", 256, 256, TASK)
    assert referee is not None and referee.kind == "score_only" and referee.max_tokens == 256  # no cap for the kind
    # free roles, and calls outside an item (no task), are not constrained
    assert PLAN.format_for("tiebreaker", "tiebreaker", None, 256, 256, TASK) is None
    assert PLAN.format_for("scorer", "scorer", None, 256, 256, None) is None


def test_a_pairwise_task_turns_scores_into_verdicts_and_lists_need_their_length() -> None:
    pairwise = AnswerTask(pairwise=True)
    fmt = PLAN.format_for("scorer", "scorer", None, 256, 256, pairwise)
    assert fmt is not None and (fmt.kind, fmt.max_tokens) == ("verdict", 90)
    unknown = PLAN.format_for("criteria_writer", "scorer", None, 256, 256, TASK)
    assert unknown is not None and unknown.kind == "text"
    listed = PLAN.format_for("criteria_writer", "scorer", None, 256, 256, TASK, items=4)
    assert listed is not None and listed.kind == "criteria" and listed.items == 4


def test_answering_sets_the_item_for_its_context_only() -> None:
    assert current_answer_task() is None
    with answering(TASK):
        assert current_answer_task() == TASK
    assert current_answer_task() is None


def test_providers_ask_for_formats_in_their_own_fields() -> None:
    score = AnswerFormat("score", GRAMMAR, 96)
    openai = get_provider("openai").answer_request(score)
    assert openai == {"max_tokens": 96, "extra_body": {"grammar": score.grammar()}}
    as_json = get_provider("openai").answer_request(AnswerFormat("score", JSON, None))
    assert set(as_json) == {"response_format"} and as_json["response_format"]["type"] == "json_schema"
    # a kind with no schema is only capped
    assert get_provider("openai").answer_request(AnswerFormat("critique", JSON, 50)) == {"max_tokens": 50}
    embedded = get_provider("embedded")
    assert embedded.auto_answer_mode == GRAMMAR and get_provider("openai").auto_answer_mode == FREE
    assert embedded.answer_request(score) == {"max_tokens": 96, "extra_body": {"grammar": score.grammar()}}
    bounded = embedded.answer_request(AnswerFormat("score", JSON, 96))["extra_body"]["json_schema"]
    assert bounded["properties"]["rationale"]["maxLength"] == 96 - ENDING_RESERVE
    assert embedded.answer_request(AnswerFormat("text", GRAMMAR, 128)) == {"max_tokens": 128}


def test_fennecs_pairwise_judge_grades_both_sides_then_gives_the_verdict() -> None:
    fmt = PLAN.format_for("judge", "scorer", "pair_scores", 128, None, AnswerTask(pairwise=True), scale=(1, 5))
    assert fmt is not None and (fmt.kind, fmt.low, fmt.high) == ("pair_scores", 1, 5)  # a pairwise item's own 0-1
    grammar = fmt.grammar()
    assert grammar is not None and bound(grammar, "rationale") == 128 - 32
    assert '"\\nScore A: " value "\\nScore B: " value "\\nVerdict: " ("[[A]]" | "[[B]]" | "[[C]]")' in grammar
    assert fmt.json_schema() is None  # its side scores are read from its lines: in json mode it stays text
