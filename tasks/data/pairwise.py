"""What the pairwise sets (FairEval, PandaLM, Auto-J) share: the item shape and the spec's fixed parts.

A pairwise item has inputs ``question`` (the instruction), ``input`` (may be empty), ``output_a`` and
``output_b`` (all untrusted), ``task_type="pairwise"``, the aspect ``preference`` and ``human_label`` in
``first`` / ``second`` / ``tie``. Judging them is the pairwise methods' job; here they are loaded and
validated. Each item is its own group (accuracy and Cohen's kappa are computed over all items).
"""

from __future__ import annotations

from typing import Any

from debate_eval.tasks.data.registry import ITEM_LEVEL, PAIRWISE, PAIRWISE_LABELS, Item
from debate_eval.tasks.data.rows import Row

PAIRWISE_INPUTS = ("question", "input", "output_a", "output_b")
ASPECT = "preference"
SPEC_FIELDS: dict[str, Any] = {
    "aspects": {ASPECT: None},  # no score scale: the labels are PAIRWISE_LABELS
    "inputs": PAIRWISE_INPUTS,
    "kind": "instruction",
    "task_type": PAIRWISE,
    "level": ITEM_LEVEL,
}


def pairwise_item(
    *,
    item_id: str,
    dataset: str,
    system_id: str,
    question: str,
    input_text: str,
    output_a: str,
    output_b: str,
    label: str,
    row_index: int,
) -> Item:
    """One pairwise :class:`Item` (``label`` must be one of :data:`PAIRWISE_LABELS`)."""
    if label not in PAIRWISE_LABELS:
        raise ValueError(f"pairwise label must be one of {PAIRWISE_LABELS}, got {label!r}")
    return Item(
        item_id=item_id,
        dataset=dataset,
        group_id=item_id,
        system_id=system_id,
        inputs={"question": question, "input": input_text, "output_a": output_a, "output_b": output_b},
        human_scores={},
        row_index=row_index,
        task_type=PAIRWISE,
        human_label=label,
    )


def row_pair(row: Row, dataset: str, item_id: str, label: str, fields: tuple[str, str, str, str]) -> Item:
    """The pairwise item of ``row``, with no separate input: ``fields`` name the row's system, question and two
    responses (which may be empty), read in that order."""
    system, question, first, second = fields
    return pairwise_item(
        item_id=item_id,
        dataset=dataset,
        system_id=row.text(system),
        question=row.text(question),
        input_text="",
        output_a=row.text(first, allow_empty=True),
        output_b=row.text(second, allow_empty=True),
        label=label,
        row_index=row.index,
    )
