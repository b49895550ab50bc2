"""Fennec's team at work on one item: criteria, then one branch per criterion (guideline, judgment), then merge.

Four AutoGen ``AssistantAgent``s, each with its role's system message (``prompts/system.json``) and its own
model role (``--role-model criteria_writer=...``): the criteria writer (1 call: ``k`` criteria from the
query view, re-asked once in the same conversation when fewer than ``k`` came), the guideline writer (1 call
per criterion) and the judge (1 call per criterion, seeing P, the criterion and its guideline). Branches run
concurrently. A single item costs 1 + 2k calls; the corrector (``correction``) adds its own.

Every step is a fresh agent (one conversation per call), so a branch never sees another branch's text. The
transcript keeps each step's messages marked with ``step`` (criteria, guideline, judgment) and ``branch``
(1..k); ``Outcome.details["tree"]`` keeps criterion, guideline and judgment per branch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseChatMessage, TextMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import USER, role_of
from debate_eval.debates.evaluation import EvaluationTask, Outcome, planted
from debate_eval.debates.fennec.branch_judgments import judge_pairwise, judge_single, judgment_dict
from debate_eval.debates.fennec.criteria import CriteriaParse, merge_criteria, parse_criteria
from debate_eval.debates.fennec.merge import merge_scores, merge_verdicts
from debate_eval.debates.fennec.prompts import (
    PAIRWISE_SCALE,
    criteria_prompt,
    criteria_reask,
    guideline_prompt,
    judge_prompt,
    system_message,
)
from debate_eval.debates.fennec.roles import CRITERIA_WRITER, GUIDELINE_WRITER, JUDGE
from debate_eval.debates.kit.reask import Reask, ask_again, in_conversation
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.pairwise.prompts import judge_material
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

CRITERIA, GUIDELINE, JUDGMENT = "criteria", "guideline", "judgment"
CORRECTION, RESCORE = "correction", "rescore"
BRANCHES = "branches"  # decided_by: the merged branch judgments


@dataclass
class Step:
    """The messages and calls of one agent's conversation, marked with its place in the tree."""

    step: str
    branch: int | None
    messages: list[BaseChatMessage] = field(default_factory=list)
    calls: list[CallRecord] = field(default_factory=list)
    reading: Any = None  # a re-asked step's reading of its answers (``ask``'s ``follow_up``)

    @property
    def answer(self) -> str:
        """The agent's last answer."""
        return self.messages[-1].to_text() if self.messages else ""


async def ask(
    pool: ClientPool,
    agent_name: str,
    text: str,
    step: str,
    branch: int | None,
    follow_up: Reask[Any] | None = None,
    items: int = 0,
    answer: str | None = None,
    scale: tuple[float, float] | None = None,
) -> Step:
    """One conversation with a fresh agent of ``agent_name``'s role: ``text``, then the re-ask ``follow_up``
    (if any) in the same conversation, its reading in ``Step.reading``; ``items``: the length of the
    list it writes (the criteria), ``answer`` and ``scale`` its kind and scale, for a constrained answer."""
    role = role_of(agent_name)
    record = Step(step, branch)
    client = pool.for_debate(role, record.calls, items=items, answer=answer, scale=scale)
    agent = AssistantAgent(agent_name, model_client=client, system_message=system_message(role))
    result = await agent.run(task=TextMessage(source=USER, content=text))
    record.messages += [m for m in result.messages if isinstance(m, BaseChatMessage)]
    if follow_up is not None:
        final = await ask_again(follow_up.read(record.answer), in_conversation(agent), follow_up)
        record.messages += final.messages
        record.reading = final.reading
    return record


def step_transcript(steps: Sequence[Step], parse: Callable[[Step, BaseChatMessage], dict[str, Any] | None]) -> list:
    """One transcript from the steps, in order: every entry marked with its step and branch, the judge's
    answers with their parse (``parse``)."""
    entries: list[dict[str, Any]] = []
    for record in steps:
        for entry, message in zip(
            build_transcript(record.messages, record.calls, lambda m: None), record.messages, strict=True
        ):
            entry.update(index=len(entries), step=record.step, branch=record.branch)
            parsed = parse(record, message) if message.source != USER else None
            if parsed:
                entry.update(parsed)
            entries.append(entry)
    return entries


async def write_criteria(task: EvaluationTask, k: int, pool: ClientPool) -> tuple[Step, CriteriaParse]:
    """Step 1: ``k`` criteria (re-asked once when fewer came; then what came)."""
    request: Reask[CriteriaParse] = Reask(
        lambda first: criteria_reask(len(first.criteria), k),
        lambda answer: parse_criteria(answer, k),
        done=lambda parsed: len(parsed.criteria) >= k,
        settle=lambda first, second: merge_criteria(first, second, k),
    )
    step = await ask(pool, CRITERIA_WRITER, criteria_prompt(task, k), CRITERIA, None, request, items=k)
    return step, step.reading


async def branch(task: EvaluationTask, index: int, criterion: str, pool: ClientPool) -> tuple[Step, Step]:
    """Steps 2 and 3 for one criterion: its guideline, then the judgment under it."""
    guideline = await ask(pool, GUIDELINE_WRITER, guideline_prompt(task, criterion), GUIDELINE, index)
    return guideline, await judge(task, index, criterion, guideline.answer, pool)


async def judge(
    task: EvaluationTask, index: int, criterion: str, guideline: str, pool: ClientPool, prompt: str | None = None
) -> Step:
    """Step 3 for one criterion (``prompt``: P with a corrected text, for ``--rescore-corrected``)."""
    step = JUDGMENT if prompt is None else RESCORE
    text = judge_prompt(task, criterion, guideline, prompt)
    if task.pairwise:  # a constrained answer ends with both sides' grades and the verdict, as the prompt asks
        scale = (PAIRWISE_SCALE.low, PAIRWISE_SCALE.high)
        return await ask(pool, JUDGE, text, step, index, answer="pair_scores", scale=scale)
    return await ask(pool, JUDGE, text, step, index)


def judging_material(task: EvaluationTask, texts: Sequence[str], judgments: Sequence[Step]) -> UntrustedMaterial:
    """What a judge's answer is read without: copies of the judged ``texts`` and, for a pairwise item, echoes
    of the first judgment request's instructions (P's and the format line's words: ``judge_material``), as
    ``rescore`` reads them back from the transcript."""
    if not task.pairwise:
        return UntrustedMaterial(list(texts))
    request = judgments[0].messages[0].to_text() if judgments and judgments[0].messages else task.prompt
    return judge_material(list(texts), request)


def parse_judgment(task: EvaluationTask, answer: str, material: UntrustedMaterial, markers: frozenset[str]) -> Any:
    """A judge's answer, parsed for this task type."""
    if task.pairwise:
        return judge_pairwise(answer, material, markers)
    return judge_single(answer, task, material)


def judgment_parser(task: EvaluationTask, material: UntrustedMaterial, markers: frozenset[str]) -> Callable:
    """For ``step_transcript``: the parse of a judge's answer (nothing for other agents)."""

    def parse(record: Step, message: BaseChatMessage) -> dict[str, Any] | None:
        if message.source != JUDGE:
            return None
        return judgment_dict(parse_judgment(task, message.to_text(), material, markers))

    return parse


async def run_branches(task: EvaluationTask, k: int, pool: ClientPool) -> Outcome:
    """Criteria, the branches (concurrently) and the merge, for one item in one order (no correction)."""
    markers = planted(task)
    criteria_step, criteria = await write_criteria(task, k, pool)
    pairs = await asyncio.gather(*(branch(task, i + 1, c, pool) for i, c in enumerate(criteria.criteria)))
    material = judging_material(task, task.untrusted, [judgment for _, judgment in pairs])
    steps = [criteria_step, *(s for pair in pairs for s in pair)]
    parses = [parse_judgment(task, judgment.answer, material, markers) for _, judgment in pairs]
    tree = [
        {
            "branch": i + 1,
            "criterion": criterion,
            "guideline": guideline.answer,
            "judgment": judgment.answer,
            **judgment_dict(parsed),
        }
        for i, (criterion, (guideline, judgment), parsed) in enumerate(
            zip(criteria.criteria, pairs, parses, strict=True)
        )
    ]
    details: dict[str, Any] = {
        "method": "fennec",
        "branches": k,
        "criteria": criteria.to_dict(),
        "criteria_reasked": len(criteria_step.messages) > 2,
        "tree": tree,
    }
    run = {
        "decided_by": BRANCHES,
        "stop_reason": "merged" if criteria.criteria else "no_criteria",
        "transcript": step_transcript(steps, judgment_parser(task, material, markers)),
        "calls": [call for s in steps for call in s.calls],
        "reasked": details["criteria_reasked"],
        "details": details,
    }
    if task.pairwise:
        return Outcome.for_verdict(merge_verdicts([p.verdict for p in parses]), **run)
    merged = merge_scores(parses)
    if not criteria.criteria:
        merged = replace(merged, reason="No score: the criteria writer gave no criteria, even when asked again.")
    return Outcome(score=merged.value, parse=merged, **run)
