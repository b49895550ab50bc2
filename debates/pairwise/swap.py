"""``--swap``: judge each pairwise item in both orders and keep what the two verdicts agree on.

The engine builds ``task.swapped`` (``with_swapped``): the same item with ``output_a`` and ``output_b``
exchanged and P rendered again. ``evaluate_both_orders`` runs a method on the task as given, then on its
twin, puts the second verdict back in the original order (``first`` <-> ``second``) and combines them
(``kit.combine.combine_orders``): the agreeing verdict, ``tie`` when they disagree. The outcome keeps both
transcripts (each entry marked with its ``order``), every call, and both orders' verdicts.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from debate_eval.debates.evaluation import EvaluationTask, Outcome, marked_transcript
from debate_eval.debates.kit.combine import combine_orders
from debate_eval.debates.pairwise.prompts import swapped_inputs
from debate_eval.debates.scoring.verdicts import ParsedVerdict, no_verdict, swap_value

if TYPE_CHECKING:  # loaded without AutoGen: the registry and --help stay light
    from debate_eval.agents.models.pool import ClientPool

ORIGINAL, SWAPPED = "original", "swapped"
Evaluate = Callable[[EvaluationTask, "ClientPool"], Awaitable[Outcome]]


def with_swapped(task: EvaluationTask, render: Callable[[Mapping[str, str]], str]) -> EvaluationTask:
    """``task`` with its twin in ``swapped``: the responses exchanged, P rendered from them by ``render``."""
    inputs = swapped_inputs(task.inputs)
    twin = replace(task, inputs=inputs, prompt=render(inputs), swapped=None)
    return replace(task, swapped=twin)


def unswapped(parsed: ParsedVerdict | None) -> ParsedVerdict:
    """The swapped order's verdict in the original order."""
    if parsed is None or not parsed.ok:
        return parsed or no_verdict("No verdict.")
    return replace(parsed, value=swap_value(parsed.value))


def _order_summary(outcome: Outcome, verdict: str | None) -> dict[str, Any]:
    parse = outcome.verdict_parse.to_dict() if outcome.verdict_parse is not None else None
    return {
        "verdict": verdict,
        "verdict_as_given": outcome.verdict,
        "verdict_parse": parse,
        **outcome.run_fields(),
    }


def combine_outcomes(original: Outcome, swapped: Outcome) -> Outcome:
    """One outcome from both orders (``swapped`` as the method returned it, in the swapped order)."""
    first = original.verdict_parse or no_verdict("No verdict.")
    back = unswapped(swapped.verdict_parse)
    parsed, consistent = combine_orders(first, back)
    agreed = None if original.agreed is None and swapped.agreed is None else bool(original.agreed and swapped.agreed)
    return Outcome.for_verdict(
        parsed,
        decided_by=original.decided_by,
        stop_reason=f"{original.stop_reason}+{swapped.stop_reason}",
        transcript=marked_transcript(
            [({"order": ORIGINAL}, original.transcript), ({"order": SWAPPED}, swapped.transcript)]
        ),
        calls=[*original.calls, *swapped.calls],
        agreed=agreed,
        rounds=original.rounds + swapped.rounds,
        reasked=original.reasked or swapped.reasked,
        details={
            "orders": {ORIGINAL: _order_summary(original, first.value), SWAPPED: _order_summary(swapped, back.value)}
        },
        verdicts={ORIGINAL: first.value, SWAPPED: back.value},
        consistent=consistent,
    )


async def evaluate_both_orders(evaluate: Evaluate, task: EvaluationTask, pool: ClientPool) -> Outcome:
    """Run ``evaluate`` on ``task`` and on ``task.swapped`` (one after the other) and combine the verdicts."""
    if task.swapped is None:
        raise ValueError("evaluate_both_orders needs a task with its swapped twin (with_swapped)")
    original = await evaluate(task.without_swap(), pool)
    swapped = await evaluate(task.swapped, pool)
    return combine_outcomes(original, swapped)


def swapping(evaluate: Evaluate) -> Evaluate:
    """``evaluate`` that judges both orders whenever a task carries its swapped twin."""

    async def run(task: EvaluationTask, pool: ClientPool) -> Outcome:
        if task.swapped is not None:
            return await evaluate_both_orders(evaluate, task, pool)
        return await evaluate(task, pool)

    return run
