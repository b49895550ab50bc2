"""Changed copies of a dataset's items as a dataset of their own, for this process (``robustness``'s
paraphrases, ``audit``'s paraphrased and injected texts).

``register_variant_items`` writes the items to a JSON-lines file in the output folder and registers them as
``DATASET-SUFFIX`` with the original set's spec (inputs, aspects and scales, task type, kind), so its built-in
templates are the original set's (the name's base, before ``-``) and a run on it is an ordinary run. The
registration lives in this process only: a command that runs on such a set registers it again first (from what
it stored), so reruns resume.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from debate_eval.tasks.data.registry import ITEM_LEVEL, DatasetSpec, Item, get_dataset, register_own_file_spec


def register_variant_items(
    dataset: str, items: Sequence[Item], out_dir: Path, suffix: str, file_name: str, description: str, level: str = ""
) -> str:
    """Write ``items`` to ``out_dir/file_name`` and register them as ``DATASET-SUFFIX`` (returned).

    ``level``: the meta-evaluation level of the new set (default: item level, each item its own group, as the
    paraphrases have always been; ``group`` keeps the original set's groups)."""
    path = (out_dir / file_name).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            row = {"item_id": item.item_id, "group_id": item.group_id, "system_id": item.system_id}
            row.update(inputs=dict(item.inputs), human_scores=dict(item.human_scores))
            row.update(task_type=item.task_type, human_label=item.human_label)
            if item.system_pair:
                row["system_pair"] = list(item.system_pair)
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return register_variant_file(dataset, path, suffix, description, level)


def register_variant_file(dataset: str, path: Path, suffix: str, description: str, level: str = "") -> str:
    """Register the items already written to ``path`` as ``DATASET-SUFFIX`` (a later command, e.g. ``report``,
    reading what an earlier one stored); returns the name."""
    spec = get_dataset(dataset)
    name = f"{dataset}-{suffix}"

    def load(file: Path, *, spec: DatasetSpec, data: bytes | None = None, **_: Any) -> list[Item]:
        rows = [json.loads(line) for line in Path(file).read_text(encoding="utf-8").splitlines() if line.strip()]
        return [
            Item(
                item_id=row["item_id"],
                dataset=spec.name,
                group_id=row["group_id"],
                system_id=row["system_id"],
                inputs=row["inputs"],
                human_scores=row["human_scores"],
                row_index=index,
                task_type=row.get("task_type") or spec.task_type,
                human_label=row.get("human_label"),
                system_pair=tuple(row["system_pair"]) if row.get("system_pair") else None,
            )
            for index, row in enumerate(rows)
        ]

    register_own_file_spec(
        replace(
            spec,
            name=name,
            relative_path=str(Path(path).resolve()),
            loader=load,
            options={},
            level=level or ITEM_LEVEL,
            shipped=False,
            variants=(suffix,),
            description=f"{spec.description} ({description})",
        )
    )
    return name
