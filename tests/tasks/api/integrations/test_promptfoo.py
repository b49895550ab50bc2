"""The promptfoo entry points, called as promptfoo calls them (the Node tool itself is not run): the Python
assertion ``get_assert(output, context)`` with the assertion's ``config`` and the test's ``vars``, and the
grading provider ``call_api`` with the rubric prompt rendered."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
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
    assert set(result) == {"pass", "score", "reason", "tokensUsed"}
    assert result["score"] == direct.normalized_score and result["pass"] is (direct.normalized_score >= 0.4)
    assert direct.rationale and result["reason"].endswith(direct.rationale)
    assert result["reason"].startswith(f"debate coherence: {direct.score:g} on 1-5.")
    strict = promptfoo.get_assert(SUMMARY, context(**JUDGE, threshold=1.0))
    assert strict["score"] == result["score"] and strict["pass"] is (result["score"] >= 1.0)
    assert promptfoo.judge_for(JUDGE) is promptfoo.judge_for({**JUDGE, "threshold": 0.9})  # one judge per config


def test_vars_of_other_names_and_a_missing_score(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    renamed = context(**JUDGE, inputs={"source": "article"})
    renamed["vars"] = {"article": ARTICLE, "reference": "Budget approved."}
    first, second = promptfoo.get_assert(SUMMARY, renamed), promptfoo.get_assert(SUMMARY, context(**JUDGE))
    assert first.pop("tokensUsed")["cached"] == 0 and second.pop("tokensUsed")["cached"] > 0  # the second: cached
    assert first == second
    bad = promptfoo.get_assert(SUMMARY, context(**JUDGE, inputs={"article": "source"}))
    assert bad == {"pass": False, "score": 0.0, "reason": bad["reason"]} and "unknown name(s) article" in bad["reason"]
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
    assert "RUBRIC_PROMPT" in promptfoo.call_api("Grade this: hello", {"config": config})["error"]


def rubric_prompt(output: str, rubric: str) -> str:
    """``RUBRIC_PROMPT`` rendered as promptfoo's nunjucks does (``dump`` is JSON)."""
    return json.dumps({"output": output, "rubric": rubric})


def test_the_grading_provider_leaves_promptfoo_s_own_keys_out(isolated_env: Path, tmp_path: Path) -> None:
    """The options promptfoo's Python provider sends: its id, and the config of the YAML with ``basePath``
    (the config file's folder, added by promptfoo) and the keys it documents for Python providers."""
    judge = {"provider": "scripted", "max_rounds": 1, "aspect": "relevance", "threshold": 0.5}
    promptfoo_own = {"basePath": str(tmp_path), "pythonExecutable": "/usr/bin/python3", "workers": 2}
    promptfoo_own |= {"timeout": 300000, "linkedTargetId": "promptfoo://provider/1234"}
    options = {"id": "file://debate_grader.py", "label": "debate", "config": {**judge, **promptfoo_own}}
    context_sent = {
        "vars": {"source": ARTICLE},
        "prompt": {"raw": promptfoo.RUBRIC_PROMPT, "label": "grading"},
        "test": {"vars": {"source": ARTICLE}, "metadata": {}},
        "evaluationId": "eval-1",
        "testCaseId": "t-1",
        "testIdx": 0,
        "promptIdx": 0,
        "repeatIndex": 0,
    }
    rubric = "The summary states what the council decided."
    answer = promptfoo.call_api(rubric_prompt(SUMMARY, rubric), options, context_sent)
    assert "error" not in answer, answer
    assert promptfoo.judge_keywords(options["config"]) == {
        "provider": "scripted",
        "max_rounds": 1,
        "aspect": "relevance",
    }
    with debate_eval.Judge(provider="scripted", max_rounds=1, aspect="relevance", criteria=rubric) as direct_judge:
        direct = direct_judge.score(SUMMARY)
    grading = json.loads(answer["output"])
    assert grading == {
        "pass": direct.normalized_score >= 0.5,
        "score": direct.normalized_score,
        "reason": grading["reason"],
    }
    calls = [m for m in direct.messages if m.usage]  # the model calls, counted by hand from the transcript
    prompt_tokens = sum(m.usage["prompt_tokens"] for m in calls)
    completion_tokens = sum(m.usage["completion_tokens"] for m in calls)
    assert answer["tokenUsage"] == {
        "total": prompt_tokens + completion_tokens,
        "prompt": prompt_tokens,
        "completion": completion_tokens,
        "numRequests": 3,  # Scorer, Critic, Scorer: one round
        "cached": 0,
    }
    # a key that is neither promptfoo's nor the judge's is refused in one line, naming it
    typo = promptfoo.call_api(rubric_prompt(SUMMARY, rubric), {"config": {**options["config"], "max_round": 2}})
    assert set(typo) == {"error"} and "'max_round'" in typo["error"] and "\n" not in typo["error"]


def test_the_assertion_reports_the_judge_s_tokens_and_ignores_base_path(isolated_env: Path, tmp_path: Path) -> None:
    result = promptfoo.get_assert(SUMMARY, context(**JUDGE, basePath=str(tmp_path)))
    with debate_eval.Judge(**JUDGE) as judge:
        direct = judge.score(SUMMARY, source=ARTICLE, reference="Budget approved.")
    calls = [m for m in direct.messages if m.usage]
    prompt_tokens = sum(m.usage["prompt_tokens"] for m in calls)
    completion_tokens = sum(m.usage["completion_tokens"] for m in calls)
    assert result["tokensUsed"]["total"] == prompt_tokens + completion_tokens
    assert (result["tokensUsed"]["prompt"], result["tokensUsed"]["completion"]) == (prompt_tokens, completion_tokens)
    assert result["tokensUsed"]["numRequests"] == len(calls) == 3
    again = promptfoo.get_assert(SUMMARY, context(**JUDGE))  # the same judge, its answers from the response cache
    assert again["score"] == result["score"] and again["tokensUsed"]["cached"] == prompt_tokens + completion_tokens


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        (lambda: promptfoo.get_assert("x", None), "expected promptfoo's context (a mapping), got None"),
        (lambda: promptfoo.get_assert("x", context(**JUDGE, threshold="high")), "threshold: expected a number"),
        (lambda: promptfoo.get_assert("x", context(**JUDGE, threshold=1.5)), "threshold: expected a number"),
        (lambda: promptfoo.get_assert("x", context(**JUDGE, threshold=True)), "threshold: expected a number"),
        (lambda: promptfoo.get_assert("x", {"config": "aspect: coherence"}), "config: expected a mapping, got str"),
        (lambda: promptfoo.get_assert("x", context(**JUDGE, max_round=2)), "unknown method option 'max_round'"),
    ],
)
def test_bad_assertion_input_fails_in_one_line(isolated_env: Path, call: object, reason: str) -> None:
    result = call()  # type: ignore[operator]
    assert result["pass"] is False and result["score"] == 0.0
    assert result["reason"].startswith("debate-eval: ") and reason in result["reason"] and "\n" not in result["reason"]


def test_bad_provider_input_is_an_error_in_one_line(isolated_env: Path) -> None:
    prompt = rubric_prompt(SUMMARY, "Coherent?")
    for options, reason in [
        ({"config": {"provider": "scripted", "threshold": "high"}}, "threshold: expected a number"),
        ({"config": ["provider", "scripted"]}, "config: expected a mapping, got list"),
        ("scripted", "options: expected a mapping, got str"),
    ]:
        answer = promptfoo.call_api(prompt, options)  # type: ignore[arg-type]
        assert set(answer) == {"error"} and reason in answer["error"] and "\n" not in answer["error"]


PROMPTFOO_COMMAND = os.environ.get("DEBATE_EVAL_PROMPTFOO", "")  # read before the isolated environment
PROMPTFOO_CONFIG = """\
prompts:
  - "Summarise in one sentence: {{source}}"
providers:
  - file://echo_provider.py
defaultTest:
  options:
    provider:
      id: file://debate_grader.py
      config: {provider: scripted, max_rounds: 1, threshold: 0.5}
    rubricPrompt: '{"output": {{ output | dump }}, "rubric": {{ rubric | dump }}}'
tests:
  - vars:
      source: The council met on Monday and approved the budget for the new library.
    assert:
      - type: python
        value: file://debate_judge.py
        config: {aspect: coherence, criteria: Is the summary coherent?, provider: scripted, max_rounds: 1}
      - type: llm-rubric
        value: The summary says what the council decided.
"""


@pytest.mark.skipif(
    not PROMPTFOO_COMMAND,
    reason="opt-in: DEBATE_EVAL_PROMPTFOO=<the promptfoo command> runs the real `promptfoo eval` (needs node)",
)
def test_the_real_promptfoo_eval_runs_both_entry_points(isolated_env: Path, tmp_path: Path) -> None:
    """``promptfoo eval`` (the Node tool, offline: a Python provider answers the prompt) with the assertion
    and the grading provider of the docs: both graded, with the judge's tokens in promptfoo's totals."""
    (tmp_path / "echo_provider.py").write_text(
        f"def call_api(prompt, options, context):\n    return {{'output': {SUMMARY!r}}}\n"
    )
    (tmp_path / "debate_judge.py").write_text(
        "from debate_eval.integrations.promptfoo import get_assert  # noqa: F401\n"
    )
    (tmp_path / "debate_grader.py").write_text(
        "from debate_eval.integrations.promptfoo import call_api  # noqa: F401\n"
    )
    (tmp_path / "promptfooconfig.yaml").write_text(PROMPTFOO_CONFIG)
    env = {**os.environ, "HOME": str(tmp_path / "home"), "PROMPTFOO_PYTHON": sys.executable}
    env |= {"PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1"}
    command = [*shlex.split(PROMPTFOO_COMMAND), "eval", "--no-cache", "-o", "out.json"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    result = json.loads((tmp_path / "out.json").read_text())["results"]["results"][0]
    python_check, rubric_check = result["gradingResult"]["componentResults"]
    with debate_eval.Judge(
        aspect="coherence", criteria="Is the summary coherent?", provider="scripted", max_rounds=1
    ) as judge:
        direct = judge.score(SUMMARY, source=ARTICLE)
    assert python_check["score"] == direct.normalized_score and python_check["reason"].startswith("debate coherence")
    assert python_check["tokensUsed"]["total"] == direct.prompt_tokens + direct.completion_tokens
    assert rubric_check["score"] is not None and "error" not in rubric_check["reason"].lower()
    assert rubric_check["tokensUsed"]["numRequests"] == 3 and rubric_check["tokensUsed"]["total"] > 0
    totals = result["gradingResult"]["tokensUsed"]["total"]
    assert totals == python_check["tokensUsed"]["total"] + rubric_check["tokensUsed"]["total"]
