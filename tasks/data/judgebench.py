"""JudgeBench (Tan et al. 2024): 350 pairs of GPT-4o responses, one objectively correct.

``judgebench/judgebench_gpt-4o-2024-05-13.jsonl`` (ScalerLab/JudgeBench, ``data/dataset=judgebench,
response_model=gpt-4o-2024-05-13.jsonl``; no licence file in the repository, so it never ships): one object per
line with ``pair_id``, ``original_id``, ``source`` (``mmlu-pro-<subject>``, ``livebench-reasoning``,
``livebench-math``, ``livecodebench``), ``question``, ``response_model``, ``response_A``, ``response_B`` and
``label`` (``A>B`` or ``B>A``: which response is correct). Item ids are the ``pair_id``s; ``system_id`` is the
``source`` (JudgeBench reports per source); the label ``A>B`` is ``first``, ``B>A`` is ``second`` (JudgeBench
has no ties). Any other JudgeBench pairs file (another response model's) is read as ``--dataset judgebench:PATH``,
and by ``debate-eval import judgebench``.
"""

from __future__ import annotations

from pathlib import Path

from debate_eval.tasks.data.pairwise import SPEC_FIELDS, row_pair
from debate_eval.tasks.data.registry import DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, check_unique, describe, read_jsonl_rows

NAME = "judgebench"
#: JudgeBench's labels as the project's pairwise labels.
LABELS = {"A>B": "first", "B>A": "second"}
FIELDS = ("source", "question", "response_A", "response_B")  # system, question, the two responses


def load_judgebench(path: Path, *, spec: DatasetSpec, data: bytes | None = None) -> list[Item]:
    """Load the pairs of a JudgeBench pairs (or outputs) file as pairwise items of ``spec``."""
    items: list[Item] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(read_jsonl_rows(path)):
        row = Row(path, index, raw)
        pair_id = row.identifier("pair_id")
        check_unique(row, seen, pair_id, ("pair_id",), pair_id)
        label = row.get("label")
        if label not in LABELS:
            raise row.error("label", f"expected A>B or B>A, got {describe(label)}")
        items.append(row_pair(row, spec.name, pair_id, LABELS[label], FIELDS))
    return items


SPEC = register_dataset(
    DatasetSpec(
        name=NAME,
        description="JudgeBench: 350 GPT-4o response pairs, one objectively correct (knowledge, reasoning, "
        "math, coding)",
        relative_path="judgebench/judgebench_gpt-4o-2024-05-13.jsonl",
        loader=load_judgebench,
        upstream_url="https://github.com/ScalerLab/JudgeBench/raw/e2c52c28/data/"
        "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl",
        git_blob_id="82996321b4ffaf7db818c88314d37fa28f109910",
        size_bytes=1_960_188,
        licence="none stated upstream (ScalerLab/JudgeBench); not shipped",
        attribution="Tan et al. 2024, JudgeBench: A Benchmark for Evaluating LLM-based Judges",
        **SPEC_FIELDS,
    )
)
