"""No import circle inside the engine (tasks/engine/) or the methods (debates/): read from the source with
``ast``, as tests/test_layers.py reads the layers (imports inside functions count; imports only for type
checkers, under ``if TYPE_CHECKING:``, do not: they never run)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "debate_eval"  # the checkout's folders are the package's sub-packages (pyproject's package-dir)


def module_name(path: Path, root: Path = ROOT) -> str:
    """``tasks/engine/runner.py`` -> ``debate_eval.tasks.engine.runner`` (a package: its ``__init__``'s)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([PACKAGE, *parts])


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of ``tree`` except those under ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def imports_of(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """The modules among ``modules`` that ``path`` imports at run time (``from package import module``
    counts as importing that module)."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            for alias in node.names:
                child = f"{base}.{alias.name}"
                found.add(child if child in modules else base)
    return {module for module in found if module in modules and module != name}


def circles(folder: str, root: Path = ROOT) -> list[list[str]]:
    """The import circles among the modules of ``folder``: each a strongly connected set of two or more
    modules (Tarjan's algorithm), sorted."""
    files = sorted((root / folder).rglob("*.py"))
    assert files, f"no source under {folder}"
    modules = {module_name(path, root) for path in files}
    graph = {module_name(path, root): sorted(imports_of(path, modules, root)) for path in files}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_circle_finder_finds_a_circle(tmp_path: Path) -> None:
    """Checked on a made-up package: a -> b -> c -> a is one circle, d (imported by a) is outside it."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "a.py").write_text("from debate_eval.pkg import b\nimport debate_eval.pkg.d\n", encoding="utf-8")
    (folder / "b.py").write_text("def f():\n    from debate_eval.pkg.c import g\n", encoding="utf-8")
    (folder / "c.py").write_text("from . import a\n", encoding="utf-8")
    (folder / "d.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n")
    assert circles("pkg", tmp_path) == [["debate_eval.pkg.a", "debate_eval.pkg.b", "debate_eval.pkg.c"]]


def test_no_import_circle_in_the_engine() -> None:
    assert circles("tasks/engine") == []


def test_no_import_circle_in_the_methods() -> None:
    assert circles("debates") == []
