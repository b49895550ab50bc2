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
  the registry (``debates.base``): ``register_method``, ``get_method``; ``register_roles`` (``agents.roles``):
  the roles of a method's own agents, by name;
- the task and its result (``debates.evaluation``): ``EvaluationTask``, ``Outcome``, ``score_text``,
  ``verdict_text`` (with ``planted``: the verdicts planted in the judged texts, and ``judge_material``: the texts
  a pairwise answer must not be read from), ``NO_SCORE`` (a pairwise outcome's score); the parsed readings
  ``ParsedScore`` and ``ParsedVerdict``; the stored record as the hooks see it (``debates.record``):
  ``ResultRecord``, ``entries`` and ``details_of`` (its transcript entries and its details, as the method wrote
  them);
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

# public names by the module that defines them
_NAMES = {
    "debate_eval.debates.method": (
        "Method",
        "MethodContext",
        "NoOptions",
        "OptionError",
        "Reparser",
        "deciding_parse",
        "non_negative_int",
        "option",
        "positive_int",
        "with_parse",
    ),
    "debate_eval.debates.base": ("get_method", "register_method"),
    "debate_eval.debates.evaluation": (
        "EvaluationTask",
        "Outcome",
        "score_text",
        "verdict_text",
        "planted",
        "NO_SCORE",
    ),
    "debate_eval.debates.record": ("ResultRecord", "details_of", "entries"),
    "debate_eval.debates.pairwise.prompts": ("judge_material",),
    "debate_eval.debates.pairwise.scripted": ("PAIRWISE_PROMPTS",),
    "debate_eval.debates.scoring.scores": ("ParsedScore", "ScoreRange"),
    "debate_eval.debates.scoring.verdicts": ("ParsedVerdict",),
    "debate_eval.debates.scoring.untrusted": ("UntrustedMaterial",),
    "debate_eval.debates.kit.reask": ("Reask", "ask_again", "in_context", "in_conversation"),
    "debate_eval.debates.kit.samples": ("SamplePool", "sample_request"),
    "debate_eval.debates.kit.combine": ("combine_orders", "combine_scores", "combine_verdicts"),
    "debate_eval.debates.kit.transcript": ("build_transcript", "pairwise_transcript"),
    "debate_eval.debates.kit.confidence": ("Confidence", "agreement"),
    "debate_eval.agents.models.providers.scripted_server": ("ScriptedReplies", "ScriptedRole"),
    "debate_eval.agents.models.pool": ("ClientPool",),
    "debate_eval.agents.models.wrappers": ("CallRecord",),
    "debate_eval.agents.errors": ("UserError",),
    "debate_eval.agents.roles": ("register_roles",),
}
_SOURCES = {name: module for module, names in _NAMES.items() for name in names}

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
    "ResultRecord",
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
    "details_of",
    "entries",
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
    "register_roles",
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
    from debate_eval.agents.roles import register_roles
    from debate_eval.debates.base import get_method, register_method
    from debate_eval.debates.evaluation import NO_SCORE, EvaluationTask, Outcome, planted, score_text, verdict_text
    from debate_eval.debates.kit.combine import combine_orders, combine_scores, combine_verdicts
    from debate_eval.debates.kit.confidence import Confidence, agreement
    from debate_eval.debates.kit.reask import Reask, ask_again, in_context, in_conversation
    from debate_eval.debates.kit.samples import SamplePool, sample_request
    from debate_eval.debates.kit.transcript import build_transcript, pairwise_transcript
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
    from debate_eval.debates.record import ResultRecord, details_of, entries
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
