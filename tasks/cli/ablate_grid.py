"""The grid of ``debate-eval ablate``: ``--grid KEY=V1,V2`` parsed into cells (one run configuration each),
and the cells whose resolved configurations are equal found, so that they share one run.

Grid keys are the names of the options they vary (``method``, ``critic``: a persona name or file,
``max_rounds``, ``branches``: Fennec's k, which other methods ignore) and ``commander`` (fixed, llm:
``--commander-llm`` off and on); ``protocol`` and ``rounds``, their earlier names, are still read.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from debate_eval.agents.errors import UserError
from debate_eval.debates.base import DEFAULT_METHOD, all_methods, declared_options, get_method
from debate_eval.tasks.engine.build import build_run_config
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.run_config import RunConfig

GRID_KEYS = ("method", "critic", "max_rounds", "commander", "branches")
GRID_ALIASES = {"protocol": "method", "rounds": "max_rounds"}  # the keys' earlier names


@dataclass(frozen=True)
class Cell:
    """One point of the grid."""

    protocol: str
    critic: str | None
    rounds: int
    commander: str  # "fixed" or "llm"
    branches: int | None = None  # --branches of a method that has it (Fennec's k); None for the others

    @property
    def name(self) -> str:
        """A readable, file-safe name."""
        parts = [self.protocol]
        if get_method(self.protocol).has_critic:
            parts += [f"critic-{Path(self.critic).stem if self.critic else 'default'}", f"n{self.rounds}"]
            if self.commander == "llm":
                parts.append("llm-commander")
        if self.branches is not None:
            parts.append(f"k{self.branches}")
        return re.sub(r"[^A-Za-z0-9_.-]+", "-", "_".join(parts))


def parse_grid(specs: Sequence[str]) -> dict[str, list[str]]:
    """``["max_rounds=1,2", "critic=plain"]`` -> ``{"max_rounds": ["1", "2"], "critic": ["plain"]}``."""
    grid: dict[str, list[str]] = {}
    for spec in specs:
        key, sep, values = spec.partition("=")
        key = GRID_ALIASES.get(key.strip(), key.strip())
        if not sep or key not in GRID_KEYS or not values.strip():
            raise UserError(f"--grid {spec!r}: expected KEY=V1,V2,... with KEY one of {', '.join(GRID_KEYS)}")
        if key in grid:
            raise UserError(f"--grid {key} is given twice; list all its values in one --grid")
        grid[key] = [v.strip() for v in values.split(",") if v.strip()]
    return grid


def option_default(name: str) -> object:
    """The declared default of a method option (the first method that declares it)."""
    for method in all_methods().values():
        options = declared_options(method)
        if name in options:
            return options[name].default
    return None


def expand_grid(grid: dict[str, list[str]], base: RunRequest) -> list[Cell]:
    """Every combination of the grid's values (defaults from the request's other options), no duplicates."""
    options = base.method_options
    methods_named = grid.get("method", [base.method or DEFAULT_METHOD])
    methods = all_methods()
    for name in methods_named:
        if name not in methods:
            raise UserError(f"--grid method: unknown method {name!r}; methods are: {', '.join(methods)}")
    critics: list[str | None] = list(grid.get("critic", [options.get("critic")]))
    try:
        rounds = [
            int(v) for v in grid.get("max_rounds", [str(options.get("max_rounds", option_default("max_rounds")))])
        ]
    except ValueError:
        raise UserError("--grid max_rounds: values must be integers, e.g. max_rounds=1,2,3") from None
    if any(r < 0 for r in rounds):
        raise UserError("--grid max_rounds: values must be >= 0")
    commanders = grid.get("commander", ["llm" if options.get("commander_llm") else "fixed"])
    if set(commanders) - {"fixed", "llm"}:
        raise UserError("--grid commander: values are fixed and llm")
    try:
        branches = [int(v) for v in grid.get("branches", [])]
    except ValueError:
        raise UserError("--grid branches: values must be integers, e.g. branches=1,3,5") from None
    if any(k < 1 for k in branches):
        raise UserError("--grid branches: values must be >= 1")
    cells: list[Cell] = []
    for protocol, critic, n, commander, k in itertools.product(
        methods_named, critics, rounds, commanders, branches or [None]
    ):
        debate = methods[protocol].has_critic  # other methods have no Critic, rounds or Commander
        cell = Cell(protocol, critic, n, commander) if debate else Cell(protocol, None, 0, "fixed")
        if k is not None and "branches" in getattr(methods[protocol].config_type, "__dataclass_fields__", {}):
            cell = Cell(cell.protocol, cell.critic, cell.rounds, cell.commander, k)  # only methods with branches
        if cell not in cells:
            cells.append(cell)
    return cells


def cell_config(cell: Cell, base: RunRequest) -> RunConfig:
    """The run configuration of one cell: the command's options with the cell's values (each method reads its
    own)."""
    changes: dict[str, object] = {
        "method": cell.protocol,
        "critic": cell.critic,
        "max_rounds": cell.rounds,
        "commander_llm": cell.commander == "llm",
    }
    if cell.branches is not None:
        changes["branches"] = cell.branches
    try:
        return build_run_config(base.with_options(**changes))
    except UserError as error:
        raise UserError(f"cell {cell.name}: {error}") from None


def shared_runs(cells: Sequence[Cell], configs: dict[Cell, RunConfig]) -> dict[Cell, Cell | None]:
    """For every cell, the earlier cell whose run it shares (None: the cell is run itself): what a cell's run
    actually is, its result configuration without the protocol's name, is equal (such cells make the same
    calls and give the same results: ``--critic`` overrides a method's own Critic, so ``multiagent`` with
    ``devils-advocate`` is ``debate``, and ``tiebreaker`` with ``devils-advocate`` is ``both``)."""
    first: dict[str, Cell] = {}
    same_as: dict[Cell, Cell | None] = {}
    for cell in cells:
        resolved = {key: value for key, value in configs[cell].result_config().items() if key != "protocol"}
        key = json.dumps(resolved, sort_keys=True, default=str)
        same_as[cell] = first.get(key)
        first.setdefault(key, cell)
    return same_as


def plot_rounds(grid: dict[str, list[str]], base: RunRequest) -> int:
    """The n of the persona and method panels: the largest n of a max_rounds grid, else ``--max-rounds``."""
    if grid.get("max_rounds"):
        return max(int(v) for v in grid["max_rounds"])
    return int(base.method_options.get("max_rounds", option_default("max_rounds")))  # type: ignore[arg-type]
