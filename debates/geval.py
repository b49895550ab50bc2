"""G-Eval as a single AutoGen agent: one call per item, the same template as the debate.

Scoring method, in order of preference (the outcome records which one was used):

1. ``logprob_weighted`` (G-Eval, Liu et al. 2023): when the endpoint returns token log-probabilities, the
   score is the expected value over the score tokens' probabilities at the position of the score in the
   answer: sum(v * p(v)) / sum(p(v)) over the integers v of the scale found among the top log-probabilities.
   The position is the last token equal to the parsed score (the parser takes the last labelled score);
   if the answer has no parsable score, the first token that is an integer of the scale.
2. ``sample_mean``: with ``samples`` > 1, the mean parsed score of that many answers (each its own request,
   seeds ``seed + k``; use a temperature above 0 for the samples to differ), as G-Eval's n=20 sampling.
3. ``parsed``: the parsed score of the single answer.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseChatMessage, TextMessage

from debate_eval.agents.client_wrappers import CallRecord
from debate_eval.agents.model_clients import ClientPool
from debate_eval.agents.roles import EVALUATOR, USER
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.score_parser import ParsedScore, ScoreRange
from debate_eval.debates.transcript import build_transcript

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


def _token_text(entry: dict[str, Any]) -> str:
    raw = entry.get("bytes")
    if raw:
        return bytes(raw).decode("utf-8", errors="replace")
    return str(entry.get("token", ""))


def _scale_integer(text: str, scale: ScoreRange) -> int | None:
    text = text.strip()
    if not text.isdigit():
        return None
    value = int(text)
    return value if scale.contains(value) else None


def weighted_score(
    logprobs: list[dict[str, Any]], scale: ScoreRange, parsed: ParsedScore
) -> tuple[float, dict[str, Any]] | None:
    """G-Eval's probability-weighted score from one completion's token log-probabilities, or None.

    ``logprobs`` is a list of AutoGen ``ChatCompletionTokenLogprob`` dumps (token, logprob, bytes,
    top_logprobs). Returns the score and what it was computed from.
    """
    target = int(parsed.value) if parsed.ok and parsed.value is not None and parsed.value.is_integer() else None
    positions = [i for i, entry in enumerate(logprobs) if _scale_integer(_token_text(entry), scale) is not None]
    if target is not None:
        exact = [i for i in positions if _scale_integer(_token_text(logprobs[i]), scale) == target]
        positions = exact[-1:] if exact else positions[:1]
    if not positions:
        return None
    entry = logprobs[positions[0]]
    candidates = entry.get("top_logprobs") or [entry]
    mass: dict[int, float] = {}
    for candidate in candidates:
        value = _scale_integer(_token_text(candidate), scale)
        if value is not None:
            mass[value] = mass.get(value, 0.0) + math.exp(float(candidate["logprob"]))
    total = sum(mass.values())
    if total <= 0:
        return None
    score = sum(v * p for v, p in mass.items()) / total
    details = {
        "token_index": positions[0],
        "probabilities": {str(v): round(p / total, 6) for v, p in sorted(mass.items())},
        "covered_mass": round(total, 6),
    }
    return score, details


async def run_geval(task: EvaluationTask, config: GEvalConfig, pool: ClientPool) -> Outcome:
    """Score ``task`` with one agent (or ``samples`` independent answers)."""
    calls: list[CallRecord] = []
    material = task.material()
    messages: list[BaseChatMessage] = []
    parses: list[ParsedScore] = []
    samples = max(1, config.samples)
    base_seed = pool.settings_for("scorer").sampling.seed
    for k in range(samples):
        sampling: dict[str, Any] = {}
        if config.use_logprobs and samples == 1:
            sampling["top_logprobs"] = config.top_logprobs
        if samples > 1 and base_seed is not None:
            sampling["seed"] = base_seed + k
        client = pool.for_debate("scorer", calls, variant=f"sample{k}" if samples > 1 else "", sampling=sampling)
        agent = AssistantAgent(EVALUATOR, model_client=client, system_message=None)
        result = await agent.run(task=TextMessage(source=USER, content=task.prompt))
        chat = [m for m in result.messages if isinstance(m, BaseChatMessage)]
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
        values = [p.value for p in parses if p.ok and p.value is not None]
        score = sum(values) / len(values) if values else None
        details = {"method": "sample_mean", "samples": samples, "parsed_samples": len(values)}
    elif config.use_logprobs and calls and calls[-1].logprobs:
        weighted = weighted_score(calls[-1].logprobs, task.scale, parsed)
        if weighted is not None:
            score, info = weighted
            details = {"method": "logprob_weighted", **info}
        else:
            details = {"method": "parsed", "logprobs": "no score token among the returned log-probabilities"}
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
