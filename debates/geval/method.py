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
from typing import TYPE_CHECKING, Any

from debate_eval.agents.roles import EVALUATOR, USER
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
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.kit.confidence import Confidence
from debate_eval.debates.kit.samples import sample_request
from debate_eval.debates.record import R, ResultRecord, details_of
from debate_eval.debates.scoring.scores import ParsedScore

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import BaseChatMessage

    from debate_eval.agents.models.pool import ClientPool
    from debate_eval.agents.models.wrappers import CallRecord

DEFAULT_TOP_LOGPROBS = 10


@dataclass(frozen=True)
class GEvalConfig:
    """How the single-agent baseline scores."""

    use_logprobs: bool = True
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    samples: int = 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json."""
        return {"use_logprobs": self.use_logprobs, "top_logprobs": self.top_logprobs, "samples": self.samples}


def sample_parse(parsed_values: list[float | None], n_samples: int) -> ParsedScore:
    """How a sample mean was parsed, over the samples: ``18/20 parsed; the score is the mean of the parsed
    samples`` (status ``parsed``), or ``0/20 parsed: no sample has a score`` (``no_score``)."""
    values = [v for v in parsed_values if v is not None]
    status = f"{len(values)}/{n_samples} parsed"
    if not values:
        return ParsedScore(None, "no_score", "sample_mean", f"{status}: no sample has a score")
    mean = sum(values) / len(values)
    return ParsedScore(mean, "parsed", "sample_mean", f"{status}; the score is the mean of the parsed samples")


def sample_record_fields(parsed_values: list[float | None], n_samples: int) -> dict[str, Any]:
    """``score`` (mean of the parsed samples) and parse fields that report the samples, e.g. ``18/20 parsed``
    (a live ``--geval-samples`` run, its ``rescore``, and imported G-Eval results)."""
    parsed = sample_parse(parsed_values, n_samples)
    return {
        "score": parsed.value,
        "parse_status": parsed.status,
        "parse_method": parsed.method,
        "parse_reason": parsed.reason,
    }


def samples_warning(config: GEvalConfig, temperature: float) -> str | None:
    """A one-line warning when ``samples`` > 1 would give identical answers (temperature 0), else None."""
    if config.samples > 1 and temperature == 0:
        return (
            f"warning: --geval-samples {config.samples} at temperature 0 gives {config.samples} identical "
            "answers (greedy decoding; only the seed differs): set --temperature above 0 for G-Eval's sampling"
        )
    return None


async def ask_evaluator(
    task: EvaluationTask,
    pool: ClientPool,
    calls: list[CallRecord],
    k: int,
    samples: int,
    sampling: dict[str, Any],
    answer: str | None = None,
) -> tuple[AssistantAgent, list[BaseChatMessage]]:
    """Sample ``k`` of ``samples``: a fresh Evaluator (the Scorer's settings, ``sampling`` plus the sample's
    seed, its own cache variant; its calls recorded into ``calls``) answers ``task``'s prompt. Returns the
    agent (to ask again in the same conversation) and the chat messages of its run."""
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import BaseChatMessage, TextMessage

    variant, seed = sample_request(pool, "scorer", k, samples, sampling)  # each sample a fresh call
    sampling = {**sampling, **seed}
    client = pool.for_debate("scorer", calls, variant=variant, sampling=sampling, answer=answer)
    agent = AssistantAgent(EVALUATOR, model_client=client, system_message=None)
    result = await agent.run(task=TextMessage(source=USER, content=task.prompt))
    return agent, [m for m in result.messages if isinstance(m, BaseChatMessage)]


async def run_geval(task: EvaluationTask, config: GEvalConfig, pool: ClientPool) -> Outcome:
    """Score ``task`` with one agent (or ``samples`` independent answers)."""

    from debate_eval.debates.kit.transcript import build_transcript
    from debate_eval.debates.scoring.weighted import weighted_score

    calls: list[CallRecord] = []
    material = task.material()
    messages: list[BaseChatMessage] = []
    parses: list[ParsedScore] = []
    parsed_texts: list[str] = []
    samples = max(1, config.samples)
    for k in range(samples):
        sampling: dict[str, Any] = {}
        if config.use_logprobs and samples == 1:
            sampling["top_logprobs"] = config.top_logprobs
        # G-Eval's form asks for "scores ONLY": a constrained answer is the score alone
        _, chat = await ask_evaluator(task, pool, calls, k, samples, sampling, answer="score_only")
        messages += chat
        answer = chat[-1].to_text()
        parses.append(score_text(answer, task, material))
        parsed_texts.append(material.neutralize(answer))  # what the parser read: the span's coordinates

    for call in calls:  # the evaluator's calls are made through the Scorer's settings
        call.role = "evaluator"
    transcript = build_transcript(
        messages,
        calls,
        lambda m: score_text(m.to_text(), task, material) if m.source == EVALUATOR else None,
    )
    parsed = parses[0]
    score: float | None = parsed.value if parsed.ok else None
    details: dict[str, Any] = {"method": "parsed"}
    if samples > 1:
        values = [p.value for p in parses if p.ok and p.value is not None]
        parsed = sample_parse([p.value if p.ok else None for p in parses], samples)  # "18/20 parsed"
        score = parsed.value
        temperature = pool.settings_for("scorer").sampling.temperature
        details = {
            "method": "sample_mean",
            "samples": samples,
            "parsed_samples": len(values),
            "temperature": temperature,
        }
        if temperature == 0:
            details["note"] = "temperature 0: the samples are identical answers (greedy decoding)"
    elif config.use_logprobs and calls and calls[-1].logprobs:
        score, details = weighted_score(calls[-1].logprobs, task.scale, parsed, parsed_texts[0])
    elif config.use_logprobs:
        details = {"method": "parsed", "logprobs": "the endpoint returned no log-probabilities"}
    for entry, call in zip((e for e in transcript if e["role"] == "evaluator"), calls, strict=False):
        if call.logprobs and details["method"] == "logprob_weighted":
            entry["logprobs_top"] = details.get("probabilities")
    return Outcome(
        score=score,
        parse=parsed,
        decided_by=EVALUATOR,
        stop_reason="single_answer" if samples == 1 else "samples",
        transcript=transcript,
        calls=calls,
        details=details,
    )


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
        """The score tokens' probabilities, or the samples' agreement (``geval/confidence.py``)."""
        from debate_eval.debates.geval.confidence import geval_confidence

        return geval_confidence(record)

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
