"""A debate-eval judge as a deepeval metric, against the real library: ``measure``, ``deepeval.evaluate`` and
``assert_test`` with the scripted provider as the judge's model; deepeval's telemetry off."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "YES")  # before deepeval is imported: no usage reports
os.environ.setdefault("DEEPEVAL_GRPC_LOGGING", "NO")

from support.integrations import integration_library

import debate_eval

integration_library("deepeval", "deepeval")
from deepeval import assert_test, evaluate  # noqa: E402
from deepeval.evaluate.configs import CacheConfig, DisplayConfig  # noqa: E402
from deepeval.models import DeepEvalBaseLLM  # noqa: E402
from deepeval.test_case import ConversationalTestCase, LLMTestCase, Turn  # noqa: E402

from debate_eval.integrations.deepeval import DebateConversationalMetric, DebateMetric  # noqa: E402

JUDGE = {"aspect": "coherence", "criteria": "Is the summary coherent?", "provider": "scripted", "max_rounds": 1}
QUIET = {
    "display_config": DisplayConfig(show_indicator=False, print_results=False),
    "cache_config": CacheConfig(write_cache=False),
}


def case(i: int) -> LLMTestCase:
    return LLMTestCase(
        input=f"The council met on day {i} and approved the budget.",
        actual_output=f"On day {i} the council approved the budget.",
        expected_output="The council approved the budget.",
    )


def test_measure_gives_the_judges_normalised_score_and_rationale(isolated_env: Path) -> None:
    metric = DebateMetric(threshold=0.5, **JUDGE)
    score = metric.measure(case(1))
    with debate_eval.Judge(**JUDGE) as judge:
        direct = judge.score(case(1).actual_output, source=case(1).input, reference=case(1).expected_output)
    assert direct.normalized_score is not None and score == direct.normalized_score
    assert 0.0 <= score <= 1.0 and metric.reason == direct.rationale and metric.reason
    assert metric.is_successful() is (score >= 0.5) and metric.error is None
    assert metric.judgment is not None and metric.judgment.rounds == 1
    assert metric.__name__ == "DEBATE coherence" and metric.input_tokens == direct.prompt_tokens


def test_evaluate_and_assert_test(isolated_env: Path) -> None:
    metric = DebateMetric(threshold=0.5, **JUDGE)
    result = evaluate(test_cases=[case(1), case(2)], metrics=[metric], **QUIET)
    assert len(result.test_results) == 2
    with debate_eval.Judge(**JUDGE) as judge:
        for test_result in result.test_results:
            (data,) = test_result.metrics_data or []
            output, source = test_result.actual_output or "", test_result.input
            direct = judge.score(output, source=source, reference=case(1).expected_output)
            assert data.score == direct.normalized_score and data.reason == direct.rationale
            assert data.success is (data.score >= 0.5) and data.threshold == 0.5
    scored = result.test_results[0].metrics_data[0].score
    assert_test(case(1), [DebateMetric(threshold=scored, **JUDGE)])  # reaches its threshold: passes
    with pytest.raises(AssertionError):
        assert_test(case(1), [DebateMetric(threshold=min(1.0, scored + 0.01), **JUDGE)])


def test_copies_share_one_judge(isolated_env: Path) -> None:
    from deepeval.metrics.utils import copy_metrics

    metric = DebateMetric(threshold=0.3, **JUDGE)
    (copy,) = copy_metrics([metric])
    assert copy is not metric and copy.judge is metric.judge and copy.threshold == 0.3


def test_no_score_is_an_error_and_a_failure(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_eval.agents.models.providers import scripted_server

    monkeypatch.setitem(scripted_server.DEFAULT_REPLIES, "scorer", "I would rather not say.")
    metric = DebateMetric(threshold=0.1, **JUDGE)
    assert metric.measure(case(1)) is None
    assert metric.error and not metric.is_successful()


class ScriptedDeepEvalModel(DeepEvalBaseLLM):
    """A deepeval custom model that notes each prompt: the Critic finds no issue, the Scorer answers 3."""

    def __init__(self) -> None:
        self.prompts: list[str] = []
        super().__init__(model="scripted-deepeval")

    def load_model(self) -> ScriptedDeepEvalModel:
        return self

    def generate(self, prompt: str, *args: object, **kwargs: object) -> str:
        self.prompts.append(prompt)
        return "NO_ISSUES" if "Devil" in prompt else "Fairly clear.\nScore: 3"

    async def a_generate(self, prompt: str, *args: object, **kwargs: object) -> str:
        return self.generate(prompt)

    def get_model_name(self) -> str:
        return "scripted-deepeval"


def test_a_deepeval_model_object_answers_every_call(isolated_env: Path) -> None:
    model = ScriptedDeepEvalModel()
    judge_options = {key: value for key, value in JUDGE.items() if key != "provider"}
    metric = DebateMetric(**judge_options, model=model)  # no endpoint check: the object answers only the debate
    score = metric.measure(case(1))
    assert metric.judgment is not None and metric.judgment.score == 3.0 and score == pytest.approx(0.5)
    calls = [m for m in metric.judgment.messages if m.usage is not None]
    assert len(model.prompts) == len(calls) == 2  # the Scorer's call, then the Critic's NO_ISSUES
    assert model.prompts[0].startswith("System: ") and "\n\nUser: " in model.prompts[0]
    assert "On day 1 the council approved the budget." in model.prompts[0]  # the judged output is in the prompt
    assert model.prompts[1].count("Devil") >= 1 and metric.is_successful()
    with pytest.raises(debate_eval.UserError, match="takes no provider"):
        DebateMetric(**JUDGE, model=model)


def conversation(*turns: tuple[str, str], context: list[str] | None = None) -> ConversationalTestCase:
    return ConversationalTestCase(turns=[Turn(role=role, content=text) for role, text in turns], context=context)


def test_the_conversational_metric_judges_the_last_assistant_turn(isolated_env: Path) -> None:
    dialogue = {
        "aspect": "naturalness",
        "criteria": "Is the response natural?",
        "scale": (1, 3),
        "provider": "scripted",
    }
    metric = DebateConversationalMetric(method="dialevalml", **dialogue)
    chat = conversation(
        ("user", "I like jazz."),
        ("assistant", "Me too! Have you heard Coltrane?"),
        ("user", "Yes, A Love Supreme."),
        ("assistant", "That album is a classic from 1965."),
        context=["A Love Supreme was recorded in 1964 and released in 1965."],
    )
    score = metric.measure(chat)
    with debate_eval.Judge(method="dialevalml", **dialogue) as judge:
        direct = judge.score(
            "That album is a classic from 1965.",
            source="user: I like jazz.\nassistant: Me too! Have you heard Coltrane?\nuser: Yes, A Love Supreme.",
            context="A Love Supreme was recorded in 1964 and released in 1965.",
        )
    assert direct.ok and score == direct.normalized_score and metric.reason == direct.rationale
    assert metric.is_successful() is (direct.normalized_score >= 0.5)
    result = evaluate(test_cases=[chat], metrics=[metric], **QUIET)
    assert result.test_results[0].metrics_data[0].score == direct.normalized_score
    empty = DebateConversationalMetric(method="dialevalml", **dialogue)
    assert empty.measure(conversation(("user", "Hello?"))) is None
    assert empty.error == "the conversation has no assistant turn to judge" and not empty.is_successful()
