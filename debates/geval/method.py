"""G-Eval as a single AutoGen agent: one call per item, the same template as the debate.

Scoring method, in order of preference (the outcome records which one was used):

1. ``logprob_weighted`` (G-Eval, Liu et al. 2023): when the endpoint returns token log-probabilities, the
   score is the expected value over the score tokens' probabilities at the position of the score in the
   answer: sum(v * p(v)) / sum(p(v)) over the integers v of the scale found among the top log-probabilities
   (a candidate token is an ASCII integer with optional whitespace and one trailing "." or ")"; others,
   " four" or a newline, are left out and the rest renormalised). The position is that of the number the parser
   chose (``ParsedScore.span``), mapped to a token by counting the tokens' bytes; the token there must be
   that integer. Otherwise (no parsed score, a number word, a decimal, a per-turn average, a number split
   over tokens) nothing is weighted: the parsed score stands and ``details["logprobs"]`` says why.
2. ``sample_mean``: with ``samples`` > 1, the mean parsed score of that many answers (each its own request,
   seeds ``seed + k``, cache variants apart: ``debates.kit.samples``), as G-Eval's n=20 sampling. At
   temperature 0 the answers are identical (greedy decoding): the details then carry a ``note`` (and
   ``samples_warning`` gives the run-start warning).
3. ``parsed``: the parsed score of the single answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.base import (
    Method,
    MethodContext,
    Reparser,
    deciding_parse,
    option,
    positive_int,
    register_method,
    with_parse,
)
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.geval.scripted import SCRIPTED_REPLIES
from debate_eval.debates.geval.single import (
    DEFAULT_TOP_LOGPROBS,
    GEvalConfig,
    run_geval,
    sample_record_fields,
    samples_warning,
)
from debate_eval.debates.kit.confidence import Confidence, agreement, answer_scores
from debate_eval.debates.pairwise.scripted import PAIRWISE_PROMPTS
from debate_eval.debates.record import R, ResultRecord, details_of

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool


@dataclass(frozen=True)
class GEvalOptions:
    """G-Eval's options."""

    geval_samples: int = option(
        1, convert=positive_int, help="geval: average this many sampled answers instead of using log-probabilities"
    )
    geval_no_logprobs: bool = option(False, help="geval: do not request log-probabilities")


@register_method
class GEvalMethod(Method[GEvalConfig]):
    """``geval``: one agent, one call per item (probability-weighted when possible)."""

    scripted_replies = (PAIRWISE_PROMPTS, SCRIPTED_REPLIES)  # canned replies for offline runs (scripted.py)
    name = "geval"
    description = "G-Eval: one agent, one call (probability-weighted when possible)"
    config_type = GEvalConfig
    config_key = "geval"
    Options = GEvalOptions

    def build_config(self, options: GEvalOptions, ctx: MethodContext) -> GEvalConfig:
        """Log-probabilities unless ``--geval-no-logprobs``; ``--geval-samples`` answers."""
        return GEvalConfig(
            use_logprobs=not options.geval_no_logprobs,
            top_logprobs=DEFAULT_TOP_LOGPROBS,
            samples=options.geval_samples,
        )

    async def judge(self, task: EvaluationTask, config: GEvalConfig, pool: ClientPool) -> Outcome:
        """One answer (or ``samples`` answers) of the single agent."""
        return await run_geval(task, config, pool)

    async def judge_pair(self, task: EvaluationTask, config: GEvalConfig, pool: ClientPool) -> Outcome:
        """The single agent's verdict (or the majority of ``samples`` verdicts; ``debates.geval.pairwise``)."""
        from debate_eval.debates.geval.pairwise import run_geval_pairwise

        return await run_geval_pairwise(task, config.samples, pool)

    def warnings(self, config: GEvalConfig, temperature: float) -> list[str]:
        """Sampling at temperature 0."""
        warning = samples_warning(config, temperature)
        return [warning] if warning else []

    def confidence(self, record: ResultRecord) -> Confidence | None:
        """With log-probabilities, the probability of the most likely score token (the weights of the
        probability-weighted score, ``details["probabilities"]``); with K samples, the share of samples that
        gave the most common score (their parsed answers in the transcript); one answer without
        log-probabilities gives none."""
        details = record.details or {}
        how = details.get("method")
        if how == "logprob_weighted":
            probabilities = details.get("probabilities") or {}
            values = [float(p) for p in probabilities.values() if isinstance(p, int | float)]
            if not values:
                return None
            top = max(values) / (sum(values) or 1.0)
            return Confidence(min(1.0, top), f"the likeliest score token has probability {top:.2f}")
        if how == "sample_mean":
            return agreement(answer_scores(record, record.decided_by), "samples")
        return None

    def rescore_pairwise(self, record: R, texts: list[str]) -> R:
        """The deciding answer's verdict re-read; with ``--geval-samples`` (one session per sample, each started
        by a task message of the user) each sample's, then their majority (a tie when split)."""
        from debate_eval.debates.geval.pairwise import samples_verdict
        from debate_eval.debates.kit.reread import reread_pairwise

        return reread_pairwise(record, texts, samples_verdict)

    def rescore(self, record: R, reparse: Reparser) -> R:
        """The answer parsed again; a probability-weighted score keeps its value (the log-probabilities are
        not stored), a sample mean is recomputed."""
        chosen, answers = deciding_parse(record, reparse)
        if chosen is None:
            return record
        details = details_of(record)
        if details.get("method") == "logprob_weighted":
            return with_parse(record, chosen)
        if details.get("method") == "sample_mean" and record.decided_by == EVALUATOR:
            parses = [reparse.entry(i) for i in answers]
            details["parsed_samples"] = sum(p.ok for p in parses)
            fields = sample_record_fields([p.value if p.ok else None for p in parses], len(parses))
            return record.replace(details=details, **fields)
        return with_parse(record, chosen, score=chosen.value if chosen.ok else None)

    def answer_value(self, record: ResultRecord, reparse: Reparser) -> float | None:
        """A probability-weighted score's parsed answer (the integer that was weighted), read again; otherwise
        the score, when it was parsed."""
        if details_of(record).get("method") != "logprob_weighted":
            return super().answer_value(record, reparse)
        chosen, _ = deciding_parse(record, reparse)
        return chosen.value if chosen is not None and chosen.ok else None
