"""The size of the product (the Python files under agents/, debates/ and tasks/), at the working tree or at git
revisions: lines (code, docstrings, comments, blank), files, and the files over 400 and 600 lines.

    python scripts/product_size.py                      # the working tree
    python scripts/product_size.py e660457 HEAD         # revisions side by side (read with git, nothing checked out)
    python scripts/product_size.py --largest 10         # and the ten largest files

Lines are physical lines as ``wc -l`` counts them; a docstring line is any line of a module's, class's or
function's docstring.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PRODUCT = ("agents", "debates", "tasks")
ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Size:
    """Line and file counts of one tree."""

    kinds: Counter[str] = field(default_factory=Counter)  # "code", "docstring", "comment", "blank" -> lines
    files: dict[str, int] = field(default_factory=dict)  # path -> lines

    @property
    def lines(self) -> int:
        return sum(self.kinds.values())

    def over(self, limit: int) -> int:
        return sum(1 for lines in self.files.values() if lines > limit)


def _docstring_lines(source: str) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def measure(sources: Iterator[tuple[str, str]]) -> Size:
    """Count the lines of ``(path, source)`` pairs."""
    size = Size()
    for path, source in sources:
        docstrings = _docstring_lines(source)
        lines = source.splitlines()
        size.files[path] = len(lines)
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if not text:
                size.kinds["blank"] += 1
            elif number in docstrings:
                size.kinds["docstring"] += 1
            elif text.startswith("#"):
                size.kinds["comment"] += 1
            else:
                size.kinds["code"] += 1
    return size


def working_tree() -> Iterator[tuple[str, str]]:
    """The product's Python files as they are on disk."""
    for top in PRODUCT:
        for path in sorted((ROOT / top).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def at_revision(revision: str) -> Iterator[tuple[str, str]]:
    """The product's Python files at a git revision."""
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", revision, "--", *PRODUCT],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in sorted(n for n in names if n.endswith(".py")):
        source = subprocess.run(
            ["git", "show", f"{revision}:{name}"], cwd=ROOT, check=True, capture_output=True, text=True
        ).stdout
        yield name, source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("revisions", nargs="*", help="git revisions (default: the working tree)")
    parser.add_argument("--largest", type=int, default=0, help="also list this many largest files of the last tree")
    args = parser.parse_args()
    trees = [(revision, measure(at_revision(revision))) for revision in args.revisions] or [
        ("working tree", measure(working_tree()))
    ]
    rows = [
        ("lines", lambda s: s.lines),
        *((f"  {kind}", lambda s, kind=kind: s.kinds[kind]) for kind in ("code", "docstring", "comment", "blank")),
        ("files", lambda s: len(s.files)),
        ("files over 400 lines", lambda s: s.over(400)),
        ("files over 600 lines", lambda s: s.over(600)),
    ]
    print("| | " + " | ".join(name for name, _ in trees) + " |")
    print("|---|" + "---:|" * len(trees))
    for label, value in rows:
        print(f"| {label} | " + " | ".join(f"{value(size):,}" for _, size in trees) + " |")
    if args.largest:
        print()
        for path, lines in sorted(trees[-1][1].files.items(), key=lambda item: -item[1])[: args.largest]:
            print(f"{lines:6d} {path}")


if __name__ == "__main__":
    main()
