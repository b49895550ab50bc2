"""The package's shape: nothing under it is there only for the tests, benchmarks or demos.

Every module of the package must be reachable from what users reach: ``import debate_eval``, the ``debate-eval``
command and each module of its command table, and the registries of providers, methods and datasets. An edge is
an import (at any depth of a module, so lazy imports count) or a module name written as a string outside a
docstring (the lazy tables: the CLI's command table, ``debate_eval``'s attribute table, the registries). Fake
endpoints, scripted demo runs and other test aids live in ``tests/support/`` and ``scripts/demos/`` instead.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The package's folders (pyproject.toml's package-dir): debate_eval itself is tasks/api.
FOLDERS = {
    "debate_eval": ROOT / "tasks" / "api",
    "debate_eval.agents": ROOT / "agents",
    "debate_eval.debates": ROOT / "debates",
    "debate_eval.tasks": ROOT / "tasks",
}
MODULE_NAME = re.compile(r"debate_eval(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def package_modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    modules: dict[str, Path] = {}
    for prefix, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if prefix == "debate_eval.tasks" and parts[0] == "api":
                continue  # that folder is debate_eval itself
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([prefix, *parts])] = path
    return modules


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the docstring constants of a module, its classes and functions."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def referenced(name: str, path: Path) -> set[str]:
    """The dotted names a module imports or names in a (non-docstring) string, with every parent package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = _docstrings(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            names.update(MODULE_NAME.findall(node.value))
    with_parents = set()
    for found in names:
        parts = found.split(".")
        with_parents.update(".".join(parts[: i + 1]) for i in range(len(parts)))
    return with_parents


def roots() -> set[str]:
    """What users reach: the front door, the command and its table, and the built-in registries."""
    from debate_eval.agents.models.providers import BUILTIN_MODULES as providers
    from debate_eval.debates.base import BUILTIN_MODULES as methods
    from debate_eval.tasks.cli.main import COMMANDS
    from debate_eval.tasks.data.registry import BUILTIN_MODULES as datasets

    return {
        "debate_eval",
        "debate_eval.tasks.cli.main",
        *(module for module, _ in COMMANDS.values()),
        *providers,
        *methods,
        *(f"debate_eval.tasks.data.{module}" for module in datasets),
    }


def reachable(modules: dict[str, Path], start: set[str]) -> set[str]:
    """The modules reachable from ``start`` over imports and module-name strings."""
    seen: set[str] = set()
    stack = [name for name in start if name in modules]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(other for other in referenced(name, modules[name]) if other in modules and other not in seen)
    return seen


def test_every_package_module_is_reachable_from_what_users_reach() -> None:
    modules = package_modules()
    assert "debate_eval.agents.models.providers.scripted_server" in modules  # the walk sees the package
    unreachable = sorted(set(modules) - reachable(modules, roots()))
    assert unreachable == [], (
        "only tests, benchmarks or demos import these package modules; move them to tests/support/ or "
        f"scripts/demos/: {unreachable}"
    )


def test_the_walk_finds_a_module_only_a_test_would_import(tmp_path: Path) -> None:
    """The check can fail: a module nothing in the package names is reported, one named lazily is not."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text('"""Mentions debate_eval.pkg.orphan in a docstring only."""\n')
    (tmp_path / "pkg" / "lazy.py").write_text('TABLE = {"x": "debate_eval.pkg.used"}\n')
    (tmp_path / "pkg" / "used.py").write_text("from . import helper\n")
    (tmp_path / "pkg" / "helper.py").write_text("")
    (tmp_path / "pkg" / "orphan.py").write_text("")
    modules = {
        "debate_eval.pkg": tmp_path / "pkg" / "__init__.py",
        **{f"debate_eval.pkg.{n}": tmp_path / "pkg" / f"{n}.py" for n in ("lazy", "used", "helper", "orphan")},
    }
    seen = reachable(modules, {"debate_eval.pkg", "debate_eval.pkg.lazy"})
    assert set(modules) - seen == {"debate_eval.pkg.orphan"}


def test_support_is_not_part_of_the_package() -> None:
    """The fake endpoints and demo runs are importable by the tests (``support``), not shipped."""
    import support.rate_limited_server

    assert Path(support.rate_limited_server.__file__).resolve().parent == ROOT / "tests" / "support"
    assert not any("rate_limited_server" in name or "demo" in name for name in package_modules())


def test_every_package_folder_is_listed_in_pyproject() -> None:
    """A module in a folder that ``[tool.setuptools] packages`` does not list would be left out of the wheel."""
    from debate_eval.tasks.engine.config_file import _toml_module  # tomllib, or tomli on Python 3.10

    listed = set(
        _toml_module().loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"]
    )
    folders = {
        name if path.name == "__init__.py" else name.rpartition(".")[0] for name, path in package_modules().items()
    }
    assert folders - listed == set()
