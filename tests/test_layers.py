"""The layers hold: scripts -> tasks (cli -> api -> audit -> engine, data, analysis) -> debates -> agents: the
engine, data and analysis never import the command line or the public API; the engine and analysis never import
the audit (which runs sub-runs through the engine and builds the judge card from analysis), and the engine never
imports analysis; the public API (``import debate_eval``, tasks/api) never imports the command line. Read from
the source with ``ast`` (imports inside functions included), so it needs no tool."""

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
    "tasks/engine": ("debate_eval.tasks.cli", "debate_eval.tasks.analysis", "debate_eval.tasks.audit"),
    "tasks/analysis": ("debate_eval.tasks.cli", "debate_eval.tasks.audit"),
    "tasks/audit": ("debate_eval.tasks.cli",),
    "tasks/api": ("debate_eval.tasks.cli",),
}
# The public package ``debate_eval`` is tasks/api/ (pyproject's package-dir); its modules are debate_eval._*.
PUBLIC_IMPORTERS = ("tasks/api", "tasks/cli")  # the only folders that may import it
# Known exceptions, each with its reason (a new one needs a reason here too).
ALLOWED: dict[str, str] = {}


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


def method_packages() -> list[str]:
    """The built-in methods' modules and, for a method in its own package (``debates/debate/method.py``), that
    package: what the engine and the command line reach only through the registry."""
    from debate_eval.debates.base import BUILTIN_MODULES

    found = set(BUILTIN_MODULES)
    for module in BUILTIN_MODULES:
        package, _, last = module.rpartition(".")
        if last == "method":
            found.add(package)
    return sorted(found)


@pytest.mark.parametrize("folder", ["tasks/engine", "tasks/cli"])
def test_engine_and_cli_reach_methods_only_through_the_registry(folder: str) -> None:
    """The engine and the commands never import a method's module (they call ``get_method``)."""
    banned = method_packages()
    assert "debate_eval.debates.dialevalml" in banned and "debate_eval.debates.debate" in banned
    naming = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in imported_modules(path)
        if any(module == name or module.startswith(name + ".") for name in banned)
    ]
    assert naming == []


def imports_public_package(module: str) -> bool:
    """``debate_eval`` itself or one of its own modules (``debate_eval._run``), not a layer below it."""
    return module == "debate_eval" or module.startswith("debate_eval._")


def test_only_the_command_line_uses_the_public_api() -> None:
    """The API sits on the engine; nothing below it imports it (tasks/api's modules count as the tasks layer)."""
    found = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for folder in ("agents", "debates", "tasks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if not any(str(path.relative_to(ROOT)).startswith(top + "/") for top in PUBLIC_IMPORTERS)
        for line, module in imported_modules(path)
        if imports_public_package(module)
    ]
    assert found == []


def test_the_public_modules_are_imported_by_one_name_only() -> None:
    """tasks/api is the package ``debate_eval``; importing it as ``debate_eval.tasks.api`` would load a second
    copy of every class (an editable install can find that path)."""
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in ("agents", "debates", "tasks", "scripts", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line, module in imported_modules(path)
        if module == "debate_eval.tasks.api" or module.startswith("debate_eval.tasks.api.")
    ]
    assert found == []
