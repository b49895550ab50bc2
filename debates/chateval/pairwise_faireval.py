"""ChatEval's released FairEval flow for pairwise items (``--method chateval --fidelity authors-code``).

What ``chanchimin/ChatEval`` (Apache-2.0) ran for its FairEval experiment - ``llm_eval.py`` (both presentation
orders: ``--reverse_input``), the FairEval ``config.yaml`` (prompt, roles, final prompt, decoding),
``LLMEvalParser``, ``eval_helper/get_evaluation.py`` and ``calc_adversarial_results_calc_score_calibration.py``
(scores over both orders) - as this project's code:

- **Both orders, one panel each.** The discussion runs once with Assistant 1 = ``output_a`` and Assistant
  2 = ``output_b`` and once the other way round, each from a fresh memory, with their prompt
  (``FAIREVAL_PAIRWISE_FRAME``), their final prompt in the last turn (two score lines, 1 to 10) and the
  rest of their flow (``debates/chateval/faireval.py``).
- **Their evaluation** per order: the last N entries of the first referee's memory (N referees).
- **Their aggregation** over both orders, a parsing rule read as their scripts read it, judged text blanked
  out as in every mode (``debates/chateval/faireval_scores.py``). Their script holds two variants: ``single``
  reads the first entry only, with the FairEval labels (equal and unparsable: tie); ``average`` sums every
  entry of both orders, with the adversarial set's labels (no tie). This flow sums every entry (the panel's
  scores) with the FairEval labels.

The question shown is the item's question, with its ``input`` below it when there is one (FairEval has none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.debates.chateval.config import DECIDED_BY, ChatEvalConfig, referee_names
from debate_eval.debates.chateval.faireval import RETRY_RELAY, FairEvalForm, run_faireval_panel
from debate_eval.debates.chateval.faireval_scores import their_pairwise_format_ok, their_verdict
from debate_eval.debates.chateval.prompts import (
    FAIREVAL_PAIRWISE_FINAL_PROMPT,
    FAIREVAL_PAIRWISE_FRAME,
)
from debate_eval.debates.chateval.run import label_panel
from debate_eval.debates.evaluation import EvaluationTask, Outcome, marked_transcript
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.pairwise.swap import ORIGINAL, SWAPPED
from debate_eval.debates.record import R, ResultRecord, details_of
from debate_eval.debates.scoring.untrusted import UntrustedMaterial
from debate_eval.debates.scoring.verdicts import FIRST, SECOND, TIE

ORDERS = ((ORIGINAL, "output_a", "output_b"), (SWAPPED, "output_b", "output_a"))  # (order, Assistant 1, 2)
THEIR_LABELS = {FIRST: "gpt35", SECOND: "vicuna", TIE: "tie"}  # FairEval's human_results names


def question_text(inputs: dict[str, str]) -> str:
    """Their ``source_text``: the question, and the item's input below it when it has one."""
    question, extra = inputs.get("question", ""), inputs.get("input", "")
    return f"{question}\n\n{extra}" if extra.strip() else question


def pairwise_form(task: EvaluationTask, first: str, second: str) -> FairEvalForm:
    """Their FairEval prompt with ``task.inputs[first]`` as Assistant 1 and ``[second]`` as Assistant 2."""
    inputs = dict(task.inputs)
    material = task.material()

    def prompt(role_description: str, agent_name: str, final_prompt: str) -> str:
        return FAIREVAL_PAIRWISE_FRAME.format(
            question=question_text(inputs),
            answer_1=inputs[first],
            answer_2=inputs[second],
            role_description=role_description,
            agent_name=agent_name,
            final_prompt=final_prompt,
        )

    def format_ok(text: str) -> bool:
        return their_pairwise_format_ok(text, material)

    return FairEvalForm(prompt, FAIREVAL_PAIRWISE_FINAL_PROMPT, format_ok, kind="pairwise")


@dataclass
class _Order:
    name: str
    transcript: list[dict[str, Any]]
    calls: list[CallRecord]
    evaluation: list[dict[str, str]]
    retries: int


async def _run_order(
    task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool, order: str, first: str, second: str
) -> _Order:
    calls: list[CallRecord] = []
    names = referee_names(config.referees)
    persona_of = dict(zip(names, config.referees, strict=True))
    form = pairwise_form(task, first, second)
    shown = FAIREVAL_PAIRWISE_FRAME.split("[System]")[0].format(
        question=question_text(dict(task.inputs)), answer_1=task.inputs[first], answer_2=task.inputs[second]
    )
    run = await run_faireval_panel(task, config, pool, calls, form=form, opening=shown.rstrip("\n"))
    messages = [message for message, _ in run.ordered]
    transcript = build_transcript(messages, calls, lambda message: None)
    label_panel(transcript, calls, run.ordered, persona_of)
    retries = sum(1 for m in messages if m.metadata.get("relay") == RETRY_RELAY)
    return _Order(order, transcript, calls, run.evaluation, retries)


async def run_faireval_pairwise(task: EvaluationTask, config: ChatEvalConfig, pool: ClientPool) -> Outcome:
    """Their FairEval flow on one pairwise item: both orders, then their aggregation of the scores."""
    orders = [await _run_order(task, config, pool, *order) for order in ORDERS]
    by_name = {order.name: order for order in orders}
    parsed, sums = their_verdict(by_name[ORIGINAL].evaluation, by_name[SWAPPED].evaluation, task.material())
    details: dict[str, Any] = {
        "fidelity": config.fidelity,
        "flow": "faireval-pairwise",
        "strategy": config.strategy,
        "turns": config.turns,
        "roles": [p.name for p in config.referees],
        "orders": {
            name: {"assistant_1": first, "assistant_2": second, "evaluation": by_name[name].evaluation}
            for name, first, second in ORDERS
        },
        "their_sums": sums,
        "their_label": THEIR_LABELS[parsed.value] if parsed.value else None,
        "reasks": sum(order.retries for order in orders),
    }
    return Outcome.for_verdict(
        parsed,
        decided_by=DECIDED_BY,
        stop_reason="turns_done",
        transcript=marked_transcript(({"order": order.name}, order.transcript) for order in orders),
        calls=[call for order in orders for call in order.calls],
        rounds=config.turns,
        reasked=any(order.retries for order in orders),
        details=details,
    )


def rescore_faireval(record: R, texts: list[str]) -> R:
    """``rescore`` of a record of this flow: their aggregation again over the stored evaluation lists."""
    details = details_of(record)
    orders = details.get("orders") or {}
    original = list((orders.get(ORIGINAL) or {}).get("evaluation") or [])
    swapped = list((orders.get(SWAPPED) or {}).get("evaluation") or [])
    parsed, sums = their_verdict(original, swapped, UntrustedMaterial(tuple(texts)))
    details.update(their_sums=sums, their_label=THEIR_LABELS[parsed.value or TIE])
    return record.replace(details=details, **parsed.record_fields())


def is_faireval_record(record: ResultRecord) -> bool:
    """True for a record of this flow."""
    return (record.details or {}).get("flow") == "faireval-pairwise"
