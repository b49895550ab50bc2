"""``debate-eval ablate``: Figure 2 of the paper as a command.

The grid's cells and what the command writes: :data:`DESCRIPTION` (the command's --help). The grid's keys, and
the cells run once (a method without a Critic has one cell for every ``max_rounds``; cells whose resolved
configurations are equal share one run): ``ablate_grid``; a cell sharing a run still has its row, with
``same_as`` naming the cell whose run it repeats.

Only the selected items count: a cell directory that holds results of other items (an earlier ablation
with more ``--docs``) is meta-evaluated on this selection only, so every row describes the same items. A
cell that fails (an exception, or items that failed) is named in the ``error`` column, left out of the
figure, and makes the command exit with status 1; the other cells are still written.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import sys
from collections.abc import Collection, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError, require
from debate_eval.tasks.analysis.end_of_run import compare_systems
from debate_eval.tasks.analysis.formatting import PAIRWISE_COLUMNS
from debate_eval.tasks.analysis.meta_eval import meta_evaluate
from debate_eval.tasks.cli.ablate_grid import (
    GRID_KEYS,
    Cell,
    cell_config,
    expand_grid,
    parse_grid,
    plot_rounds,
    shared_runs,
)
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.cli.run import (
    add_run_arguments,
    request_from_args,
)
from debate_eval.tasks.data.datasets import load_items, resolve_data_dir, select_items
from debate_eval.tasks.engine.aspects import is_multi
from debate_eval.tasks.engine.build import build_run_options, resolve_dataset
from debate_eval.tasks.engine.config_file import request_toml
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.run_config import RunConfig
from debate_eval.tasks.engine.rundir import RunDir
from debate_eval.tasks.engine.runner import RunSummary, run

CSV_COLUMNS = (
    "cell",
    "protocol",
    "critic",
    "rounds",
    "tiebreaker",
    "commander",
    "branches",
    "spearman",
    "kendall",
    "pearson",
    "pooled_spearman",
    *PAIRWISE_COLUMNS,
    "n_items",
    "n_missing",
    "n_groups",
    "n_skipped",
    "prompt_tokens",
    "completion_tokens",
    "llm_calls",
    "cached_calls",
    "parse_failures",
    "failed_items",
    "agreed",
    "mean_rounds",
    "wall_s",
    "config_hash",
    "same_as",
    "error",
)

DESCRIPTION = """Every cell of a grid ('--grid max_rounds=1,2,3 --grid critic=devils-advocate,plain --grid
method=debate,geval') is run on the same items, each into its own run directory under 'OUT/cells/' and all sharing the
response cache (a cell whose calls another cell already made costs nothing). Then every cell is meta-evaluated and the
command writes 'OUT/ablation.csv' (one row per cell: correlations, tokens, calls, parse failures, wall time) and
'OUT/ablation.png' (three panels like Figure 2: rounds, Critic persona, debating style, with the paper's GPT-4 numbers
where the paper gives them)."""


def selected_item_ids(request: RunRequest) -> list[str]:
    """The ids of the items every cell evaluates (``--docs`` / ``--limit`` of the data)."""
    items = load_items(str(request.dataset), resolve_data_dir(request.data_dir))
    return [item.item_id for item in select_items(items, limit=request.limit, docs=request.docs)]


def selected_records(results: Path, item_ids: Collection[str]) -> list[Record]:
    """The latest record of every selected item in a results file (items of other selections are ignored)."""
    wanted = set(item_ids)
    return RunDir(results.parent).latest_records(
        key=lambda record: record.key, keep=lambda record: record.key in wanted, messages=False
    )


def cell_row(
    cell: Cell, config: RunConfig, summary: RunSummary | None, results: Path, item_ids: Collection[str]
) -> dict[str, Any]:
    """The CSV row of one cell: the selected items' records in its results file, and its run summary.

    ``summary`` is None when the run raised; ``wall_s`` is then empty. ``failed_items`` counts the selected
    items without a finished record (failed, or never reached).
    """
    records = selected_records(results, item_ids)
    debate = config.method.has_critic
    shown = config.method.describe(config.method_config) if debate else {}
    report = meta_evaluate(records).get(config.dataset, {}).get(config.aspect) if records else None
    finished = [r for r in records if r.ok]
    usage = [u for r in records for u in r.role_usage()]  # a failed item's calls count too
    row: dict[str, Any] = {
        "cell": cell.name,
        "protocol": cell.protocol,
        "critic": shown.get("critic", ""),
        "rounds": shown.get("rounds", ""),
        "tiebreaker": bool(shown.get("tiebreaker")),
        "commander": cell.commander if debate else "",
        "branches": getattr(config.method_config, "branches", ""),
        "prompt_tokens": sum(int(u.get("prompt_tokens") or 0) for u in usage),
        "completion_tokens": sum(int(u.get("completion_tokens") or 0) for u in usage),
        "llm_calls": sum(int(r.llm_calls or 0) for r in records),
        "cached_calls": sum(int(r.cached_calls or 0) for r in records),
        "parse_failures": sum(1 for r in finished if not r.judged),
        "failed_items": len(set(item_ids)) - len(finished),
        "agreed": sum(1 for r in finished if r.agreed) if debate else "",
        "mean_rounds": round(sum(int(r.rounds or 0) for r in finished) / len(finished), 3)
        if debate and finished
        else "",
        "wall_s": round(summary.elapsed_s, 2) if summary is not None else None,
        "config_hash": config.config_hash(),
        "same_as": "",
        "error": "",
    }
    for key in CSV_COLUMNS[CSV_COLUMNS.index("spearman") : CSV_COLUMNS.index("n_skipped") + 1]:
        value = getattr(report, key, None)  # a pairwise report has accuracy..agreement, a single one correlations
        row[key] = round(value, 4) if isinstance(value, float) else value
    if row["failed_items"]:
        row["error"] = f"{row['failed_items']} of {len(set(item_ids))} items failed (a rerun retries them)"
    return row


async def run_cells(
    cells: Sequence[Cell],
    configs: dict[Cell, RunConfig],
    request: RunRequest,
    out_dir: Path,
    item_ids: Collection[str],
) -> list[dict[str, Any]]:
    """Run every distinct configuration once (one after the other, each with its own concurrency); one row
    per cell, in the order of ``cells``. A cell that raises is recorded in its row's ``error``; the others
    still run."""
    same_as = shared_runs(cells, configs)
    runs = [cell for cell in cells if same_as[cell] is None]
    own: dict[Cell, dict[str, Any]] = {}
    for number, cell in enumerate(runs, start=1):
        config = configs[cell]
        options = build_run_options(replace(request, out=str(out_dir / "cells" / cell.name)), config)
        sharing = [other.name for other in cells if same_as[other] == cell]
        print(f"[{number}/{len(runs)}] {cell.name}" + (f" (also {', '.join(sharing)})" if sharing else ""), flush=True)
        summary: RunSummary | None = None
        error = ""
        try:
            summary = await run(config, options, systems=compare_systems)
        except Exception as exc:  # one failed cell must not lose the other cells
            error = f"{type(exc).__name__}: {exc}"
        row = cell_row(cell, config, summary, RunDir(options.out_dir).results_path, item_ids)
        if error:
            row["error"] = error
        own[cell] = row
    rows = []
    for cell in cells:
        target = same_as[cell]
        if target is None:
            rows.append(own[cell])
        else:
            rows.append({**own[target], "cell": cell.name, "protocol": cell.protocol, "same_as": target.name})
    return rows


def add_subparser(subparsers: Any) -> None:
    """Register ``ablate`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "ablate", handle_ablate, DESCRIPTION)
    add_run_arguments(parser)
    parser.add_argument(
        "--grid", action="append", default=[], metavar="KEY=V1,V2", help=f"KEY one of {', '.join(GRID_KEYS)}"
    )


def handle_ablate(args: argparse.Namespace) -> int:
    """Run the grid and write the table and the figure; 1 when a cell failed (the table still has every cell)."""
    from debate_eval.tasks.analysis.ablation_plot import plot_ablation

    request = resolve_dataset(request_from_args(args))
    if getattr(args, "dump_config", False):
        print(request_toml(request), end="")
        return 0
    require("matplotlib", "plots", "ablate's figure (ablation.png)")  # before any cell pays for a call
    dataset, aspect = str(request.dataset), str(request.aspect)
    if is_multi(aspect):
        raise UserError(f"ablate takes one aspect; --aspect {aspect} names several (one ablation each)")
    grid = parse_grid(args.grid)
    cells = expand_grid(grid, request)
    out_dir = Path(request.out or f"runs/ablation_{dataset}_{aspect}")
    configs = {cell: cell_config(cell, request) for cell in cells}  # fail on a bad cell before running any
    item_ids = selected_item_ids(request)
    rows = asyncio.run(run_cells(cells, configs, request, out_dir, item_ids))
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "ablation.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, restval="", extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)  # None and a missing column are written empty
    good = [row for row in rows if not row["error"]]
    plot_ablation(good, dataset, aspect, out_dir / "ablation.png", rounds=plot_rounds(grid, request))
    print(f"wrote {out_dir / 'ablation.csv'} and {out_dir / 'ablation.png'}")
    failed = [row for row in rows if row["error"]]
    if failed:
        print(
            f"{len(failed)} of {len(rows)} cells failed (in the table, not in the figure): "
            + "; ".join(f"{row['cell']}: {row['error']}" for row in failed),
            file=sys.stderr,
        )
        return 1
    return 0
