"""G-Eval's pairwise form: one judge call with the MT-Bench-style prompt P (compare, explain, verdict).

The single agent answers P; its verdict is parsed (``verdict_text``: copies of the responses blanked out,
verdicts planted in them ignored). An answer without a verdict is asked once more, in the same
conversation, for the verdict alone (``reask.txt``); still none gives "no verdict". With ``samples`` > 1
each sample is its own request (seed ``seed + k``) and the verdict is the majority of the samples' verdicts
(a tie when split), as ChatEval's majority vote. G-Eval's probability weighting has no pairwise form: the
verdict is parsed, never weighted.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from autogen_agentchat.messages import BaseChatMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import EVALUATOR
from debate_eval.debates.evaluation import EvaluationTask, Outcome, planted
from debate_eval.debates.geval.single import ask_evaluator
from debate_eval.debates.kit.combine import majority_verdict
from debate_eval.debates.kit.reask import Reask, ask_again, in_conversation
from debate_eval.debates.kit.reread import Parse, deciding_verdict
from debate_eval.debates.kit.transcript import pairwise_transcript
from debate_eval.debates.pairwise.prompts import judge_material, reask_text
from debate_eval.debates.scoring.verdicts import ParsedVerdict


def samples_verdict(entries: Sequence[dict[str, Any]], decided_by: str, parse: Parse) -> ParsedVerdict:
    """One order's verdict re-read (``rescore``): the Evaluator's, or with several samples (each a session
    started by a task message of the user) the majority of the samples' verdicts."""
    starts = [i for i, e in enumerate(entries) if e.get("agent") == "user" and not e.get("relay")]
    if decided_by != EVALUATOR or len(starts) <= 1:
        return deciding_verdict(entries, decided_by, parse)
    bounds = [*starts, len(entries)]
    votes = {
        f"sample{k}": deciding_verdict(entries[a:b], decided_by, parse)
        for k, (a, b) in enumerate(itertools.pairwise(bounds))
    }
    return majority_verdict(votes)


async def run_geval_pairwise(task: EvaluationTask, samples: int, pool: ClientPool) -> Outcome:
    """Judge which response of ``task`` is better with one agent (or ``samples`` independent answers)."""
    calls: list[CallRecord] = []
    material = judge_material(task.untrusted, task.prompt)  # the responses and the instructions
    markers = planted(task)
    messages: list[BaseChatMessage] = []
    parses: list[ParsedVerdict] = []
    reasked = False
    samples = max(1, samples)
    # an answer without a verdict: asked once more, in the same conversation, for the verdict alone
    request = Reask.for_verdict(material, markers, lambda _: reask_text())
    for k in range(samples):
        agent, chat = await ask_evaluator(task, pool, calls, k, samples, {})
        final = await ask_again(request.read(chat[-1].to_text()), in_conversation(agent), request)
        reasked = reasked or final.reasked
        messages += [*chat, *final.messages]
        parses.append(final.reading)

    for call in calls:  # the evaluator's calls are made through the Scorer's settings
        call.role = "evaluator"
    transcript = pairwise_transcript(messages, calls, {EVALUATOR}, material, markers)
    details: dict[str, Any] = {"method": "parsed_verdict"}
    verdict = parses[0]
    if samples > 1:
        verdict = majority_verdict({f"sample{k}": p for k, p in enumerate(parses)})
        details = {"method": "sample_majority", "samples": samples, "sample_verdicts": [p.value for p in parses]}
    return Outcome.for_verdict(
        verdict,
        decided_by=EVALUATOR,
        stop_reason="single_answer" if samples == 1 else "samples",
        transcript=transcript,
        calls=calls,
        reasked=reasked,
        details=details,
    )
