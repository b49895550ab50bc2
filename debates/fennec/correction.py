"""Fennec's correction: the corrector rewrites a response from the branch judgments' comments.

Which response (``target``): a single item's judged text when its merged score is below the threshold S
(``--correct-below``; default the middle of the scale, 3 on 1-5, 2 on 1-3, 0.5 on 0-1); a pairwise item's
losing response (the second when the verdict is ``first``, the first when it is ``second``; a tie or no
verdict has no loser). An item without a score is not corrected (nothing says it is below S).

The corrector sees the query view, the response and, per branch, the criterion, the grade and the judge's
comment. Its answer is the corrected text, stored in ``details["correction"]``; the item's data are never
changed. With ``--rescore-corrected`` the judge grades the corrected text again under the same criteria and
guidelines (P with the response replaced by the corrected text; k calls): the new merged score and the
gain (new minus old; pairwise: the mean grade of the corrected response minus its mean grade before).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from debate_eval.agents.models.pool import ClientPool
from debate_eval.debates.evaluation import EvaluationTask, Outcome, planted
from debate_eval.debates.fennec.branch_judgments import judgment_dict
from debate_eval.debates.fennec.merge import merge_scores, merge_verdicts
from debate_eval.debates.fennec.prompts import correct_prompt, judged_key, judged_text, replace_text
from debate_eval.debates.fennec.roles import CORRECTOR
from debate_eval.debates.fennec.team import (
    CORRECTION,
    Step,
    ask,
    judge,
    judging_material,
    judgment_parser,
    parse_judgment,
    step_transcript,
)
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.debates.scoring.verdicts import FIRST, SECOND

LOSER = {FIRST: ("output_b", "B"), SECOND: ("output_a", "A")}


def scaled_threshold(value: float | None, scale: ScoreRange) -> float:
    """``--correct-below`` on this scale: as given, or by default the middle of the scale (3 on the paper's 1-5)."""
    return scale.low + (scale.high - scale.low) / 2 if value is None else value


def correction_target(task: EvaluationTask, outcome: Outcome, threshold: float) -> tuple[str | None, str]:
    """The input to correct (None: none) and why."""
    if task.pairwise:
        if outcome.verdict not in LOSER:
            return None, f"no losing response (verdict {outcome.verdict or 'none'})"
        key, side = LOSER[outcome.verdict]
        return key, f"Response {side} lost (verdict {outcome.verdict})"
    if outcome.score is None:
        return None, "no score, so not known to be below the threshold"
    if outcome.score >= threshold:
        return None, f"score {outcome.score:g} is not below {threshold:g}"
    return judged_key(task) or "", f"score {outcome.score:g} is below {threshold:g}"


def _grade(branch: dict[str, Any], side: str | None) -> str:
    value = (branch.get("scores") or {}).get(side) if side is not None else (branch.get("score") or {}).get("value")
    return "none" if value is None else f"{value:g}"


def comments(tree: Sequence[dict[str, Any]], side: str | None) -> str:
    """Each branch's criterion, grade and judgment, for the corrector."""
    return "\n\n".join(
        f"Criterion {branch['branch']}: {branch['criterion']}\nGrade: {_grade(branch, side)}\n"
        f"Comment:\n{branch['judgment'].strip()}"
        for branch in tree
    )


def clean_answer(text: str) -> str:
    """The corrector's answer without the ``<<<``/``>>>`` fences a model may echo."""
    lines = text.strip().splitlines()
    if lines and lines[0].strip() == "<<<":
        lines = lines[1:]
    if lines and lines[-1].strip() == ">>>":
        lines = lines[:-1]
    return "\n".join(lines).strip()


async def _rescore(
    task: EvaluationTask, original: str, corrected: str, tree: Sequence[dict[str, Any]], pool: ClientPool
) -> tuple[list[Step], list[Any]]:
    prompt = replace_text(task.prompt, original, corrected)
    steps = await asyncio.gather(
        *(judge(task, b["branch"], b["criterion"], b["guideline"], pool, prompt) for b in tree)
    )
    material = judging_material(task, [*task.untrusted, corrected], steps)
    return list(steps), [parse_judgment(task, s.answer, material, planted(task)) for s in steps]


def _mean(values: Sequence[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def _gain(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else after - before


async def correct(task: EvaluationTask, outcome: Outcome, threshold: float, rescore: bool, pool: ClientPool) -> Outcome:
    """``outcome`` with its correction (or why there is none) in ``details["correction"]``, the corrector's
    and the re-judging steps appended to its transcript and calls."""
    key, why = correction_target(task, outcome, threshold)
    info: dict[str, Any] = {"threshold": None if task.pairwise else threshold, "target": key, "why": why}
    tree = outcome.details.get("tree") or []
    if key is None or not tree:
        outcome.details["correction"] = {**info, "corrected": None}
        return outcome
    side = LOSER[outcome.verdict][1] if task.pairwise and outcome.verdict in LOSER else None
    original = str(task.inputs.get(key, "")) if task.pairwise else judged_text(task)
    request = correct_prompt(task, original, comments(tree, side))
    step = await ask(pool, CORRECTOR, request, CORRECTION, None)
    corrected = clean_answer(step.answer)
    info["corrected"] = corrected
    steps = [step]
    if rescore and corrected:
        judged, parses = await _rescore(task, original, corrected, tree, pool)
        steps += judged
        info["rescore"] = _rescore_summary(outcome, parses, side)
    material = judging_material(task, [*task.untrusted, corrected], steps[1:])
    extra = step_transcript(steps, judgment_parser(task, material, planted(task)))
    for entry in extra:
        entry["index"] += len(outcome.transcript)
    outcome.transcript += extra
    outcome.calls += [call for s in steps for call in s.calls]
    outcome.details["correction"] = info
    return outcome


def _rescore_summary(outcome: Outcome, parses: Sequence[Any], side: str | None) -> dict:
    judgments = [judgment_dict(p) for p in parses]
    if side is None:
        merged = merge_scores(parses)
        return {"judgments": judgments, "score": merged.value, "gain": _gain(outcome.score, merged.value)}
    before = _mean([(b.get("scores") or {}).get(side) for b in outcome.details.get("tree") or []])
    after = _mean([p.scores()[side] for p in parses])
    verdict = merge_verdicts([p.verdict for p in parses])
    return {
        "judgments": judgments,
        "side": side,
        "score_before": before,
        "score": after,
        "gain": _gain(before, after),
        "verdict": verdict.value,
    }
