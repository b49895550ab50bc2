"""The MLflow GenAI scorer against the real library (mlflow-skinny, a file tracking store in the test's folder):
the fields MLflow passes read as texts, the Feedback, the judge's calls as child spans of MLflow's trace, and
``mlflow.genai.evaluate`` with the scorer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.integrations import integration_library

import debate_eval

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # mlflow imports LiteLLM when it is installed
integration_library("mlflow", "mlflow")
import mlflow  # noqa: E402
from mlflow.entities import Feedback  # noqa: E402

from debate_eval.integrations.mlflow import debate_scorer, field_text  # noqa: E402

JUDGE = {"aspect": "coherence", "criteria": "Is the answer coherent?", "provider": "scripted", "max_rounds": 1}
QUESTION, ANSWER, EXPECTED = "What did the council decide?", "The council approved the library budget.", "Approved."


@pytest.fixture
def tracking(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file tracking store in the test's folder (mlflow-skinny has no database backend)."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri((isolated_env / "mlruns").as_uri())
    return isolated_env


def test_the_fields_mlflow_passes_are_read_as_texts() -> None:
    assert field_text({"question": QUESTION, "user": "ann"}, None, ("question",), "inputs") == QUESTION
    assert field_text({"article": "A."}, None, ("question",), "inputs") == "A."  # its only field
    assert field_text({"a": "x", "b": 2}, None, ("question",), "inputs") == "a: x\nb: 2"  # not a dict's repr
    assert field_text({"a": "x"}, "a", (), "inputs") == "x" and field_text(None, None, (), "inputs") is None
    with pytest.raises(debate_eval.UserError, match="inputs has no field 'doc' \\(its fields: a\\)"):
        field_text({"a": "x"}, "doc", (), "inputs")


def test_the_scorer_s_feedback_and_its_spans(tracking: Path) -> None:
    scorer = debate_scorer(**JUDGE)
    with mlflow.start_span("app") as app:
        app.set_inputs({"question": QUESTION})
        result = scorer(
            inputs={"question": QUESTION}, outputs={"response": ANSWER}, expectations={"expected_response": EXPECTED}
        )
    with debate_eval.Judge(**JUDGE) as judge:
        direct = judge.score(ANSWER, source=QUESTION, reference=EXPECTED)
    assert isinstance(result, Feedback) and result.name == "debate_coherence"
    assert result.value == direct.score and result.rationale == direct.rationale
    assert result.source.source_type == "LLM_JUDGE" and result.source.source_id == "debate-eval/debate/scripted"
    assert result.metadata["rounds"] == "1" and result.metadata["prompt_tokens"] == str(direct.prompt_tokens)
    trace = mlflow.get_trace(mlflow.get_last_active_trace_id(), flush=True)
    spans = {span.span_id: span for span in trace.data.spans}
    (evaluator,) = [s for s in spans.values() if s.span_type == "EVALUATOR"]
    assert spans[evaluator.parent_id].name == "app"
    assert evaluator.inputs == {"output": ANSWER, "source": QUESTION, "reference": EXPECTED}
    calls = [s for s in spans.values() if s.parent_id == evaluator.span_id]
    answers = [m for m in direct.messages if m.usage]
    assert [s.name for s in calls] == [f"{m.agent} call" for m in answers] and all(
        s.span_type == "CHAT_MODEL" for s in calls
    )
    assert [s.outputs for s in calls] == [m.content for m in answers]
    usage = [s.attributes["mlflow.chat.tokenUsage"] for s in calls]
    assert [u["input_tokens"] for u in usage] == [m.usage["prompt_tokens"] for m in answers]
    assert sum(u["input_tokens"] + u["output_tokens"] for u in usage) == direct.prompt_tokens + direct.completion_tokens


def test_a_missing_score_is_a_feedback_error(tracking: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from debate_eval.agents.models.providers import scripted_server

    monkeypatch.setitem(scripted_server.DEFAULT_REPLIES, "scorer", "I would rather not say.")
    result = debate_scorer(**JUDGE, no_cache=True)(inputs=QUESTION, outputs=ANSWER)
    assert result.value is None and result.error is not None and "debate-eval: no score" in result.error.error_message


def test_mlflow_genai_evaluate_with_the_scorer(tracking: Path) -> None:
    data = [
        {"inputs": {"question": QUESTION}, "outputs": ANSWER, "expectations": {"expected_response": EXPECTED}},
        {
            "inputs": {"question": "Who met?"},
            "outputs": "The council met.",
            "expectations": {"expected_response": "It."},
        },
    ]
    result = mlflow.genai.evaluate(data=data, scorers=[debate_scorer(**JUDGE, value="normalized")])
    with debate_eval.Judge(**JUDGE) as judge:
        scores = [
            judge.score(
                row["outputs"], source=row["inputs"]["question"], reference=row["expectations"]["expected_response"]
            )
            for row in data
        ]
    expected = sum(s.normalized_score for s in scores) / len(scores)
    assert result.metrics["debate_coherence/mean"] == pytest.approx(expected)
