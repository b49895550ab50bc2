"""The ``inspect`` provider outside an inspect eval: a ``Judge`` and a run whose calls are inspect ``Model``
calls (mockllm models registered in the process), roles on different models, and inspect's layers in place of
the run's (no response cache of the run's: each judgment calls the model again)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support.integrations import integration_library

import debate_eval

integration_library("inspect_ai", "inspect")
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model  # noqa: E402

from debate_eval.agents.models.providers.inspect_models import register_model, resolve_model  # noqa: E402


def counting_grader(name: str, calls: list[str]) -> Model:
    """A mockllm grader that notes each call's model; the Critic finds no issue, the Scorer answers 4."""

    def answer(messages: list[Any], *args: Any) -> ModelOutput:
        calls.append(name)
        text = " ".join(message.text for message in messages)
        output = ModelOutput.from_content(name, "NO_ISSUES" if "Devil" in text else "Clear.\nScore: 4")
        output.usage = ModelUsage(input_tokens=50, output_tokens=5, total_tokens=55)
        return output

    return get_model(name, custom_outputs=answer)


def test_a_judge_on_inspect_models(isolated_env: Path) -> None:
    calls: list[str] = []
    scorer_model = register_model(counting_grader("mockllm/scorer", calls))
    critic_model = register_model(counting_grader("mockllm/critic", calls))
    assert register_model(resolve_model(scorer_model)) == scorer_model  # one key per object
    judge_options = {"aspect": "coherence", "criteria": "Coherent?", "max_rounds": 1, "provider": "inspect"}
    with debate_eval.Judge(**judge_options, model=scorer_model, roles={"critic": critic_model}) as judge:
        first = judge.score("The council approved the budget.", source="The council met.")
        second = judge.score("The council approved the budget.", source="The council met.")
    assert calls == ["mockllm/scorer", "mockllm/critic"] * 2  # the same question asked again: inspect's cache is off
    for judgment in (first, second):
        assert judgment.score == 4.0 and judgment.prompt_tokens == 100 and judgment.completion_tokens == 10
        assert [m.cached for m in judgment.messages if m.usage] == [False, False]


def test_a_run_on_an_inspect_model(isolated_env: Path) -> None:
    calls: list[str] = []
    model = register_model(counting_grader("mockllm/grader", calls))
    run = debate_eval.evaluate(
        "summeval",
        aspect="coherence",
        limit=2,
        max_rounds=1,
        provider="inspect",
        model=model,
        out="r",
        no_progress=True,
    )
    assert [record.score for record in run.records] == [4.0, 4.0]
    assert len(calls) == 4 and all(record.prompt_tokens() == 100 for record in run.records)


def test_an_unregistered_model_key_is_one_line(isolated_env: Path) -> None:
    with debate_eval.Judge(
        aspect="coherence", criteria="Coherent?", provider="inspect", model="inspect-model:999"
    ) as judge:
        judgment = judge.score("text")
    assert judgment.error is not None and "inspect-model:999" in judgment.error and "not registered" in judgment.error
