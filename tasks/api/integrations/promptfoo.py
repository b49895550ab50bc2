"""A debate-eval judge in promptfoo (no extra: promptfoo calls Python through files of yours).

- ``get_assert(output, context)``: a ``type: python`` assertion. The judge's keywords (``method``, ``aspect``,
  ``criteria``, ``scale``, ``model``, ``provider``, ``max_rounds``, ...: ``debate_eval.Judge``'s) come from the
  assertion's ``config``, with ``threshold`` (default 0.5, on the score mapped to [0, 1]) and ``inputs`` (a map
  from ``source``/``reference``/``context`` to other var names); the judged inputs come from the test's
  ``vars`` (``source``, ``reference``, ``context``). Returns promptfoo's grading result ``{pass, score,
  reason}``: the normalised score, whether it reached the threshold, and the deciding answer.
- ``call_api(prompt, options, context)``: a Python provider to use as the grading provider of ``llm-rubric``,
  with the ``rubricPrompt`` of ``RUBRIC_PROMPT`` (a JSON object of the output and the rubric, which this reads
  back): the rubric becomes the judge's criteria; it answers the ``{pass, score, reason}`` JSON that
  ``llm-rubric`` expects. Judge keywords come from the provider's ``config``.

One ``Judge`` per distinct configuration is kept for the life of the Python process.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

from debate_eval._judge import Judge, Judgment
from debate_eval.agents.errors import UserError

INPUTS = ("source", "reference", "context")
# llm-rubric's rubricPrompt for call_api: promptfoo renders it (nunjucks) into the JSON this reads back
RUBRIC_PROMPT = '{"output": {{ output | dump }}, "rubric": {{ rubric | dump }}}'
_OWN_KEYS = {"threshold", "inputs"}
_JUDGES: dict[str, Judge] = {}
_LOCK = threading.Lock()


def judge_for(config: Mapping[str, Any] | None) -> Judge:
    """The process's ``Judge`` for the judge keywords of ``config`` (built at the first use of them)."""
    keywords = {key: value for key, value in dict(config or {}).items() if key not in _OWN_KEYS}
    key = json.dumps(keywords, sort_keys=True, default=str)
    with _LOCK:
        found = _JUDGES.get(key)
        if found is None:
            found = _JUDGES[key] = Judge(**keywords)
        return found


def grading_result(judgment: Judgment, threshold: float) -> dict[str, Any]:
    """promptfoo's ``{pass, score, reason}`` of a judgment (no score: fails, score 0, the reason why)."""
    if not judgment.ok or judgment.normalized_score is None:
        why = judgment.error or judgment.parse_reason or "no score"
        return {"pass": False, "score": 0.0, "reason": f"debate-eval: no score ({why})"}
    score = judgment.normalized_score
    scale = f"{judgment.score:g} on {judgment.scale[0]:g}-{judgment.scale[1]:g}"
    reason = f"{judgment.method} {judgment.aspect}: {scale}. {judgment.rationale or ''}".strip()
    return {"pass": score >= threshold, "score": score, "reason": reason}


def get_assert(output: Any, context: Mapping[str, Any]) -> dict[str, Any]:
    """promptfoo's Python assertion: judge ``output`` with the judge of ``context["config"]``, the inputs from
    ``context["vars"]`` (see the module doc)."""
    config = dict(context.get("config") or {})
    variables = dict(context.get("vars") or {})
    names = {name: name for name in INPUTS} | dict(config.get("inputs") or {})
    unknown = sorted(set(names) - set(INPUTS))
    if unknown:
        raise UserError(f"promptfoo config inputs: unknown name(s) {', '.join(unknown)}; use {', '.join(INPUTS)}")
    inputs = {name: _text(variables.get(var)) for name, var in names.items()}
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    judgment = judge_for(config).score(text, **inputs)
    return grading_result(judgment, float(config.get("threshold", 0.5)))


def call_api(prompt: str, options: Mapping[str, Any] | None = None, context: Any = None) -> dict[str, Any]:
    """promptfoo's Python provider, as ``llm-rubric``'s grading provider with ``rubricPrompt`` set to
    ``RUBRIC_PROMPT``: the output judged against the rubric as criteria; the answer is the grading JSON."""
    config = dict(dict(options or {}).get("config") or {})
    try:
        request = json.loads(prompt)
        output, rubric = str(request["output"]), str(request["rubric"])
    except (ValueError, KeyError, TypeError):
        return {
            "error": "debate-eval grading provider: set rubricPrompt to debate_eval.integrations.promptfoo's "
            "RUBRIC_PROMPT (a JSON object of output and rubric)"
        }
    judgment = judge_for({**config, "criteria": rubric}).score(output)
    result = grading_result(judgment, float(config.get("threshold", 0.5)))
    return {"output": json.dumps(result), "tokenUsage": _usage(judgment)}


def _usage(judgment: Judgment) -> dict[str, int]:
    total = judgment.prompt_tokens + judgment.completion_tokens
    return {"prompt": judgment.prompt_tokens, "completion": judgment.completion_tokens, "total": total}


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
