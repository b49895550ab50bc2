"""The public method kit: everything a method needs, built-in or from a plugin, under one name.

A method is a ``Method`` subclass in a folder (or a plugin's module) of its own::

    from debate_eval.debates import EvaluationTask, Method, Outcome, option, register_method

    @dataclass(frozen=True)
    class Options:
        rounds: int = option(2, help="the most rounds (default 2)", convert=positive_int)

    @register_method
    class Mine(Method[MyConfig]):
        name, description, Options = "mine", "one line for `debate-eval methods`", Options
        def build_config(self, options, ctx): ...
        async def judge(self, task, config, pool): ...            # single tasks
        async def judge_pair(self, task, config, pool): ...       # pairwise tasks

- the contract (``debates.method``): ``Method``, ``option`` and its converters, ``MethodContext``, ``Reparser``;
  the registry (``debates.base``): ``register_method``, ``get_method``;
- the task and its result (``debates.evaluation``): ``EvaluationTask``, ``Outcome``, ``score_text``,
  ``verdict_text`` (with ``planted``: the verdicts planted in the judged texts, and ``judge_material``: the texts
  a pairwise answer must not be read from), ``NO_SCORE`` (a pairwise outcome's score); the parsed readings
  ``ParsedScore`` and ``ParsedVerdict``;
- the helpers (``debates.kit``): asking again for a missing score or verdict (``Reask``, ``ask_again``,
  ``in_context``, ``in_conversation``), K samples of a judge (``SamplePool``, ``sample_request``), combining
  scores and verdicts (``combine_scores``, ``combine_verdicts``, ``combine_orders``), transcripts
  (``build_transcript``, ``pairwise_transcript``), the method's canned replies for offline runs
  (``ScriptedReplies``, ``ScriptedRole``; ``PAIRWISE_PROMPTS`` marks the project's pairwise prompts); how sure
  a judgment is (``Confidence``, returned by ``Method.confidence``; ``agreement``: the share of votes for the
  most common answer);
- the model layer a method calls (``ClientPool``, ``CallRecord``) and ``UserError`` for bad input.

Names load on first use: ``from debate_eval.debates import option`` does not import AutoGen (the names that
need it, the transcripts and the model layer, load it when asked for), so a method's ``Options`` can be read
while the command line is built without loading its implementation.

The rest of the package: one folder per method (``debate/``, ``geval/``, ``chateval/``, ...), ``pairwise/``
(the project's pairwise prompts and ``--swap``), ``scoring/`` (score and verdict parsers, untrusted text),
``group_chat`` (the debate's team).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it
_SOURCES = {
    "Method": "debate_eval.debates.method",
    "MethodContext": "debate_eval.debates.method",
    "NoOptions": "debate_eval.debates.method",
    "OptionError": "debate_eval.debates.method",
    "Reparser": "debate_eval.debates.method",
    "deciding_parse": "debate_eval.debates.method",
    "non_negative_int": "debate_eval.debates.method",
    "option": "debate_eval.debates.method",
    "positive_int": "debate_eval.debates.method",
    "with_parse": "debate_eval.debates.method",
    "get_method": "debate_eval.debates.base",
    "register_method": "debate_eval.debates.base",
    "EvaluationTask": "debate_eval.debates.evaluation",
    "Outcome": "debate_eval.debates.evaluation",
    "score_text": "debate_eval.debates.evaluation",
    "verdict_text": "debate_eval.debates.evaluation",
    "planted": "debate_eval.debates.evaluation",
    "NO_SCORE": "debate_eval.debates.evaluation",
    "judge_material": "debate_eval.debates.pairwise.prompts",
    "PAIRWISE_PROMPTS": "debate_eval.debates.pairwise.scripted",
    "ParsedScore": "debate_eval.debates.scoring.scores",
    "ScoreRange": "debate_eval.debates.scoring.scores",
    "ParsedVerdict": "debate_eval.debates.scoring.verdicts",
    "UntrustedMaterial": "debate_eval.debates.scoring.untrusted",
    "Reask": "debate_eval.debates.kit.reask",
    "ask_again": "debate_eval.debates.kit.reask",
    "in_context": "debate_eval.debates.kit.reask",
    "in_conversation": "debate_eval.debates.kit.reask",
    "SamplePool": "debate_eval.debates.kit.samples",
    "sample_request": "debate_eval.debates.kit.samples",
    "combine_orders": "debate_eval.debates.kit.combine",
    "combine_scores": "debate_eval.debates.kit.combine",
    "combine_verdicts": "debate_eval.debates.kit.combine",
    "build_transcript": "debate_eval.debates.kit.transcript",
    "Confidence": "debate_eval.debates.kit.confidence",
    "agreement": "debate_eval.debates.kit.confidence",
    "pairwise_transcript": "debate_eval.debates.kit.pairwise_transcript",
    "ScriptedReplies": "debate_eval.agents.models.providers.scripted_server",
    "ScriptedRole": "debate_eval.agents.models.providers.scripted_server",
    "ClientPool": "debate_eval.agents.models.pool",
    "CallRecord": "debate_eval.agents.models.wrappers",
    "UserError": "debate_eval.agents.errors",
}

__all__ = [
    "NO_SCORE",
    "PAIRWISE_PROMPTS",
    "CallRecord",
    "ClientPool",
    "Confidence",
    "EvaluationTask",
    "Method",
    "MethodContext",
    "NoOptions",
    "OptionError",
    "Outcome",
    "ParsedScore",
    "ParsedVerdict",
    "Reask",
    "Reparser",
    "SamplePool",
    "ScoreRange",
    "ScriptedReplies",
    "ScriptedRole",
    "UntrustedMaterial",
    "UserError",
    "agreement",
    "ask_again",
    "build_transcript",
    "combine_orders",
    "combine_scores",
    "combine_verdicts",
    "deciding_parse",
    "get_method",
    "in_context",
    "in_conversation",
    "judge_material",
    "non_negative_int",
    "option",
    "pairwise_transcript",
    "planted",
    "positive_int",
    "register_method",
    "sample_request",
    "score_text",
    "verdict_text",
    "with_parse",
]

if TYPE_CHECKING:  # what a type checker and an editor see; at run time each name loads on first use
    from debate_eval.agents.errors import UserError
    from debate_eval.agents.models.pool import ClientPool
    from debate_eval.agents.models.providers.scripted_server import ScriptedReplies, ScriptedRole
    from debate_eval.agents.models.wrappers import CallRecord
    from debate_eval.debates.base import get_method, register_method
    from debate_eval.debates.evaluation import NO_SCORE, EvaluationTask, Outcome, planted, score_text, verdict_text
    from debate_eval.debates.kit.combine import combine_orders, combine_scores, combine_verdicts
    from debate_eval.debates.kit.confidence import Confidence, agreement
    from debate_eval.debates.kit.pairwise_transcript import pairwise_transcript
    from debate_eval.debates.kit.reask import Reask, ask_again, in_context, in_conversation
    from debate_eval.debates.kit.samples import SamplePool, sample_request
    from debate_eval.debates.kit.transcript import build_transcript
    from debate_eval.debates.method import (
        Method,
        MethodContext,
        NoOptions,
        OptionError,
        Reparser,
        deciding_parse,
        non_negative_int,
        option,
        positive_int,
        with_parse,
    )
    from debate_eval.debates.pairwise.prompts import judge_material
    from debate_eval.debates.pairwise.scripted import PAIRWISE_PROMPTS
    from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange
    from debate_eval.debates.scoring.untrusted import UntrustedMaterial
    from debate_eval.debates.scoring.verdicts import ParsedVerdict


def __getattr__(name: str) -> Any:
    """Load a public name from its module on first use (PEP 562)."""
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES))
