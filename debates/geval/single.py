"""How G-Eval judges a single task: one Evaluator (a fresh AutoGen agent per sample, the Scorer's model
settings) answers the task prompt; the score is probability-weighted, a sample mean or the parsed answer (the
method's docstring, ``method.py``). AutoGen is imported when the Evaluator is made. Also here: the method's
configuration and how a sample mean is reported (shared by the run, ``rescore`` and the import of G-Eval's
released results)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debate_eval.agents.roles import EVALUATOR, USER
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.kit.samples import identical_samples_warning, sample_request
from debate_eval.debates.scoring.scores import ParsedScore

if TYPE_CHECKING:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import BaseChatMessage

    from debate_eval.agents.models.pool import ClientPool
    from debate_eval.agents.models.wrappers import CallRecord

DEFAULT_TOP_LOGPROBS = 10


@dataclass(frozen=True)
class GEvalConfig:
    """How the single-agent baseline scores (config.json: every field)."""

    use_logprobs: bool = True
    top_logprobs: int = DEFAULT_TOP_LOGPROBS
    samples: int = 1


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
    return identical_samples_warning("--geval-samples", config.samples, temperature, "G-Eval's sampling")


async def ask_evaluator(
    task: EvaluationTask,
    pool: ClientPool,
    calls: list[CallRecord],
    k: int = 0,
    samples: int = 1,
    sampling: dict[str, Any] | None = None,
    answer: str | None = None,
) -> tuple[AssistantAgent, list[BaseChatMessage]]:
    """Sample ``k`` of ``samples``: a fresh Evaluator (the Scorer's settings, ``sampling`` plus the sample's
    seed, its own cache variant; its calls recorded into ``calls``) answers ``task``'s prompt. Returns the
    agent (to ask again in the same conversation) and the chat messages of its run."""
    from autogen_agentchat.agents import AssistantAgent
    from autogen_agentchat.messages import BaseChatMessage, TextMessage

    variant, seed = sample_request(pool, "scorer", k, samples, sampling)  # each sample a fresh call
    client = pool.for_debate("scorer", calls, variant=variant, sampling={**(sampling or {}), **seed}, answer=answer)
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
    samples = max(1, config.samples)
    for k in range(samples):
        sampling: dict[str, Any] = {}
        if config.use_logprobs and samples == 1:
            sampling["top_logprobs"] = config.top_logprobs
        # G-Eval's form asks for "scores ONLY": a constrained answer is the score alone
        _, chat = await ask_evaluator(task, pool, calls, k, samples, sampling, answer="score_only")
        messages += chat
        parses.append(score_text(chat[-1].to_text(), task, material))

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
        parsed = sample_parse([p.value if p.ok else None for p in parses], samples)  # "18/20 parsed"
        score = parsed.value
        temperature = pool.settings_for("scorer").sampling.temperature
        details = {
            "method": "sample_mean",
            "samples": samples,
            "parsed_samples": sum(p.ok for p in parses),
            "temperature": temperature,
        }
        if temperature == 0:
            details["note"] = "temperature 0: the samples are identical answers (greedy decoding)"
    elif config.use_logprobs and calls and calls[-1].logprobs:
        # the parser read the neutralized answer: the parsed span's coordinates are in that text
        parsed_text = material.neutralize(messages[-1].to_text())
        score, details = weighted_score(calls[-1].logprobs, task.scale, parsed, parsed_text)
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
