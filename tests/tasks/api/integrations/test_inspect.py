"""debate-eval's judges as inspect_ai scorers, against the real library: ``inspect_ai.eval`` with inspect's
``mockllm`` model as the solver and the debate judge (scripted provider) as the scorer; ``inspect score`` on a
saved log through the registered name; epochs; the pairwise scorer with swap."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from support.integrations import integration_library

import debate_eval

integration_library("inspect_ai", "inspect")
from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model  # noqa: E402
from inspect_ai.solver import generate  # noqa: E402

from debate_eval.integrations.inspect import debate_judge, debate_judge_pairwise  # noqa: E402

JUDGE = {"aspect": "coherence", "criteria": "Is the summary coherent?", "provider": "scripted", "max_rounds": 1}
ARTICLES = [f"The council met on day {i} and approved the budget for the new library." for i in (1, 2, 3)]


def mock_model() -> Model:
    """inspect's mockllm model answering a summary of each input (its token counts given: counting them
    would download tiktoken's encoding)."""

    def answer(messages: list[Any], *args: Any) -> ModelOutput:
        output = ModelOutput.from_content("mockllm/model", "Summary: " + messages[-1].text.split(" and ")[0] + ".")
        output.usage = ModelUsage(input_tokens=20, output_tokens=8, total_tokens=28)
        return output

    return get_model("mockllm/model", custom_outputs=answer)


def samples() -> list[Sample]:
    return [
        Sample(id=i, input=text, target="The council approved the budget.", metadata={"baseline": "No summary."})
        for i, text in enumerate(ARTICLES, 1)
    ]


def test_an_eval_with_the_debate_judge_as_scorer(isolated_env: Path) -> None:
    task = Task(dataset=samples(), solver=generate(), scorer=debate_judge(**JUDGE))
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    assert log.status == "success" and log.samples is not None and len(log.samples) == 3
    with debate_eval.Judge(**JUDGE) as judge:  # the same judgments, straight from the Judge
        for sample in log.samples:
            assert sample.scores is not None
            score = sample.scores["debate_judge"]
            direct = judge.score(sample.output.completion, source=str(sample.input), reference=str(sample.target))
            assert direct.score is not None and score.value == direct.score and score.answer == f"{direct.score:g}"
            assert score.explanation == direct.rationale and score.explanation
            metadata = score.metadata or {}
            assert metadata["rounds"] == 1 and metadata["parse_status"] == "parsed" and metadata["agreed"] is False
            assert metadata["prompt_tokens"] == direct.prompt_tokens > 0 and metadata["seed"] == 453
            agents = [entry["agent"] for entry in metadata["transcript"]]
            assert agents == [m.agent for m in direct.messages] and "Critic" in agents
            # the judged output was the solver's completion, the source the sample's input
            assert sample.output.completion in metadata["transcript"][0]["content"]
            assert str(sample.input) in metadata["transcript"][0]["content"]
    assert log.results is not None
    mean = log.results.scores[0].metrics["mean"].value
    assert mean == pytest.approx(sum(s.scores["debate_judge"].value for s in log.samples if s.scores) / 3)
    # the log on disk holds every sample's score and explanation
    saved = read_eval_log(log.location)
    assert saved.samples is not None
    assert all(s.scores and s.scores["debate_judge"].explanation for s in saved.samples)


def test_epochs_are_fresh_seeded_samples_reduced_by_inspect(isolated_env: Path) -> None:
    task = Task(
        dataset=samples()[:2],
        solver=generate(),
        scorer=debate_judge(**JUDGE, value="normalized"),
        epochs=3,
        epochs_reducer="mean",
    )
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    assert log.samples is not None and len(log.samples) == 6
    for sample in log.samples:
        metadata = sample.scores["debate_judge"].metadata or {}
        assert metadata["seed"] == 452 + sample.epoch and metadata["epoch"] == sample.epoch
        assert metadata["cached_calls"] == 0  # every epoch asked the model, not the response cache
        assert 0.0 <= sample.scores["debate_judge"].value <= 1.0
        assert sample.scores["debate_judge"].value == metadata["normalized_score"]
    assert log.reductions is not None and log.reductions[0].reducer == "mean"
    assert len(log.reductions[0].samples) == 2


def test_the_pairwise_scorer_compares_with_the_baseline_both_ways(isolated_env: Path) -> None:
    judge = debate_judge_pairwise(aspect="helpfulness", provider="scripted", max_rounds=1)
    task = Task(dataset=samples()[:2], solver=generate(), scorer=judge)
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    assert log.samples is not None
    with debate_eval.Judge(aspect="helpfulness", provider="scripted", max_rounds=1) as direct_judge:
        for sample in log.samples:
            score = sample.scores["debate_judge_pairwise"]
            direct = direct_judge.compare(
                sample.output.completion, "No summary.", question=str(sample.input), swap=True
            )
            assert score.answer == direct.verdict and len(score.metadata["verdicts"]) == 2
            assert score.value == {"first": 1.0, "second": 0.0, "tie": 0.5}[direct.verdict]
            assert score.metadata["consistent"] == direct.consistent
            assert "No summary." in score.metadata["transcript"][0]["content"]


def test_inspect_score_finds_the_registered_scorer(isolated_env: Path) -> None:
    task = Task(dataset=samples()[:2], solver=generate())
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none", score=False)
    command = [sys.executable, "-m", "inspect_ai", "score", log.location, "--scorer", "debate_eval/debate_judge"]
    for key, value in JUDGE.items():
        command += ["-S", f"{key}={value}"]
    command += ["--output-file", "scored.eval", "--display", "none"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=dict(os.environ), check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    scored = read_eval_log("scored.eval")
    assert scored.samples is not None and len(scored.samples) == 2
    with debate_eval.Judge(**JUDGE) as judge:
        for sample in scored.samples:
            assert sample.scores is not None
            (score,) = sample.scores.values()
            direct = judge.score(sample.output.completion, source=str(sample.input), reference=str(sample.target))
            assert score.value == direct.score and score.explanation == direct.rationale


def test_an_unparsable_judgment_is_unscored_and_left_out_of_the_mean(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from debate_eval.agents.models.providers import scripted_server

    replies = dict(scripted_server.DEFAULT_REPLIES)
    replies["scorer"] = "I would rather not say."
    monkeypatch.setattr(scripted_server, "DEFAULT_REPLIES", replies)
    task = Task(dataset=samples()[:1], solver=generate(), scorer=debate_judge(**JUDGE))
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    assert log.samples is not None
    score = log.samples[0].scores["debate_judge"]
    assert score.reason == "grader_failed" and score.metadata["parse_status"] != "parsed"
    assert log.results is not None and log.results.scores[0].unscored_samples == 1


def grader_model(name: str = "mockllm/grader") -> Model:
    """A mockllm grader: the Critic (the Devil's Advocate) finds no issue, the Scorer answers 4; each call
    reports 100 prompt tokens (30 read from a prompt cache) and 10 completion tokens."""

    def answer(messages: list[Any], *args: Any) -> ModelOutput:
        text = " ".join(message.text for message in messages)
        output = ModelOutput.from_content(name, "NO_ISSUES" if "Devil" in text else "Coherent.\nScore: 4")
        output.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110, input_tokens_cache_read=30)
        return output

    return get_model(name, custom_outputs=answer)


NATIVE = {"aspect": "coherence", "criteria": "Is the summary coherent?", "max_rounds": 1}


def test_a_grader_model_role_makes_the_judge_s_calls_inspect_model_events(isolated_env: Path) -> None:
    task = Task(
        dataset=samples()[:2],
        solver=generate(),
        scorer=debate_judge(**NATIVE, model_role="grader"),
        model_roles={"grader": grader_model()},
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    assert not [w for w in caught if "solver's" in str(w.message)]  # the grader is not the solver: no warning
    assert log.status == "success" and log.samples is not None
    for sample in log.samples:
        calls = [event for event in sample.events if event.event == "model"]
        # the solver's call, then the Scorer's and the Critic's (NO_ISSUES ends the debate) as the grader's
        assert [str(event.model) for event in calls] == ["mockllm/model", "mockllm/grader", "mockllm/grader"]
        assert all(event.output.usage is not None and event.output.usage.input_tokens == 100 for event in calls[1:])
        score = sample.scores["debate_judge"]
        assert score.value == 4.0 and score.metadata["grader_is_subject"] is False
        assert score.metadata["prompt_tokens"] == 200 and score.metadata["completion_tokens"] == 20
        assert score.metadata["stop_reason"] is not None and score.metadata["rounds"] == 1
    usage = log.stats.model_usage["mockllm/grader"]  # 2 samples x 2 calls, as each call reported them
    assert (usage.input_tokens, usage.output_tokens, usage.input_tokens_cache_read) == (400, 40, 120)
    assert log.eval.model_roles is not None and str(log.eval.model_roles["grader"].model) == "mockllm/grader"


def test_the_judge_s_roles_on_different_inspect_models_and_a_model_object(isolated_env: Path) -> None:
    roles = {"scorer": "grader", "critic": "critic"}
    task = Task(
        dataset=samples()[:1],
        solver=generate(),
        scorer=debate_judge(**NATIVE, model_role=roles),
        model_roles={"grader": grader_model(), "critic": grader_model("mockllm/critic")},
    )
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    calls = [str(event.model) for event in log.samples[0].events if event.event == "model"]
    assert calls == ["mockllm/model", "mockllm/grader", "mockllm/critic"]
    task = Task(dataset=samples()[:1], solver=generate(), scorer=debate_judge(**NATIVE, model=grader_model()))
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    calls = [str(event.model) for event in log.samples[0].events if event.event == "model"]
    assert calls == ["mockllm/model", "mockllm/grader", "mockllm/grader"]
    assert log.samples[0].scores["debate_judge"].value == 4.0


def test_a_grader_that_is_the_solver_is_flagged(isolated_env: Path) -> None:
    """No model bound to the role: inspect's ``get_model(role=...)`` gives the eval's model, the solver's."""
    solver_and_grader = grader_model("mockllm/model")
    task = Task(dataset=samples()[:1], solver=generate(), scorer=debate_judge(**NATIVE, model_role="grader"))
    with pytest.warns(UserWarning, match="the judge's model is the solver's"):
        (log,) = eval(task, model=solver_and_grader, log_dir="logs", display="none")
    assert log.samples[0].scores["debate_judge"].metadata["grader_is_subject"] is True


def test_without_the_keywords_the_judge_keeps_its_own_clients(isolated_env: Path) -> None:
    task = Task(dataset=samples()[:1], solver=generate(), scorer=debate_judge(**JUDGE))
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    calls = [event for event in log.samples[0].events if event.event == "model"]
    assert [str(event.model) for event in calls] == ["mockllm/model"]  # the judge's calls are the scripted server's
    assert set(log.stats.model_usage) == {"mockllm/model"}
    assert log.samples[0].scores["debate_judge"].metadata["grader_is_subject"] is False
    with pytest.raises(debate_eval.UserError, match="model_role or model/provider"):
        debate_judge(**JUDGE, model_role="grader")


def test_a_missing_metadata_key_is_refused_in_one_line(isolated_env: Path) -> None:
    task = Task(dataset=samples()[:1], solver=generate(), scorer=debate_judge(**JUDGE, context="metadata.ctx"))
    (log,) = eval(task, model=mock_model(), log_dir="logs", display="none")
    assert log.status == "error" and log.error is not None
    assert "context='metadata.ctx': sample 1 has no metadata 'ctx'" in log.error.message
