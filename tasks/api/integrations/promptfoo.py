"""A debate-eval judge in promptfoo (no extra: promptfoo calls Python through files of yours).

- ``get_assert(output, context)``: a ``type: python`` assertion. The judge's keywords (``method``, ``aspect``,
  ``criteria``, ``scale``, ``model``, ``provider``, ``max_rounds``, ...: ``debate_eval.Judge``'s) come from the
  assertion's ``config``, with ``threshold`` (default 0.5, on the score mapped to [0, 1]) and ``inputs`` (a map
  from ``source``/``reference``/``context`` to other var names); the judged inputs come from the test's
  ``vars`` (``source``, ``reference``, ``context``). Returns promptfoo's grading result ``{pass, score,
  reason, tokensUsed}``: the normalised score, whether it reached the threshold, the deciding answer, and the
  judge's tokens.
- ``call_api(prompt, options, context)``: a Python provider to use as the grading provider of ``llm-rubric``,
  with the ``rubricPrompt`` of ``RUBRIC_PROMPT`` (a JSON object of the output and the rubric, which this reads
  back): the rubric becomes the judge's criteria; it answers the ``{pass, score, reason}`` JSON that
  ``llm-rubric`` expects, with ``tokenUsage`` and ``cost``. Judge keywords come from the provider's ``config``.

promptfoo puts keys of its own into a configuration (``basePath``, the folder of the config file, and the keys
its Python provider documents: ``pythonExecutable``, ``workers``, ``timeout`` in milliseconds,
``linkedTargetId``): they are left out, and only the judge's keywords are given to the ``Judge``. A key that is
neither promptfoo's nor a judge keyword fails as the ``Judge`` refuses it (with the nearest names). Bad input
(no context, a threshold that is no number, an unknown option) comes back in promptfoo's own failure shape with
a one-line reason: a failed grading result from ``get_assert``, an ``error`` from ``call_api``.

One ``Judge`` per distinct configuration is kept for the life of the Python process.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from typing import Any

from debate_eval._judge import Judge, Judgment
from debate_eval.agents.errors import UserError

INPUTS = ("source", "reference", "context")
# llm-rubric's rubricPrompt for call_api: promptfoo renders it (nunjucks) into the JSON this reads back
RUBRIC_PROMPT = '{"output": {{ output | dump }}, "rubric": {{ rubric | dump }}}'
# The keys of this module's own, read before the judge is built
OWN_KEYS = frozenset({"threshold", "inputs"})
# The keys promptfoo adds to, or documents for, a Python provider's config (and an assertion's basePath)
PROMPTFOO_KEYS = frozenset({"basePath", "pythonExecutable", "workers", "timeout", "linkedTargetId"})
_JUDGES: dict[str, Judge] = {}
_LOCK = threading.Lock()


def judge_keywords(config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The judge's keywords of a promptfoo ``config``: without this module's keys (``threshold``,
    ``inputs``) and promptfoo's own (``PROMPTFOO_KEYS``)."""
    return {str(k): v for k, v in dict(config or {}).items() if k not in OWN_KEYS and k not in PROMPTFOO_KEYS}


def judge_for(config: Mapping[str, Any] | None) -> Judge:
    """The process's ``Judge`` for the judge keywords of ``config`` (built at the first use of them)."""
    keywords = judge_keywords(config)
    key = json.dumps(keywords, sort_keys=True, default=str)
    with _LOCK:
        found = _JUDGES.get(key)
        if found is None:
            found = _JUDGES[key] = Judge(**keywords)
        return found


def threshold_of(config: Mapping[str, Any]) -> float:
    """The config's ``threshold`` (default 0.5): a number from 0 to 1, else a one-line ``UserError``."""
    value = config.get("threshold", 0.5)
    try:
        number = math.nan if isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not 0.0 <= number <= 1.0:  # NaN too
        raise UserError(f"promptfoo config threshold: expected a number from 0 to 1, got {value!r}")
    return number


def grading_result(judgment: Judgment, threshold: float) -> dict[str, Any]:
    """promptfoo's ``{pass, score, reason, tokensUsed}`` of a judgment (no score: fails, score 0, the reason
    why)."""
    if not judgment.ok or judgment.normalized_score is None:
        why = judgment.error or judgment.parse_reason or "no score"
        return {"pass": False, "score": 0.0, "reason": f"debate-eval: no score ({why})", "tokensUsed": usage(judgment)}
    score = judgment.normalized_score
    scale = f"{judgment.score:g} on {judgment.scale[0]:g}-{judgment.scale[1]:g}"
    reason = f"{judgment.method} {judgment.aspect}: {scale}. {judgment.rationale or ''}".strip()
    return {"pass": score >= threshold, "score": score, "reason": reason, "tokensUsed": usage(judgment)}


def failed(reason: str) -> dict[str, Any]:
    """A failed grading result: what promptfoo shows for an assertion that could not judge."""
    return {"pass": False, "score": 0.0, "reason": f"debate-eval: {reason}"}


def get_assert(output: Any, context: Mapping[str, Any] | None) -> dict[str, Any]:
    """promptfoo's Python assertion: judge ``output`` with the judge of ``context["config"]``, the inputs from
    ``context["vars"]`` (see the module doc). Bad input: a failed result with a one-line reason."""
    try:
        if not isinstance(context, Mapping):
            raise UserError(f"promptfoo assertion: expected promptfoo's context (a mapping), got {_kind(context)}")
        config = _mapping(context.get("config"), "promptfoo assertion config")
        variables = _mapping(context.get("vars"), "promptfoo test vars")
        names = {name: name for name in INPUTS} | dict(_mapping(config.get("inputs"), "promptfoo config inputs"))
        unknown = sorted(set(names) - set(INPUTS))
        if unknown:
            raise UserError(f"promptfoo config inputs: unknown name(s) {', '.join(unknown)}; use {', '.join(INPUTS)}")
        threshold = threshold_of(config)
        inputs = {name: _text(variables.get(var)) for name, var in names.items()}
        text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
        judgment = judge_for(config).score(text, **inputs)
    except UserError as error:
        return failed(str(error))
    return grading_result(judgment, threshold)


def call_api(prompt: str, options: Mapping[str, Any] | None = None, context: Any = None) -> dict[str, Any]:
    """promptfoo's Python provider, as ``llm-rubric``'s grading provider with ``rubricPrompt`` set to
    ``RUBRIC_PROMPT``: the output judged against the rubric as criteria; the answer is the grading JSON, with
    the judge's ``tokenUsage`` and ``cost``. Bad input: ``{"error": reason}`` in one line."""
    try:
        config = _mapping(_mapping(options, "promptfoo provider options").get("config"), "promptfoo provider config")
        try:
            request = json.loads(prompt)
            output, rubric = str(request["output"]), str(request["rubric"])
        except (ValueError, KeyError, TypeError):
            raise UserError(
                "debate-eval grading provider: set rubricPrompt to debate_eval.integrations.promptfoo's "
                "RUBRIC_PROMPT (a JSON object of output and rubric)"
            ) from None
        threshold = threshold_of(config)
        judgment = judge_for({**config, "criteria": rubric}).score(output)
    except UserError as error:
        return {"error": str(error)}
    answer: dict[str, Any] = {
        "output": json.dumps({k: v for k, v in grading_result(judgment, threshold).items() if k != "tokensUsed"}),
        "tokenUsage": usage(judgment),
    }
    if judgment.cost_usd is not None:
        answer["cost"] = judgment.cost_usd
    return answer


def usage(judgment: Judgment) -> dict[str, int]:
    """promptfoo's token usage of a judgment: ``total``, ``prompt``, ``completion`` (the judge's tokens),
    ``numRequests`` (its model calls) and ``cached`` (the tokens of those calls answered from the response
    cache)."""
    calls = [message for message in judgment.messages if message.usage]
    cached = sum(_tokens(message.usage) for message in calls if message.cached)
    total = judgment.prompt_tokens + judgment.completion_tokens
    return {
        "total": total,
        "prompt": judgment.prompt_tokens,
        "completion": judgment.completion_tokens,
        "numRequests": len(calls),
        "cached": cached,
    }


def _tokens(counts: Mapping[str, int] | None) -> int:
    counts = counts or {}
    return int(counts.get("prompt_tokens") or 0) + int(counts.get("completion_tokens") or 0)


def _mapping(value: Any, what: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise UserError(f"{what}: expected a mapping, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
