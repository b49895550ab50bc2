"""debate-eval's judges as inspect_ai scorers (extra ``inspect``): ``debate_judge`` scores a sample's output,
``debate_judge_pairwise`` compares it with a baseline answer. Both are registered with inspect (entry point
``inspect_ai``: ``debate_eval``), so ``inspect score LOG --scorer debate_eval/debate_judge -S aspect=...`` finds
them, and a task uses them as ``scorer=debate_judge(...)``.

Each scorer instance builds its ``debate_eval.Judge`` once (its client pool, response cache and the
endpoints' shared rate limiters serve every sample) and one more per epoch beyond the first: epoch ``k`` asks
with seed ``seed + k - 1`` (default seed 453), so each epoch is a fresh sample rather than the first epoch's
answers from the response cache; inspect's ``epochs_reducer`` (mean, median, mode, max, ...) reduces them.
"""

from __future__ import annotations

import atexit
import contextlib
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from debate_eval.integrations import require

require("inspect_ai", "inspect")

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr  # noqa: E402
from inspect_ai.solver import TaskState  # noqa: E402

from debate_eval._judge import Judge  # noqa: E402
from debate_eval.agents.errors import UserError  # noqa: E402
from debate_eval.integrations._common import epoch_seed, judgment_metadata  # noqa: E402

# Where a judged text comes from: "completion" (the solver's output), "input" (the sample's input as text),
# "target" (its target as text), "metadata.KEY" (a field of its metadata), or a function of (state, target).
Field = str | Callable[[TaskState, Target], str | None] | None
VALUES = ("raw", "normalized")
PAIR_VALUES = {"first": 1.0, "second": 0.0, "tie": 0.5}  # the sample's output is the first answer


def field_text(spec: Field, state: TaskState, target: Target, name: str) -> str | None:
    """The text ``spec`` names for this sample (None: not given)."""
    if spec is None:
        return None
    if callable(spec):
        return spec(state, target)
    if spec == "completion":
        return state.output.completion if state.output is not None else ""
    if spec == "input":
        return state.input_text
    if spec == "target":
        return target.text if target.text else None
    if spec.startswith("metadata."):
        value = (state.metadata or {}).get(spec.removeprefix("metadata."))
        return None if value is None else str(value)
    raise UserError(f"{name}={spec!r}: use completion, input, target, metadata.KEY or a function of (state, target)")


class _Judges:
    """One ``Judge`` per seed for a scorer instance (epoch 1: the judge's own seed), closed at exit."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self.judges: dict[int, Judge] = {}
        self.first = Judge(**self.options)  # bad options fail here, when the scorer is made
        atexit.register(self.close)

    def for_epoch(self, epoch: int) -> Judge:
        """The judge of ``epoch`` (counted from 1)."""
        if epoch <= 1:
            return self.first
        seed = epoch_seed(self.options, epoch)
        found = self.judges.get(seed)
        if found is None:
            found = self.judges[seed] = Judge(**{**self.options, "seed": seed})
        return found

    def close(self) -> None:
        """Close every judge (their connections)."""
        for judge in [self.first, *self.judges.values()]:
            with contextlib.suppress(Exception):  # at exit: nothing left to tell
                judge.close()


@scorer(metrics=[mean(), stderr()])
def debate_judge(
    method: str = "debate",
    aspect: str = "coherence",
    criteria: str | None = None,
    scale: Sequence[float] | str | None = (1, 5),
    *,
    output: Field = "completion",
    source: Field = "input",
    reference: Field = "target",
    context: Field = None,
    value: str = "raw",
    **judge_options: Any,
) -> Scorer:
    """A scorer that judges each sample's output with a debate-eval judge (``method``, ``aspect``,
    ``criteria`` and ``scale`` as ``debate_eval.Judge``, and any other ``Judge`` keyword: ``model``,
    ``provider``, ``roles``, ``max_rounds``, ``seed``, ...).

    The judged ``output`` is the solver's completion, the ``source`` the sample's input and the ``reference``
    its target; each can name another text (``"metadata.KEY"``, ``"input"``, ``"target"``, ``"completion"``),
    be a function of ``(state, target)``, or be None (not shown). ``Score.value`` is the judge's score on
    ``scale`` (``value="raw"``, the default) or mapped to [0, 1] (``value="normalized"``); ``answer`` the score
    as text, ``explanation`` the deciding answer (the rationale), ``metadata`` rounds, agreement, stop reason,
    parse status, tokens, cost, cached calls, the epoch's seed and a compact transcript. A sample the judge
    could not score gets ``Score.unscored`` (left out of the metrics and reducers) with the parse reason or
    error.
    """
    if value not in VALUES:
        raise UserError(f"value={value!r}: use raw or normalized")
    scale_option = list(scale) if isinstance(scale, tuple) else scale
    judges = _Judges({"method": method, "aspect": aspect, "criteria": criteria, "scale": scale_option, **judge_options})

    async def score(state: TaskState, target: Target) -> Score:
        judge = judges.for_epoch(state.epoch)
        judgment = await judge.score_async(
            field_text(output, state, target, "output") or "",
            source=field_text(source, state, target, "source"),
            reference=field_text(reference, state, target, "reference"),
            context=field_text(context, state, target, "context"),
        )
        seed = epoch_seed(judges.options, state.epoch)
        metadata = {**judgment_metadata(judgment), "epoch": state.epoch, "seed": seed}
        number = judgment.score if value == "raw" else judgment.normalized_score
        if number is None or math.isnan(number):
            reason = "scoring_failed" if judgment.error else "grader_failed"
            why = judgment.error or judgment.parse_reason
            return Score.unscored(reason=reason, explanation=judgment.rationale or why, metadata=metadata)
        return Score(value=number, answer=f"{judgment.score:g}", explanation=judgment.rationale, metadata=metadata)

    return score


@scorer(metrics=[mean(), stderr()])
def debate_judge_pairwise(
    method: str = "debate",
    aspect: str = "overall",
    *,
    output: Field = "completion",
    baseline: Field = "metadata.baseline",
    question: Field = "input",
    swap: bool = True,
    **judge_options: Any,
) -> Scorer:
    """A scorer that compares each sample's output with a baseline answer (``baseline``: ``"metadata.KEY"``,
    default ``metadata.baseline``, or ``"target"``, or a function of ``(state, target)``), for ``question``
    (default the sample's input), with a debate-eval judge (``Judge`` keywords as ``debate_judge``).

    With ``swap`` (default) both orders are judged and mapped back. ``Score.value`` is 1 when the output wins,
    0 when the baseline wins and 0.5 for a tie (so the mean is the output's win rate), ``answer`` the verdict
    (``first``: the output, ``second``: the baseline, ``tie``), ``explanation`` the deciding answer, and
    ``metadata`` both orders' verdicts, whether they agree (``consistent``), rounds, tokens and a compact
    transcript. No verdict: ``Score.unscored`` with the reason.
    """
    judges = _Judges({"method": method, "aspect": aspect, **judge_options})

    async def score(state: TaskState, target: Target) -> Score:
        other = field_text(baseline, state, target, "baseline")
        if other is None:
            raise UserError(f"debate_judge_pairwise: sample {state.sample_id} has no baseline ({baseline})")
        judgment = await judges.for_epoch(state.epoch).compare_async(
            field_text(output, state, target, "output") or "",
            other,
            question=field_text(question, state, target, "question"),
            swap=swap,
        )
        seed = epoch_seed(judges.options, state.epoch)
        metadata = {**judgment_metadata(judgment), "epoch": state.epoch, "seed": seed}
        if judgment.verdict not in PAIR_VALUES:
            reason = "scoring_failed" if judgment.error else "grader_failed"
            why = judgment.error or judgment.parse_reason
            return Score.unscored(reason=reason, explanation=judgment.rationale or why, metadata=metadata)
        return Score(
            value=PAIR_VALUES[judgment.verdict],
            answer=judgment.verdict,
            explanation=judgment.rationale,
            metadata=metadata,
        )

    return score
