"""PandaLM's human-annotated test set (Wang et al. 2023): 999 instruction/response pairs, 3 annotators each.

``pandalm/testset-v1.json`` (WeOpenML/PandaLM, Apache-2.0). Each annotator says 0 (tie), 1 (response1
better) or 2 (response2 better); the label is the majority of the 3 (the file never splits three ways:
879 unanimous; tie / first / second = 105 / 422 / 472). Inputs: ``question`` = ``instruction``, ``input``
(often empty), ``output_a`` = ``response1``, ``output_b`` = ``response2``; ``system_id`` = ``cmp_key``.
Kept as upstream has them: 54 empty or blank responses (a model that answered nothing; annotators prefer the other),
six responses saved as JSON ``true`` (read as "True"), and one instruction that is a blank (its text is in
``input``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from debate_eval.tasks.data.pairwise import SPEC_FIELDS, pairwise_item
from debate_eval.tasks.data.registry import DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, check_unique, describe, read_json_rows

CODES = {0: "tie", 1: "first", 2: "second"}
ANNOTATORS = ("annotator1", "annotator2", "annotator3")


def _code(row: Row, name: str) -> int:
    value = row.get(name)
    if isinstance(value, str) and value.strip() in ("0", "1", "2"):
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value in CODES:
        return value
    raise row.error(name, f"expected 0 (tie), 1 (response1 better) or 2 (response2 better), got {describe(value)}")


def response_text(row: Row, name: str) -> str:
    """A response as text. Six responses in the file are JSON ``true`` (the model answered "True" to "Verify the
    correctness of the given statement" and the value was saved as a boolean): they are read as ``"True"``."""
    value = row.get(name)
    if isinstance(value, bool):
        return "True" if value else "False"
    return row.text(name, allow_empty=True)


def majority_label(row: Row) -> str:
    """The label most of the three annotators gave; a three-way split is an error."""
    votes = Counter(_code(row, name) for name in ANNOTATORS)
    code, count = votes.most_common(1)[0]
    if count < 2:
        raise row.error("annotator1", "the three annotators disagree three ways: no majority label")
    return CODES[code]


def load_pandalm(path: Path, *, spec: DatasetSpec, data: bytes | None = None) -> list[Item]:
    """Load PandaLM's test set with majority labels."""
    items: list[Item] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(read_json_rows(path, data)):
        row = Row(path, index, raw)
        idx = row.identifier("idx")
        check_unique(row, seen, idx, ("idx",), idx)
        instruction = row.text("instruction", allow_empty=True)
        input_text = row.text("input", allow_empty=True)
        if not instruction.strip() and not input_text.strip():  # row 467 has instruction " " and its text in input
            raise row.error("instruction", "empty, and so is the input: nothing to respond to")
        items.append(
            pairwise_item(
                item_id=idx,
                dataset=spec.name,
                system_id=row.text("cmp_key"),
                question=instruction,
                input_text=input_text,
                output_a=response_text(row, "response1"),
                output_b=response_text(row, "response2"),
                label=majority_label(row),
                row_index=index,
            )
        )
    return items


SPEC = register_dataset(
    DatasetSpec(
        name="pandalm",
        description="PandaLM test set: 999 instruction/response pairs, majority of 3 human annotators",
        relative_path="pandalm/testset-v1.json",
        loader=load_pandalm,
        upstream_url="https://github.com/WeOpenML/PandaLM/raw/3871806e/data/testset-v1.json",
        git_blob_id="4d6d2d4ddafb0dda8415b00dce6633f5ebcfec1b",
        size_bytes=937_899,
        licence="Apache-2.0 (WeOpenML/PandaLM); not shipped",
        attribution="Wang et al. 2023, PandaLM: An Automatic Evaluation Benchmark for LLM Instruction Tuning",
        **SPEC_FIELDS,
    )
)
