"""The promptfoo entry points, called as promptfoo calls them (the Node tool itself is not run): the Python
assertion ``get_assert(output, context)`` with the assertion's ``config`` and the test's ``vars``, and the
grading provider ``call_api`` with the rubric prompt rendered."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import debate_eval
from debate_eval.integrations import promptfoo

JUDGE = {"aspect": "coherence", "criteria": "Is the summary coherent?", "provider": "scripted", "max_rounds": 1}
ARTICLE = "The council met on Monday and approved the budget for the new library."
SUMMARY = "The council approved the library budget."


@pytest.fixture(autouse=True)
def _fresh_judges() -> Iterator[None]:
    """The module keeps one judge per configuration for the process: each test starts without any."""
    yield
    for judge in promptfoo._JUDGES.values():
        judge.close()
    promptfoo._JUDGES.clear()


def context(**config: object) -> dict[str, object]:
    """What promptfoo passes a python assertion: prompt, vars, test, the assertion's config."""
    variables = {"source": ARTICLE, "reference": "Budget approved."}
    return {"prompt": f"Summarise: {ARTICLE}", "vars": variables, "test": {"vars": variables}, "config": config}


def test_get_assert_judges_the_output_with_the_configured_judge(isolated_env: Path) -> None:
    result = promptfoo.get_assert(SUMMARY, context(**JUDGE, threshold=0.4))
    with debate_eval.Judge(**JUDGE) as judge:
        direct = judge.score(SUMMARY, source=ARTICLE, reference="Budget approved.")
    assert set(result) == {"pass", "score", "reason"}
    assert result["score"] == direct.normalized_score and result["pass"] is (direct.normalized_score >= 0.4)
    assert direct.rationale and result["reason"].endswith(direct.rationale)
    assert result["reason"].startswith(f"debate coherence: {direct.score:g} on 1-5.")
    strict = promptfoo.get_assert(SUMMARY, context(**JUDGE, threshold=1.0))
    assert strict["score"] == result["score"] and strict["pass"] is (result["score"] >= 1.0)
    assert promptfoo.judge_for(JUDGE) is promptfoo.judge_for({**JUDGE, "threshold": 0.9})  # one judge per config


def test_vars_of_other_names_and_a_missing_score(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    renamed = context(**JUDGE, inputs={"source": "article"})
    renamed["vars"] = {"article": ARTICLE, "reference": "Budget approved."}
    assert promptfoo.get_assert(SUMMARY, renamed) == promptfoo.get_assert(SUMMARY, context(**JUDGE))
    with pytest.raises(debate_eval.UserError, match="unknown name"):
        promptfoo.get_assert(SUMMARY, context(**JUDGE, inputs={"article": "source"}))
    from debate_eval.agents.models.providers import scripted_server

    monkeypatch.setitem(scripted_server.DEFAULT_REPLIES, "scorer", "I would rather not say.")
    failed = promptfoo.get_assert(SUMMARY, context(**JUDGE, no_cache=True))  # the patched replies, not the cache's
    assert failed["pass"] is False and failed["score"] == 0.0 and failed["reason"].startswith("debate-eval: no score")


def test_the_grading_provider_reads_the_rubric_prompt(isolated_env: Path) -> None:
    rubric = "The summary states what the council decided."
    prompt = promptfoo.RUBRIC_PROMPT.replace("{{ output | dump }}", json.dumps(SUMMARY)).replace(
        "{{ rubric | dump }}", json.dumps(rubric)
    )
    config = {"provider": "scripted", "max_rounds": 1, "aspect": "relevance"}
    answer = promptfoo.call_api(prompt, {"config": config}, {"vars": {}})
    grading = json.loads(answer["output"])
    with debate_eval.Judge(**config, criteria=rubric) as judge:
        direct = judge.score(SUMMARY)
    assert grading["score"] == direct.normalized_score and grading["pass"] is (direct.normalized_score >= 0.5)
    assert answer["tokenUsage"]["prompt"] == direct.prompt_tokens
    assert "error" in promptfoo.call_api("Grade this: hello", {"config": config})
