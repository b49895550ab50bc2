"""Auto-J's pairwise test set (Li et al. 2023, "Generative Judge for Evaluating Alignment"): 1392 pairs.

``autoj/testdata_pairwise.jsonl`` (GAIR-NLP/auto-j; no data licence stated, so it does not ship): one object
per line with ``scenario`` (58 scenarios x 24), ``label`` (0 = response 1 better, 1 = response 2 better,
2 = tie; 520 / 499 / 373), ``prompt``, ``response 1``, ``response 2``. Inputs: ``question`` = ``prompt``,
``input`` empty, ``output_a`` / ``output_b`` the two responses; ``system_id`` = the scenario. Item ids are
the row numbers from 1 (the file has no ids).
"""

from __future__ import annotations

from pathlib import Path

from debate_eval.tasks.data.pairwise import SPEC_FIELDS, row_pair
from debate_eval.tasks.data.registry import DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, describe, read_jsonl_rows

CODES = {0: "first", 1: "second", 2: "tie"}
FIELDS = ("scenario", "prompt", "response 1", "response 2")  # system, question, the two responses


def load_autoj(path: Path, *, spec: DatasetSpec, data: bytes | None = None) -> list[Item]:
    """Load Auto-J's pairwise test set."""
    items: list[Item] = []
    for index, raw in enumerate(read_jsonl_rows(path)):
        row = Row(path, index, raw)
        code = row.get("label")
        if isinstance(code, str) and code.strip() in ("0", "1", "2"):
            code = int(code)
        if isinstance(code, bool) or code not in CODES:
            raise row.error("label", f"expected 0 (first), 1 (second) or 2 (tie), got {describe(code)}")
        items.append(row_pair(row, spec.name, f"{index + 1:04d}", CODES[code], FIELDS))
    return items


SPEC = register_dataset(
    DatasetSpec(
        name="autoj_pairwise",
        description="Auto-J pairwise test set: 1392 pairs over 58 scenarios, human preference",
        relative_path="autoj/testdata_pairwise.jsonl",
        loader=load_autoj,
        upstream_url="https://github.com/GAIR-NLP/auto-j/raw/2ae17a39/data/test/testdata_pairwise.jsonl",
        git_blob_id="7acc5fd8b4a85fdf26f85088c1d66482e29713b1",
        size_bytes=4_066_039,
        licence="none stated upstream (GAIR-NLP/auto-j); not shipped",
        attribution="Li et al. 2023, Generative Judge for Evaluating Alignment (Auto-J)",
        **SPEC_FIELDS,
    )
)
