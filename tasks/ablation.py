"""``debate-eval ablate``: Figure 2 of the paper as a command.

Every cell of a grid (``--grid rounds=1,2,3 --grid critic=devils-advocate,plain --grid protocol=debate,geval``)
is run on the same items, each into its own run directory under ``OUT/cells/`` and all sharing the response
cache (a cell whose calls another cell already made costs nothing). Then every cell is meta-evaluated and
the command writes ``OUT/ablation.csv`` (one row per cell: correlations, tokens, calls, parse failures,
wall time) and ``OUT/ablation.png`` (three panels like Figure 2: rounds, Critic persona, debating style,
with the paper's GPT-4 numbers where the paper gives them).

Grid keys: ``rounds`` (n), ``critic`` (a persona name or file), ``protocol`` (debate, multiagent,
tiebreaker, both, geval) and ``commander`` (fixed, llm). Cells that describe the same configuration (for
example every ``rounds`` value of ``geval`` or ``chateval``, which have no Critic) are run once.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.settings import load_env_file
from debate_eval.debates.protocols import PROTOCOLS
from debate_eval.tasks.meta_eval import meta_evaluate
from debate_eval.tasks.results import read_jsonl
from debate_eval.tasks.run_command import (
    add_execution_arguments,
    add_model_arguments,
    add_protocol_arguments,
    add_selection_arguments,
    build_run_config,
    build_run_options,
)
from debate_eval.tasks.run_config import RunConfig, RunOptions
from debate_eval.tasks.runner import RunSummary, run

GRID_KEYS = ("protocol", "critic", "rounds", "commander")
CSV_COLUMNS = (
    "cell",
    "protocol",
    "critic",
    "rounds",
    "tiebreaker",
    "commander",
    "spearman",
    "kendall",
    "pearson",
    "global_spearman",
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
)


@dataclass(frozen=True)
class Cell:
    """One point of the grid."""

    protocol: str
    critic: str | None
    rounds: int
    commander: str  # "fixed" or "llm"

    @property
    def name(self) -> str:
        """A readable, file-safe name."""
        parts = [self.protocol]
        if PROTOCOLS[self.protocol].multi_agent:
            parts += [f"critic-{Path(self.critic).stem if self.critic else 'default'}", f"n{self.rounds}"]
            if self.commander == "llm":
                parts.append("llm-commander")
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", "_".join(parts))


def parse_grid(specs: Sequence[str]) -> dict[str, list[str]]:
    """``["rounds=1,2", "critic=plain"]`` -> ``{"rounds": ["1", "2"], "critic": ["plain"]}``."""
    grid: dict[str, list[str]] = {}
    for spec in specs:
        key, sep, values = spec.partition("=")
        key = key.strip()
        if not sep or key not in GRID_KEYS or not values.strip():
            raise UserError(f"--grid {spec!r}: expected KEY=V1,V2,... with KEY one of {', '.join(GRID_KEYS)}")
        if key in grid:
            raise UserError(f"--grid {key} is given twice; list all its values in one --grid")
        grid[key] = [v.strip() for v in values.split(",") if v.strip()]
    return grid


def expand_grid(grid: dict[str, list[str]], defaults: argparse.Namespace) -> list[Cell]:
    """Every combination of the grid's values (defaults from the other flags), without duplicates."""
    protocols = grid.get("protocol", [defaults.protocol])
    for protocol in protocols:
        if protocol not in PROTOCOLS:
            raise UserError(f"--grid protocol: unknown protocol {protocol!r}; protocols are: {', '.join(PROTOCOLS)}")
    critics: list[str | None] = list(grid.get("critic", [defaults.critic]))
    try:
        rounds = [int(v) for v in grid.get("rounds", [str(defaults.max_rounds)])]
    except ValueError:
        raise UserError("--grid rounds: values must be integers, e.g. rounds=1,2,3") from None
    if any(r < 0 for r in rounds):
        raise UserError("--grid rounds: values must be >= 0")
    commanders = grid.get("commander", ["llm" if defaults.commander_llm else "fixed"])
    if set(commanders) - {"fixed", "llm"}:
        raise UserError("--grid commander: values are fixed and llm")
    cells: list[Cell] = []
    for protocol, critic, n, commander in itertools.product(protocols, critics, rounds, commanders):
        debate = PROTOCOLS[protocol].multi_agent  # other protocols have no Critic, rounds or Commander
        cell = Cell(protocol, critic, n, commander) if debate else Cell(protocol, None, 0, "fixed")
        if cell not in cells:
            cells.append(cell)
    return cells


def cell_config(cell: Cell, args: argparse.Namespace) -> RunConfig:
    """The run configuration of one cell: the command's flags with the cell's values."""
    cell_args = argparse.Namespace(**vars(args))
    cell_args.protocol = cell.protocol
    cell_args.critic = cell.critic
    cell_args.max_rounds = cell.rounds
    cell_args.commander_llm = cell.commander == "llm"
    if cell.protocol in ("tiebreaker", "both") and cell.rounds == 0:
        raise UserError(f"cell {cell.name}: the Tie-breaker needs at least one round")
    return build_run_config(cell_args)


def cell_row(cell: Cell, config: RunConfig, summary: RunSummary, results: Path) -> dict[str, Any]:
    """The CSV row of one cell, from its results file and run summary."""
    records = read_jsonl(results)
    report = meta_evaluate(records).get(config.dataset, {}).get(config.aspect)
    finished = [r for r in records if not r.get("error")]
    usage = [u for r in finished for u in (r.get("usage") or {}).values()]
    row: dict[str, Any] = {
        "cell": cell.name,
        "protocol": cell.protocol,
        "critic": config.debate.critic.name if config.debate else "",
        "rounds": config.debate.max_rounds if config.debate else "",
        "tiebreaker": bool(config.debate and config.debate.tiebreaker),
        "commander": cell.commander if config.debate else "",
        "prompt_tokens": sum(int(u.get("prompt_tokens") or 0) for u in usage),
        "completion_tokens": sum(int(u.get("completion_tokens") or 0) for u in usage),
        "llm_calls": sum(int(r.get("llm_calls") or 0) for r in finished),
        "cached_calls": sum(int(r.get("cached_calls") or 0) for r in finished),
        "parse_failures": sum(1 for r in finished if r.get("score") is None),
        "failed_items": len(records) - len(finished),
        "agreed": sum(1 for r in finished if r.get("agreed")) if config.debate else "",
        "mean_rounds": round(sum(int(r.get("rounds") or 0) for r in finished) / len(finished), 3)
        if config.debate and finished
        else "",
        "wall_s": round(summary.elapsed_s, 2),
        "config_hash": config.config_hash(),
    }
    for key in ("spearman", "kendall", "pearson", "global_spearman", "n_items", "n_missing", "n_groups", "n_skipped"):
        value = getattr(report, key) if report is not None else None
        row[key] = round(value, 4) if isinstance(value, float) else value
    return row


def write_csv(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write the ablation table."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({key: "" if row.get(key) is None else row.get(key) for key in CSV_COLUMNS})


async def run_cells(cells: Sequence[Cell], args: argparse.Namespace, out_dir: Path) -> list[dict[str, Any]]:
    """Run every cell (one after the other, each with its own concurrency) and collect the rows."""
    rows = []
    for number, cell in enumerate(cells, start=1):
        config = cell_config(cell, args)
        base = build_run_options(args, config)
        options = RunOptions(**{**vars(base), "out_dir": out_dir / "cells" / cell.name})
        print(f"[{number}/{len(cells)}] {cell.name}", flush=True)
        summary = await run(config, options)
        rows.append(cell_row(cell, config, summary, options.out_dir / "results.jsonl"))
    return rows


def add_subparser(subparsers: Any) -> None:
    """Register ``ablate``."""
    parser = subparsers.add_parser(
        "ablate",
        help="run a grid of protocols / personas / rounds on the same items; write ablation.csv and .png",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    add_selection_arguments(parser)
    add_protocol_arguments(parser)
    add_model_arguments(parser)
    add_execution_arguments(parser)
    parser.add_argument(
        "--grid", action="append", default=[], metavar="KEY=V1,V2", help=f"KEY one of {', '.join(GRID_KEYS)}"
    )
    parser.set_defaults(handler=handle_ablate)


def handle_ablate(args: argparse.Namespace) -> int:
    """Run the grid and write the table and the figure."""
    from debate_eval.tasks.ablation_plot import plot_ablation

    load_env_file(args.env_file)
    grid = parse_grid(args.grid)
    cells = expand_grid(grid, args)
    out_dir = Path(args.out or f"runs/ablation_{args.dataset}_{args.aspect}")
    args.out = None  # each cell gets its own directory
    for cell in cells:
        cell_config(cell, args)  # fail on a bad cell before running any
    rows = asyncio.run(run_cells(cells, args, out_dir))
    write_csv(out_dir / "ablation.csv", rows)
    plot_ablation(rows, args.dataset, args.aspect, out_dir / "ablation.png")
    print(f"wrote {out_dir / 'ablation.csv'} and {out_dir / 'ablation.png'}")
    return 0
