"""``debate-eval datasets``: every registered dataset with its aspects and scales, task type, meta-evaluation
level, licence, and where its file is read from now (``--brief``: one line per dataset; ``aspects``, the
earlier name of that short form, is a hidden alias)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.data.datasets import describe_source
from debate_eval.tasks.data.packaged import has_packaged_copy
from debate_eval.tasks.data.registry import PAIRWISE, PAIRWISE_LABELS, DatasetSpec, all_datasets

DESCRIPTION = """List every registered dataset: its aspects with their human scales, task type, meta-evaluation level,
inputs, licence, and where its file is read from now."""


def format_aspects(spec: DatasetSpec) -> str:
    """``coherence (1-5), fluency (1-5)``; a pairwise set's aspect shows its labels."""
    return ", ".join(
        f"{aspect} ({'/'.join(PAIRWISE_LABELS) if scale is None else f'{scale[0]:g}-{scale[1]:g}'})"
        for aspect, scale in spec.aspects.items()
    )


def dataset_rows(data_dir: str | None = None) -> list[dict[str, Any]]:
    """One JSON-ready description per registered dataset."""
    return [
        {
            "name": name,
            "description": spec.description,
            "kind": spec.kind,
            "task_type": spec.task_type,
            "level": spec.level,
            "aspects": {a: None if s is None else list(s) for a, s in spec.aspects.items()},
            "inputs": list(spec.inputs),
            "variants": {spec.variant_option: list(spec.variants)} if spec.variants else {},
            "shipped": has_packaged_copy(spec),
            "read_from": describe_source(name, data_dir),
            "file": spec.relative_path,
            "upstream_url": spec.upstream_url,
            "git_blob_id": spec.git_blob_id,
            "licence": spec.licence,
            "attribution": spec.attribution,
        }
        for name, spec in all_datasets().items()
    ]


def format_datasets(rows: list[dict[str, Any]]) -> str:
    """The human-readable listing: one block per dataset."""
    lines = []
    for row in rows:
        spec = all_datasets()[row["name"]]
        level = "item-level correlation" if row["level"] == "item" else "per-group correlation, averaged"
        if row["task_type"] == PAIRWISE:
            level = "pairwise: accuracy / Cohen's kappa against the human label"
        lines.append(f"{row['name']}: {format_aspects(spec)}")
        lines.append(f"    {row['description']}")
        lines.append(f"    {row['task_type']}, {row['kind']}; {level}; inputs {', '.join(row['inputs'])}")
        if row["variants"]:
            option, values = next(iter(row["variants"].items()))
            lines.append(f"    --{option} {' | '.join(values)} (default {spec.default_variant})")
        shipped = "ships in the package" if row["shipped"] else "not shipped: 'debate-eval data download'"
        lines.append(f"    read from: {row['read_from']} ({shipped}); licence: {row['licence']}")
    lines.append(
        "your own file: run --dataset FILE.{jsonl,csv,json} --fields source=COL,output=COL,human=COL[,group=COL]"
    )
    return "\n".join(lines)


def _datasets(args: argparse.Namespace) -> int:
    if getattr(args, "brief", False):
        for name, spec in all_datasets().items():
            print(f"{name}: {format_aspects(spec)}")
        return 0
    rows = dataset_rows(getattr(args, "data_dir", None))
    print(json.dumps(rows, indent=2, ensure_ascii=False) if getattr(args, "json", False) else format_datasets(rows))
    return 0


def add_subparser(subparsers: Any) -> None:
    """Register ``datasets`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "datasets", _datasets, DESCRIPTION)
    parser.add_argument("--data-dir", help="data folder to look in (default: $DEBATE_EVAL_DATA_DIR)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="machine-readable output")
    output.add_argument("--brief", action="store_true", help="one line per dataset: its aspects and scales")
    alias = subparsers.add_parser("aspects", description="The earlier name of 'datasets --brief'.")
    alias.set_defaults(handler=_datasets, brief=True)
