"""``self-consistency``: K independent samples of a base method's judge per item, combined.

The standard self-consistency / jury baseline (Wang et al. 2023, self-consistency: sample several answers and
take the majority; Verga et al. 2024, a jury of judges: pool their scores or votes): the base method
(``--sc-base``, any registered method, default ``geval``) judges the item ``--sc-samples`` times, each sample a
fresh model call (its own cache variant and seed, ``debates.kit.samples``), and the samples are combined
(``--sc-combine``, ``debates.kit.combine``): the mean or the majority of the scores, the majority of the
verdicts (a tie when split) or their mean preference. The base method's own options apply to every sample
(``--sc-base debate --max-rounds 3``).

The record's transcript holds every sample's messages, each entry marked with its ``sample`` (from 0);
``details`` holds the base method's name, the combination, and per sample its score or verdict and what the
base method recorded (``sample_results``: its ``score`` as the base method gives it and its ``parse``, whose
``value`` is the value its answer parsed to, before any weighting), which ``rescore`` reads back through the base
method's own rescore and ``answer_value``. ``majority`` votes on the parsed answers, ``mean`` averages the scores
(``sample_vote``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debate_eval.agents.errors import UserError
from debate_eval.debates.base import (
    Method,
    MethodContext,
    get_method,
    option,
    positive_int,
    register_method,
)
from debate_eval.debates.evaluation import EvaluationTask, Outcome, marked_transcript
from debate_eval.debates.kit.combine import COMBINES, MAJORITY, MEAN, combine_scores, combine_verdicts
from debate_eval.debates.kit.confidence import Confidence, agreement, parsed_vote
from debate_eval.debates.kit.samples import SamplePool
from debate_eval.debates.record import ResultRecord
from debate_eval.debates.self_consistency.rescore import (
    rescore_samples,
    rescore_samples_pairwise,
    sample_vote,
    samples_reparser,
)

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool

NAME = "self-consistency"
DECIDED_BY = "samples"  # Outcome.decided_by: the combined samples, not one agent's answer
DEFAULT_BASE = "geval"
DEFAULT_SAMPLES = 5


@dataclass(frozen=True)
class SelfConsistencyOptions:
    """Self-consistency's options (the base method's own options apply to each sample)."""

    sc_base: str = option(
        DEFAULT_BASE,
        metavar="METHOD",
        help=f"self-consistency: the method whose judge is sampled (default {DEFAULT_BASE}; its own options apply)",
    )
    sc_samples: int = option(
        DEFAULT_SAMPLES,
        convert=positive_int,
        help=f"self-consistency: K, the samples per item, each a fresh call (default {DEFAULT_SAMPLES})",
    )
    sc_combine: str | None = option(
        choices=COMBINES,
        help="self-consistency: how the samples combine (default: mean of the scores, majority of the verdicts, "
        "a tie when split)",
    )


@dataclass(frozen=True)
class SelfConsistencyConfig:
    """The base method and its configuration, the samples per item and how they combine."""

    base: str
    base_config: Any
    samples: int = DEFAULT_SAMPLES
    combine: str = MEAN

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json (the base method's config included: it changes the results)."""
        base = get_method(self.base)
        return {
            "base": self.base,
            "samples": self.samples,
            "combine": self.combine,
            "base_config": base.config_dict(self.base_config),
        }


def sample_result(outcome: Outcome) -> dict[str, Any]:
    """What a record keeps of one sample besides its messages (what the base method's rescore reads): its
    ``score`` (the base method's) and its ``parse`` (its parsed answer's value, status, method and reason)."""
    parse = outcome.verdict_parse if outcome.verdict_parse is not None else outcome.parse
    return {
        "score": outcome.score,
        "verdict": outcome.verdict,
        "parse": parse.to_dict(),
        **outcome.run_fields(),
    }


def samples_fields(outcomes: list[Outcome], config: SelfConsistencyConfig) -> dict[str, Any]:
    """The ``Outcome`` fields the samples share, score or verdict aside: every sample's messages (marked with
    ``sample``), every call, each sample's result in ``details``."""
    details = {
        "base": config.base,
        "combine": config.combine,
        "samples": config.samples,
        "sample_results": [sample_result(outcome) for outcome in outcomes],
    }
    return {
        "decided_by": DECIDED_BY,
        "stop_reason": "samples",
        "transcript": marked_transcript(({"sample": k}, outcome.transcript) for k, outcome in enumerate(outcomes)),
        "calls": [call for outcome in outcomes for call in outcome.calls],
        "reasked": any(outcome.reasked for outcome in outcomes),
        "details": details,
    }


def combine_sample_scores(outcomes: list[Outcome], config: SelfConsistencyConfig) -> Outcome:
    """One outcome from the samples of a single task: their scores combined."""
    votes = [sample_vote(outcome.score, outcome.parse, config.combine) for outcome in outcomes]
    parsed = combine_scores(votes, config.combine)
    return Outcome(score=parsed.value, parse=parsed, **samples_fields(outcomes, config))


def combine_sample_verdicts(outcomes: list[Outcome], config: SelfConsistencyConfig) -> Outcome:
    """One outcome from the samples of a pairwise task (one order): their verdicts combined."""
    parses = [o.verdict_parse for o in outcomes if o.verdict_parse is not None]
    verdict = combine_verdicts(parses, config.combine)
    return Outcome.for_verdict(verdict, **samples_fields(outcomes, config))


@register_method
class SelfConsistencyMethod(Method[SelfConsistencyConfig]):
    """``self-consistency``: K samples of a base method's judge, combined by mean or majority."""

    name = NAME
    description = "Self-consistency / jury: K samples of a base method's judge, mean or majority"
    config_type = SelfConsistencyConfig
    Options = SelfConsistencyOptions

    def build_config(self, options: SelfConsistencyOptions, ctx: MethodContext) -> SelfConsistencyConfig:
        """The base method configured from the same options, K and the combination."""
        if options.sc_base == NAME:
            raise UserError("--sc-base: self-consistency samples another method's judge, not itself")
        base = get_method(options.sc_base)
        if ctx.task_type not in base.task_types:
            raise UserError(f"--sc-base {base.name}: it has no {ctx.task_type} form")
        combine = options.sc_combine or (MAJORITY if ctx.task_type == "pairwise" else MEAN)
        return SelfConsistencyConfig(base.name, base.configure(ctx.options, ctx), options.sc_samples, combine)

    def sampled_method(self, values: Mapping[str, Any]) -> str | None:
        """The base method (``--sc-base``)."""
        return str(values.get("sc_base") or DEFAULT_BASE)

    def roles(self, config: SelfConsistencyConfig) -> tuple[str, ...]:
        """The base method's roles."""
        return get_method(config.base).roles(config.base_config)

    async def judge(self, task: EvaluationTask, config: SelfConsistencyConfig, pool: ClientPool) -> Outcome:
        """The base method's ``judge`` on ``task`` once per sample; the scores combined."""
        base = get_method(config.base)
        return combine_sample_scores(await _samples(base.judge, task, config, pool), config)

    async def judge_pair(self, task: EvaluationTask, config: SelfConsistencyConfig, pool: ClientPool) -> Outcome:
        """The base method's ``judge_pair`` on ``task`` once per sample; the verdicts combined."""
        base = get_method(config.base)
        return combine_sample_verdicts(await _samples(base.judge_pair, task, config, pool), config)

    def describe(self, config: SelfConsistencyConfig) -> dict[str, Any]:
        """Base method, samples, combination."""
        return {"base": config.base, "samples": config.samples, "combine": config.combine}

    def warnings(self, config: SelfConsistencyConfig, temperature: float) -> list[str]:
        """The base method's warnings; identical samples at temperature 0."""
        found = list(get_method(config.base).warnings(config.base_config, temperature))
        if config.samples > 1 and temperature == 0:
            found.append(
                f"warning: --sc-samples {config.samples} at temperature 0 gives {config.samples} identical answers "
                "(greedy decoding; only the seed differs): set --temperature above 0 for independent samples"
            )
        return found

    # re-reading (``rescore.py``): each sample's messages as its base method's run read them, each sample re-read
    # by the base method's rescore (pairwise: per order), then combined again
    reparser = staticmethod(samples_reparser)
    rescore = staticmethod(rescore_samples)
    rescore_pairwise = staticmethod(rescore_samples_pairwise)

    def confidence(self, record: ResultRecord) -> Confidence | None:
        """The samples' agreement: the share of the K samples (``details["sample_results"]``) that gave the most
        common verdict or parsed answer (an unparsed sample counts as disagreeing)."""
        results = (record.details or {}).get("sample_results") or []
        if record.task_type == "pairwise":
            return agreement((r.get("verdict") for r in results), "samples")
        return agreement((parsed_vote(result.get("parse") or {}) for result in results), "samples")


async def _samples(
    judge: Callable[[EvaluationTask, Any, ClientPool], Awaitable[Outcome]],
    task: EvaluationTask,
    config: SelfConsistencyConfig,
    pool: ClientPool,
) -> list[Outcome]:
    """``judge`` (a base method's ``judge`` or ``judge_pair``) on ``task`` once per sample, one after the other,
    each through its ``SamplePool``."""
    return [await judge(task, config.base_config, SamplePool(pool, k, config.samples)) for k in range(config.samples)]  # type: ignore[arg-type]
