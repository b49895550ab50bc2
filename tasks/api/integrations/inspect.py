"""debate-eval's judges as inspect_ai scorers (extra ``inspect``): ``debate_judge`` scores a sample's output,
``debate_judge_pairwise`` compares it with a baseline answer. Both are registered with inspect (entry point
``inspect_ai``: ``debate_eval``), so ``inspect score LOG --scorer debate_eval/debate_judge -S aspect=...`` finds
them, and a task uses them as ``scorer=debate_judge(...)``.

Each scorer instance builds its ``debate_eval.Judge`` once (its client pool, response cache and the
endpoints' shared rate limiters serve every sample) and one more per epoch beyond the first: epoch ``k`` asks
with seed ``seed + k - 1`` (default seed 453), so each epoch is a fresh sample rather than the first epoch's
answers from the response cache; inspect's reducers (``Epochs(2, "mean")``, median, mode, max, ...) reduce them.

With ``model_role="grader"`` (or a mapping of debate roles to model roles), or ``model=`` an inspect ``Model``
(or an inspect model name with ``provider="inspect"``), every call of the debate goes through inspect's
``get_model(...).generate`` (the ``inspect`` provider): the calls are model events of the sample, with their
usage in the log's ``stats.model_usage``, under inspect's ``max_connections``, cache, retries and keys. A judge
whose model is the solver's gets a warning and ``grader_is_subject`` in each score's metadata.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from debate_eval.integrations import require

require("inspect_ai", "inspect")

from inspect_ai.model import Model, get_model  # noqa: E402
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr  # noqa: E402
from inspect_ai.solver import TaskState  # noqa: E402

from debate_eval._judge import Judge  # noqa: E402
from debate_eval.agents.errors import UserError  # noqa: E402
from debate_eval.agents.models.providers.inspect_models import (  # noqa: E402
    OBJECT_PREFIX,
    ROLE_PREFIX,
    calls_from_here,
    register_model,
    resolve_model,
)
from debate_eval.integrations._common import epoch_seed, judgment_metadata  # noqa: E402

# Where a judged text comes from: "completion" (the solver's output), "input" (the sample's input as text),
# "target" (its target as text), "metadata.KEY" (a field of its metadata), or a function of (state, target).
Field = str | Callable[[TaskState, Target], str | None] | None
VALUES = ("raw", "normalized")
PAIR_VALUES = {"first": 1.0, "second": 0.0, "tie": 0.5}  # the sample's output is the first answer


INSPECT = "inspect"  # the provider whose calls are inspect's model calls


def field_text(spec: Field, state: TaskState, target: Target, name: str, *, required: bool = False) -> str | None:
    """The text ``spec`` names for this sample (None: not given). ``required``: a ``metadata.KEY`` the sample
    lacks is a one-line ``UserError`` rather than no text."""
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
        key = spec.removeprefix("metadata.")
        if required and key not in (state.metadata or {}):
            raise UserError(f"{name}={spec!r}: sample {state.sample_id} has no metadata {key!r}")
        value = (state.metadata or {}).get(key)
        return None if value is None else str(value)
    raise UserError(f"{name}={spec!r}: use completion, input, target, metadata.KEY or a function of (state, target)")


def inspect_options(judge_options: Mapping[str, Any], model_role: str | Mapping[str, str] | None) -> dict[str, Any]:
    """The judge keywords that send the calls through inspect's models: ``model_role`` (one inspect model
    role for every debate role, or a mapping of debate roles to model roles, the others on ``grader``), or
    ``model`` an inspect ``Model``; without either, ``judge_options`` as given."""
    options = dict(judge_options)
    model = options.get("model")
    if isinstance(model, Model):
        options.update(provider=INSPECT, model=register_model(model))
    if model_role is None:
        return options
    if options.get("provider") not in (None, INSPECT) or isinstance(model, str):
        raise UserError("debate_judge: give model_role or model/provider, not both")
    if isinstance(model_role, str):
        options.update(provider=INSPECT, model=ROLE_PREFIX + model_role)
    elif isinstance(model_role, Mapping):
        roles = {str(role): ROLE_PREFIX + str(name) for role, name in model_role.items()}
        options.update(
            provider=INSPECT, model=ROLE_PREFIX + "grader", roles={**dict(options.get("roles") or {}), **roles}
        )
    else:
        raise UserError(f"debate_judge: model_role={model_role!r}: give a model role's name or a mapping of roles")
    return options


def judge_models(options: Mapping[str, Any]) -> list[str]:
    """The model names of a judge's roles (its ``model`` and those of ``roles``)."""
    found = [str(options["model"])] if options.get("model") else []
    return found + [str(name) for name in dict(options.get("roles") or {}).values()]


def inspect_model_name(name: str) -> str:
    """The ``provider/model`` name an inspect model name, role or registered model means in this sample's
    eval (where a role is bound)."""
    if name.startswith((ROLE_PREFIX, OBJECT_PREFIX)):
        return str(resolve_model(name))
    return str(get_model(name))


def grader_is_subject(options: Mapping[str, Any], state: TaskState) -> bool:
    """Whether one of the judge's models is the model that wrote the sample's output (the solver's)."""
    subject = str(state.model)
    names = judge_models(options)
    if options.get("provider") == INSPECT:
        return any(inspect_model_name(name) == subject for name in names)
    return any(name in (subject, subject.split("/", 1)[-1]) for name in names)


class _Judges:
    """One ``Judge`` per seed for a scorer instance (epoch 1: the judge's own seed), closed at exit."""

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = dict(options)
        self.warned = False
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

    def metadata(self, state: TaskState) -> dict[str, Any]:
        """``grader_is_subject`` of this sample (with a warning, once per scorer, when it is true)."""
        same = grader_is_subject(self.options, state)
        if same and not self.warned:
            self.warned = True
            warnings.warn(
                f"debate-eval: the judge's model is the solver's ({state.model}): the output is graded by the model "
                "that wrote it; bind another model to the judge's model role",
                stacklevel=2,
            )
        return {"grader_is_subject": same}

    def score_metadata(self, judgment: Any, state: TaskState, flags: dict[str, Any]) -> dict[str, Any]:
        """A score's metadata: the judgment's, the sample's epoch and its seed, and ``flags``."""
        seed = epoch_seed(self.options, state.epoch)
        return {**judgment_metadata(judgment), "epoch": state.epoch, "seed": seed, **flags}

    async def judged(self, work: Any) -> Any:
        """Await a judge's call with the inspect provider's calls run on this sample's loop and context."""
        with calls_from_here():
            return await work

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
    model_role: str | Mapping[str, str] | None = None,
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
    parse status, tokens, cost, cached calls, the epoch's seed, ``grader_is_subject`` and a compact
    transcript. A sample the judge could not score gets ``Score.unscored`` (left out of the metrics and
    reducers) with the parse reason or error. A ``metadata.KEY`` the sample lacks is refused in one line.

    ``model_role``: the calls go to the inspect model bound to that model role (``inspect eval --model-role
    grader=openai/gpt-4o``), or per debate role with a mapping (``{"scorer": "grader", "critic": "critic"}``,
    the roles not named on ``grader``); ``model=`` an inspect ``Model`` object, or an inspect model name with
    ``provider="inspect"``, does the same with that model. Then each call is an inspect model call of the
    sample (model events, usage, ``max_connections``, inspect's cache and retries).
    """
    if value not in VALUES:
        raise UserError(f"value={value!r}: use raw or normalized")
    scale_option = list(scale) if isinstance(scale, tuple) else scale
    options = inspect_options(judge_options, model_role)
    judges = _Judges({"method": method, "aspect": aspect, "criteria": criteria, "scale": scale_option, **options})

    async def score(state: TaskState, target: Target) -> Score:
        judge = judges.for_epoch(state.epoch)
        texts = {
            "source": field_text(source, state, target, "source", required=True),
            "reference": field_text(reference, state, target, "reference", required=True),
            "context": field_text(context, state, target, "context", required=True),
        }
        judged = field_text(output, state, target, "output", required=True) or ""
        flags = judges.metadata(state)
        judgment = await judges.judged(judge.score_async(judged, **texts))
        metadata = judges.score_metadata(judgment, state, flags)
        number = judgment.score if value == "raw" else judgment.normalized_score
        if number is None or math.isnan(number):
            return _unscored(judgment, metadata)
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
    model_role: str | Mapping[str, str] | None = None,
    **judge_options: Any,
) -> Scorer:
    """A scorer that compares each sample's output with a baseline answer (``baseline``: ``"metadata.KEY"``,
    default ``metadata.baseline``, or ``"target"``, or a function of ``(state, target)``), for ``question``
    (default the sample's input), with a debate-eval judge (``Judge`` keywords as ``debate_judge``).

    With ``swap`` (default) both orders are judged and mapped back. ``Score.value`` is 1 when the output wins,
    0 when the baseline wins and 0.5 for a tie (so the mean is the output's win rate), ``answer`` the verdict
    (``first``: the output, ``second``: the baseline, ``tie``), ``explanation`` the deciding answer, and
    ``metadata`` both orders' verdicts, whether they agree (``consistent``), rounds, tokens and a compact
    transcript. No verdict: ``Score.unscored`` with the reason. ``model_role`` and ``model`` as ``debate_judge``.
    """
    judges = _Judges({"method": method, "aspect": aspect, **inspect_options(judge_options, model_role)})

    async def score(state: TaskState, target: Target) -> Score:
        other = field_text(baseline, state, target, "baseline")
        if other is None:
            raise UserError(f"debate_judge_pairwise: sample {state.sample_id} has no baseline ({baseline})")
        judged = field_text(output, state, target, "output", required=True) or ""
        asked = field_text(question, state, target, "question", required=True)
        flags = judges.metadata(state)
        work = judges.for_epoch(state.epoch).compare_async(judged, other, question=asked, swap=swap)
        judgment = await judges.judged(work)
        metadata = judges.score_metadata(judgment, state, flags)
        if judgment.verdict not in PAIR_VALUES:
            return _unscored(judgment, metadata)
        return Score(
            value=PAIR_VALUES[judgment.verdict],
            answer=judgment.verdict,
            explanation=judgment.rationale,
            metadata=metadata,
        )

    return score


def _unscored(judgment: Any, metadata: dict[str, Any]) -> Score:
    """The score of a sample the judge could not score: the reason, the rationale or why it failed."""
    reason = "scoring_failed" if judgment.error else "grader_failed"
    explanation = judgment.rationale or judgment.error or judgment.parse_reason
    return Score.unscored(reason=reason, explanation=explanation, metadata=metadata)
