"""The layers hold: scripts -> tasks -> debates -> agents, and the engine, data and analysis never import the
command line. Read from the source with ``ast`` (imports inside functions included), so it needs no tool."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# folder -> packages it must never import
FORBIDDEN = {
    "agents": ("debate_eval.debates", "debate_eval.tasks"),
    "debates": ("debate_eval.tasks",),
    "tasks/data": ("debate_eval.tasks.cli",),
    "tasks/engine": ("debate_eval.tasks.cli",),
    "tasks/analysis": ("debate_eval.tasks.cli",),
}
# Known exceptions, each with its reason (a new one needs a reason here too).
ALLOWED = {
    "tasks/analysis/report/demo.py": "a demo script (python -m ...report.demo) that drives `debate-eval run`; "
    "it is no library code and would sit better in scripts/",
}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


@pytest.mark.parametrize("folder", sorted(FORBIDDEN))
def test_no_module_imports_a_layer_above_it(folder: str) -> None:
    files = sorted((ROOT / folder).rglob("*.py"))
    assert files, f"no source under {folder}"
    upward = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in files
        if str(path.relative_to(ROOT)) not in ALLOWED
        for line, module in imported_modules(path)
        if any(module == banned or module.startswith(banned + ".") for banned in FORBIDDEN[folder])
    ]
    assert upward == []
