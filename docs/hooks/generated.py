"""mkdocs hooks: the pages that are generated at build time, never written by hand.

- ``reference/api.md``: one mkdocstrings entry per name of ``debate_eval.__all__`` (the docstrings are the text);
- ``reference/cli.md``: every ``debate-eval`` command's ``--help``, read from the command line's own parser;
- ``benchmarks/*.md`` (and their figures): the reports under ``benchmarks/``, shown as they are committed.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"


def api_markdown() -> str:
    """The API reference: the names of ``debate_eval.__all__``, each rendered from its docstring."""
    import debate_eval

    names = sorted((name for name in debate_eval.__all__ if not name.startswith("_")), key=str.lower)
    lines = [
        "# Python API reference",
        "",
        "Generated from the docstrings of every name in `debate_eval.__all__` (nothing else is promised).",
        "`debate_eval.__version__` is the installed version.",
        "",
    ]
    for name in names:
        lines += [f"::: debate_eval.{name}", ""]
    return "\n".join(lines)


def help_text(argv: list[str]) -> str:
    """What ``debate-eval ARGV --help`` prints, from the command line's own parser."""
    from debate_eval.tasks.cli.main import build_parser, command_of

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        build_parser(command_of(argv)).parse_args([*argv, "--help"])
    return out.getvalue().rstrip()


def cli_markdown() -> str:
    """The CLI reference: ``debate-eval --help`` and every command's ``--help``, from the parser itself."""
    from debate_eval.tasks.cli.main import COMMANDS

    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal's width: the same page on every machine
    lines = [
        "# Command-line reference",
        "",
        "Generated from the `debate-eval` argument parser when the site is built: each command's `--help`, as",
        "`debate-eval COMMAND --help` prints it.",
        "",
        "```text",
        help_text([]),
        "```",
        "",
    ]
    for name, (_module, help_line) in COMMANDS.items():
        lines += [f"## `debate-eval {name}`", "", help_line[0].upper() + help_line[1:] + ".", "", "```text"]
        lines += [help_text([name]), "```", ""]
    return "\n".join(lines)


_SOURCE_TREE: Path | None = None


def source_tree() -> Path:
    """A folder laid out as the installed package, for mkdocstrings to read the sources from.

    ``debate_eval`` is ``tasks/api`` and its subpackages are the repository's top folders (pyproject's
    ``package-dir``), which a static reader of the checkout cannot follow: the folder links them as installed.
    """
    global _SOURCE_TREE
    if _SOURCE_TREE is None:
        _SOURCE_TREE = Path(tempfile.mkdtemp(prefix="debate-eval-docs-"))
        package = _SOURCE_TREE / "debate_eval"
        package.mkdir()
        for entry in (ROOT / "tasks" / "api").iterdir():
            (package / entry.name).symlink_to(entry)
        for layer in ("agents", "debates", "tasks"):
            (package / layer).symlink_to(ROOT / layer, target_is_directory=True)
    return _SOURCE_TREE


@event_priority(100)  # before mkdocstrings starts its handler, which reads the paths once
def on_config(config: Any) -> Any:
    """Point mkdocstrings at the package as installed (see ``source_tree``)."""
    handlers = config.plugins["mkdocstrings"].config.handlers
    handlers.setdefault("python", {})["paths"] = [str(source_tree())]
    return config


def on_shutdown() -> None:
    """Remove the folder of links made for mkdocstrings."""
    if _SOURCE_TREE is not None:
        shutil.rmtree(_SOURCE_TREE, ignore_errors=True)


def on_files(files: Files, config: Any) -> Files:
    """Add the generated reference pages and the benchmark reports to the site."""
    files.append(File.generated(config, "reference/api.md", content=api_markdown()))
    files.append(File.generated(config, "reference/cli.md", content=cli_markdown()))
    for path in sorted(BENCHMARKS.iterdir()):
        if path.suffix in (".md", ".png"):
            files.append(File.generated(config, f"benchmarks/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """A benchmark report's links to files of the repository outside the site become their paths."""
    if page.file.src_uri.startswith("benchmarks/"):
        return re.sub(r"\[([^\]]+)\]\(\.\./([^)\s]+)\)", r"\1 (`\2`)", markdown)
    return markdown
