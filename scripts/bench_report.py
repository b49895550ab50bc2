"""Benchmark reports that several scripts share: each script owns one section between its markers."""

from __future__ import annotations

from pathlib import Path


def markers(section: str) -> tuple[str, str]:
    """The start and end comment lines of ``section``."""
    start = f"<!-- {section}: start (written by its script; rerun it rather than editing) -->"
    return start, f"<!-- {section}: end -->"


def replace_section(path: Path, section: str, text: str, *, title: str) -> None:
    """Write ``text`` between ``section``'s markers in ``path`` (appended when absent; the file is made with
    ``title`` as its heading when it does not exist). The other sections are kept byte for byte."""
    start, end = markers(section)
    block = f"{start}\n{text.rstrip()}\n{end}\n"
    old = path.read_text(encoding="utf-8") if path.is_file() else f"# {title}\n\n"
    if start in old and end in old:
        before, _, rest = old.partition(start)
        _, _, after = rest.partition(end)
        new = before + block.rstrip("\n") + after
    else:
        new = old.rstrip("\n") + "\n\n" + block
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(new, encoding="utf-8")
