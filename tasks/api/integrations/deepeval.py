"""A debate-eval judge as a deepeval metric (extra ``deepeval``): ``DebateMetric``, a ``BaseMetric`` usable in
``deepeval.evaluate`` and ``assert_test``.

The test case's ``actual_output`` is judged, its ``input`` shown as the source, its ``expected_output`` as the
reference and its ``context`` (else ``retrieval_context``) as the context. ``score`` is the judge's score
mapped to [0, 1] (``normalized_score``: ``(score - low) / (high - low)`` on the judge's scale), ``reason`` the
deciding answer, and the test case passes when ``score >= threshold``. A judgment without a score sets
``error`` (the parse reason or the call's error), so the case fails.

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

from deepeval.metrics import BaseMetric  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402

from debate_eval._judge import Judge, Judgment  # noqa: E402


class DebateMetric(BaseMetric):
    """deepeval's metric interface over ``debate_eval.Judge``: ``DebateMetric(threshold=0.5, method=...,
    aspect=..., criteria=..., scale=(1, 5), **judge keywords)`` (``model``, ``provider``, ``roles``,
    ``max_rounds``, ...: every ``Judge`` keyword). ``judge``: an existing ``Judge`` to use instead of building
    one. ``strict_mode`` sets the threshold to 1."""

    def __init__(
        self,
        threshold: float = 0.5,
        method: str = "debate",
        aspect: str = "coherence",
        criteria: str | None = None,
        scale: Sequence[float] | str | None = (1, 5),
        *,
        include_reason: bool = True,
        async_mode: bool = True,
        strict_mode: bool = False,
        verbose_mode: bool = False,
        judge: Judge | None = None,
        **judge_options: Any,
    ) -> None:
        self.threshold = 1.0 if strict_mode else float(threshold)
        self.method, self.aspect, self.criteria = method, aspect, criteria
        self.scale = tuple(scale) if isinstance(scale, list) else scale
        self.include_reason, self.async_mode = include_reason, async_mode
        self.strict_mode, self.verbose_mode = strict_mode, verbose_mode
        if judge is None:
            judge = Judge(method=method, aspect=aspect, criteria=criteria, scale=self.scale, **judge_options)
            atexit.register(_close, judge)
        self.judge = judge
        self.evaluation_model = f"debate-eval {method}"
        self.score: float | None = None
        self.reason: str | None = None
        self.success: bool | None = None
        self.error: str | None = None
        self.judgment: Judgment | None = None  # the last judgment, whole (rounds, transcript, tokens)

    def measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float | None:
        """Judge ``test_case`` and return the score in [0, 1] (None when no score could be read: ``error``)."""
        return self._take(self.judge.score(test_case.actual_output or "", **_inputs(test_case)))

    async def a_measure(self, test_case: LLMTestCase, *args: Any, **kwargs: Any) -> float | None:
        """``measure`` for deepeval's event loop."""
        return self._take(await self.judge.score_async(test_case.actual_output or "", **_inputs(test_case)))

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

    @property
    def __name__(self) -> str:  # type: ignore[override]
        return f"DEBATE {self.aspect}" if self.method == "debate" else f"{self.method} {self.aspect}"


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
