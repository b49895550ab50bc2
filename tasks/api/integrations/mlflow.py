"""A debate-eval judge as an MLflow GenAI scorer (``mlflow.genai``; MLflow 3, ``mlflow-skinny`` is enough).

``debate_scorer(method=..., aspect=..., criteria=..., scale=..., **judge options)`` is a scorer for
``mlflow.genai.evaluate(data=..., scorers=[...])`` and for MLflow's production monitoring. It reads the fields
MLflow passes: the judged output from ``outputs`` (a text, or the field ``output=`` names of a dict: by default
``response``, ``output``, ``answer``, ``text`` or its only text field), the source from ``inputs`` (the field
``source=`` names, by default ``question``, ``query``, ``input``, ``prompt``, ``request`` or its only field; a
dict of several fields with none of these names is shown as ``name: value`` lines), the reference from
``expectations`` (``expected_response``, MLflow's name, or ``reference=``), and a context when ``context=``
names a field of ``inputs``.

It returns MLflow's ``Feedback``: ``value`` the judge's score on its scale (``value="normalized"``: mapped to
[0, 1]), ``rationale`` the deciding answer, ``source`` an LLM judge named by method and model, ``metadata`` the
judgment's facts (as text, as MLflow keeps them); a judgment without a score is a ``Feedback`` with its
``error``. The judgment is an ``EVALUATOR`` span of the current MLflow trace (the one MLflow's evaluation or
monitoring opened), with each model call of the debate as a ``CHAT_MODEL`` child span carrying its role, answer
and token usage. The call spans are written when the judgment is done (the judge's calls run on its own event
loop), so their start and end times are not the calls' own.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from debate_eval.integrations import require

require("mlflow", "mlflow")

import mlflow  # noqa: E402
from mlflow.entities import AssessmentSource, AssessmentSourceType, Feedback, SpanType  # noqa: E402
from mlflow.genai.scorers import scorer  # noqa: E402
from mlflow.tracing.constant import SpanAttributeKey, TokenUsageKey  # noqa: E402

from debate_eval._judge import Judge, Judgment  # noqa: E402
from debate_eval.agents.errors import UserError  # noqa: E402
from debate_eval.integrations._common import judgment_metadata  # noqa: E402

OUTPUT_FIELDS = ("response", "output", "answer", "text", "content")
SOURCE_FIELDS = ("question", "query", "input", "prompt", "request", "source")
REFERENCE_FIELDS = ("expected_response", "reference", "expected_output", "expected_answer")
VALUES = ("raw", "normalized")


def field_text(value: Any, name: str | None, defaults: Sequence[str], what: str) -> str | None:
    """The text of one MLflow field: a text as it is; of a dict, the field ``name`` (a missing one is a
    one-line ``UserError``), else the first of ``defaults`` it has, else its only field, else its fields as
    ``name: value`` lines; other values as JSON. None: no value."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        if name is not None:
            if name not in value:
                raise UserError(
                    f"debate_scorer: {what} has no field {name!r} (its fields: {', '.join(map(str, value))})"
                )
            return _text(value[name])
        for key in defaults:
            if key in value:
                return _text(value[key])
        if len(value) == 1:
            return _text(next(iter(value.values())))
        return "\n".join(f"{key}: {_text(item)}" for key, item in value.items())
    return _text(value)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def debate_scorer(
    method: str = "debate",
    aspect: str = "coherence",
    criteria: str | None = None,
    scale: Sequence[float] | str | None = (1, 5),
    *,
    name: str | None = None,
    output: str | None = None,
    source: str | None = None,
    reference: str | None = None,
    context: str | None = None,
    value: str = "raw",
    **judge_options: Any,
) -> Any:
    """An MLflow GenAI scorer judging each row's output with a debate-eval judge (``method``, ``aspect``,
    ``criteria``, ``scale`` and any other ``debate_eval.Judge`` keyword). ``name``: the scorer's (default
    ``debate_<aspect>``); ``output``, ``source``, ``reference``, ``context``: which field of ``outputs``,
    ``inputs``, ``expectations`` and ``inputs`` to read (see the module doc); ``value``: ``raw`` (the score on
    its scale) or ``normalized``. The judge is built once, here (bad options fail now)."""
    if value not in VALUES:
        raise UserError(f"debate_scorer: value={value!r}: use raw or normalized")
    scale_option = list(scale) if isinstance(scale, tuple) else scale
    judge = Judge(method=method, aspect=aspect, criteria=criteria, scale=scale_option, **judge_options)
    model = str(judge_options.get("model") or judge_options.get("provider") or "default")
    judge_source = AssessmentSource(
        source_type=AssessmentSourceType.LLM_JUDGE, source_id=f"debate-eval/{method}/{model}"
    )
    scorer_name = name or f"debate_{aspect}"

    def debate(inputs: Any = None, outputs: Any = None, expectations: Any = None) -> Feedback:
        judged = field_text(outputs, output, OUTPUT_FIELDS, "outputs") or ""
        texts = {
            "source": field_text(inputs, source, SOURCE_FIELDS, "inputs"),
            "reference": field_text(expectations, reference, REFERENCE_FIELDS, "expectations"),
            "context": field_text(inputs, context, (), "inputs") if context is not None else None,
        }
        with mlflow.start_span(name=f"debate_eval {method} {aspect}", span_type=SpanType.EVALUATOR) as span:
            span.set_inputs({"output": judged, **{k: v for k, v in texts.items() if v is not None}})
            judgment = judge.score(judged, **texts)
            model_call_spans(judgment)
            span.set_outputs({"score": judgment.score, "rationale": judgment.rationale})
        return feedback(judgment, scorer_name, judge_source, value)

    return scorer(debate, name=scorer_name)


def model_call_spans(judgment: Judgment) -> None:
    """One ``CHAT_MODEL`` child span per model call of the judgment (under the current span): its agent, its
    answer, its token usage and whether the response cache answered it."""
    for message in judgment.messages:
        if not message.usage:
            continue
        with mlflow.start_span(name=f"{message.agent} call", span_type=SpanType.CHAT_MODEL) as call:
            call.set_inputs({"agent": message.agent, "role": message.role})
            call.set_outputs(message.content)
            prompt = int(message.usage.get("prompt_tokens") or 0)
            completion = int(message.usage.get("completion_tokens") or 0)
            usage = {
                TokenUsageKey.INPUT_TOKENS: prompt,
                TokenUsageKey.OUTPUT_TOKENS: completion,
                TokenUsageKey.TOTAL_TOKENS: prompt + completion,
            }
            call.set_attributes({SpanAttributeKey.CHAT_USAGE: usage, "debate_eval.cached": message.cached})


def feedback(judgment: Judgment, name: str, source: AssessmentSource, value: str = "raw") -> Feedback:
    """MLflow's ``Feedback`` of a judgment: the score (or an error when there is none), the deciding answer,
    the judgment's facts as text metadata."""
    facts = judgment_metadata(judgment, transcript=False)
    metadata = {key: _text(item) for key, item in facts.items() if item is not None}
    number = judgment.score if value == "raw" else judgment.normalized_score
    if number is None or math.isnan(number):
        why = judgment.error or judgment.parse_reason or "no score"
        return Feedback(name=name, error=f"debate-eval: no score ({why})", source=source, metadata=metadata)
    return Feedback(name=name, value=number, rationale=judgment.rationale, source=source, metadata=metadata)
