"""A debate-eval judge as a deepeval metric (extra ``deepeval``): ``DebateMetric``, a ``BaseMetric`` usable in
``deepeval.evaluate`` and ``assert_test``.

The test case's ``actual_output`` is judged, its ``input`` shown as the source, its ``expected_output`` as the
reference and its ``context`` (else ``retrieval_context``) as the context. ``score`` is the judge's score
mapped to [0, 1] (``normalized_score``: ``(score - low) / (high - low)`` on the judge's scale), ``reason`` the
deciding answer, and the test case passes when ``score >= threshold``. A judgment without a score sets
``error`` (the parse reason or the call's error), so the case fails.

``model=`` a deepeval model object (``DeepEvalBaseLLM``: deepeval's custom model) sends every call of the
debate through that object's ``a_generate`` (the ``deepeval`` model provider: each call's messages as one
prompt text). ``DebateConversationalMetric`` judges a ``ConversationalTestCase``: its last assistant turn is
the response judged, the turns before it the dialogue history (the source) and its ``context`` the knowledge
the response may use, as the dialogue methods (DEBATE and DialEvalML on Topical-Chat) read a dialogue.

deepeval re-creates a metric from its attributes for each run (``copy_metrics``); the copies share the
first instance's ``Judge`` (its client pool, response cache and rate limiters) through the ``judge`` keyword.
"""

from __future__ import annotations

import atexit
import contextlib
from collections.abc import Sequence
from typing import Any

from debate_eval.integrations import require

require("deepeval", "deepeval")

from deepeval.metrics import BaseConversationalMetric, BaseMetric  # noqa: E402
from deepeval.models import DeepEvalBaseLLM  # noqa: E402
from deepeval.test_case import ConversationalTestCase, LLMTestCase  # noqa: E402

from debate_eval._judge import Judge, Judgment  # noqa: E402
from debate_eval.agents.errors import UserError  # noqa: E402
from debate_eval.agents.models.providers.callable_models import register_model  # noqa: E402


def judge_keywords(options: dict[str, Any]) -> dict[str, Any]:
    """The judge's keywords, with ``model`` a deepeval model object sent through the ``deepeval`` provider."""
    model = options.get("model")
    if isinstance(model, DeepEvalBaseLLM):
        if options.get("provider") not in (None, "deepeval"):
            raise UserError("DebateMetric: model= a deepeval model object takes no provider=")
        return {**options, "provider": "deepeval", "model": register_model(model)}
    return options


def build_judge(method: str, aspect: str, criteria: str | None, scale: Any, options: dict[str, Any]) -> Judge:
    """A ``Judge`` for a metric (closed at exit)."""
    judge = Judge(method=method, aspect=aspect, criteria=criteria, scale=scale, **judge_keywords(options))
    atexit.register(_close, judge)
    return judge


def _metric_init(default_aspect: str, default_scale: tuple[float, float]) -> Any:
    """A metric's ``__init__`` with its own defaults: deepeval copies a metric by the names of its ``__init__``
    parameters, so both metrics keep the whole signature and share this body."""

    def __init__(
        self: _Judged,
        threshold: float = 0.5,
        method: str = "debate",
        aspect: str = default_aspect,
        criteria: str | None = None,
        scale: Sequence[float] | str | None = default_scale,
        *,
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: bool = False,
        verbose_mode: bool = False,
        judge: Judge | None = None,
        **judge_options: Any,
    ) -> None:
        """Keep the metric's arguments (deepeval copies a metric from them), its judge (``judge``, else one built
        from the arguments and ``judge_options``), and start with no judgment."""
        self.threshold = 1.0 if strict_mode else float(threshold)
        self.method, self.aspect, self.criteria = method, aspect, criteria
        self.scale = tuple(scale) if isinstance(scale, list) else scale
        self.include_reason, self.async_mode = include_reason, async_mode
        self.strict_mode, self.verbose_mode = strict_mode, verbose_mode
        self.judge = judge or build_judge(method, aspect, criteria, self.scale, judge_options)
        self.evaluation_model = f"debate-eval {method}"
        self.score, self.reason, self.success, self.error, self.judgment = None, None, None, None, None

    return __init__


class _Judged:
    """What both metrics keep of a judgment: score, reason, error, tokens, cost, success."""

    threshold: float
    include_reason: bool
    score: float | None
    reason: str | None
    error: str | None
    success: bool | None
    judgment: Judgment | None  # the last judgment, whole (rounds, transcript, tokens)

    def _take(self, judgment: Judgment) -> float | None:
        self.judgment = judgment
        self.score = judgment.normalized_score
        self.reason = judgment.rationale if self.include_reason else None
        self.error = None if judgment.ok else (judgment.error or judgment.parse_reason or "no score")
        self.input_tokens, self.output_tokens = judgment.prompt_tokens, judgment.completion_tokens
        self.evaluation_cost = judgment.cost_usd
        self.is_successful()
        return self.score

    def is_successful(self) -> bool:
        """Whether the last score reached the threshold (False without a score)."""
        self.success = self.error is None and self.score is not None and self.score >= self.threshold
        return self.success


class DebateMetric(_Judged, BaseMetric):
    """deepeval's metric interface over ``debate_eval.Judge``: ``DebateMetric(threshold=0.5, method=...,
    aspect=..., criteria=..., scale=(1, 5), **judge keywords)`` (``model``, ``provider``, ``roles``,
    ``max_rounds``, ...: every ``Judge`` keyword; ``model`` may be a deepeval ``DeepEvalBaseLLM``, whose
    ``a_generate`` then answers every call). ``judge``: an existing ``Judge`` to use instead of building one.
    ``strict_mode`` sets the threshold to 1."""

    __init__ = _metric_init("coherence", (1, 5))

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float | None:
        """Judge ``test_case`` and return the score in [0, 1] (None when no score could be read: ``error``)."""
        return self._take(self.judge.score(test_case.actual_output or "", **_inputs(test_case)))

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float | None:
        """``measure`` for deepeval's event loop."""
        return self._take(await self.judge.score_async(test_case.actual_output or "", **_inputs(test_case)))

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return f"DEBATE {self.aspect}" if self.method == "debate" else f"{self.method} {self.aspect}"


class DebateConversationalMetric(_Judged, BaseConversationalMetric):
    """deepeval's conversational metric over ``debate_eval.Judge``, for a ``ConversationalTestCase``: the last
    assistant turn is judged, the turns before it (``user: ...`` / ``assistant: ...`` lines) are its source and
    the case's ``context`` its context; keywords as ``DebateMetric`` (e.g. ``method="dialevalml"``,
    ``aspect="naturalness"``, ``scale=(1, 3)``, ``criteria=``). A case with no assistant turn fails with the
    reason in ``error``."""

    __init__ = _metric_init("naturalness", (1, 3))

    def measure(self, test_case: ConversationalTestCase, *args: Any, **kwargs: Any) -> float | None:
        """Judge the conversation's last assistant turn; the score in [0, 1] (None: see ``error``)."""
        dialogue = dialogue_inputs(test_case)
        return self._missing() if dialogue is None else self._take(self.judge.score(dialogue[0], **dialogue[1]))

    async def a_measure(self, test_case: ConversationalTestCase, *args: Any, **kwargs: Any) -> float | None:
        """``measure`` for deepeval's event loop."""
        dialogue = dialogue_inputs(test_case)
        if dialogue is None:
            return self._missing()
        return self._take(await self.judge.score_async(dialogue[0], **dialogue[1]))

    def _missing(self) -> None:
        self.score, self.reason, self.judgment = None, None, None
        self.error = "the conversation has no assistant turn to judge"
        self.is_successful()
        return None

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return f"DEBATE conversation {self.aspect}" if self.method == "debate" else f"{self.method} {self.aspect}"


def dialogue_inputs(test_case: ConversationalTestCase) -> tuple[str, dict[str, str | None]] | None:
    """The last assistant turn, and the judge's source (the turns before it) and context (the case's
    ``context``); None when no turn is the assistant's."""
    turns = list(test_case.turns or [])
    last = max((number for number, turn in enumerate(turns) if turn.role == "assistant"), default=None)
    if last is None:
        return None
    history = "\n".join(f"{turn.role}: {turn.content}" for turn in turns[:last])
    context = "\n\n".join(str(item) for item in test_case.context or [])
    return turns[last].content, {"source": history or None, "context": context or None}


def _inputs(test_case: LLMTestCase) -> dict[str, str | None]:
    """The judge's keywords from a test case: source, reference, context."""
    context = test_case.context or [str(getattr(c, "content", c)) for c in test_case.retrieval_context or []]
    return {
        "source": test_case.input or None,
        "reference": test_case.expected_output or None,
        "context": "\n\n".join(context) if context else None,
    }


def _close(judge: Judge) -> None:
    with contextlib.suppress(Exception):  # at exit: nothing left to tell
        judge.close()
