"""Benchmark reports that several scripts share: each script owns one section between its markers."""

from __future__ import annotations

import datetime as dt
import os
import platform
from collections.abc import Sequence
from pathlib import Path


def load_text(before: Sequence[float], after: Sequence[float]) -> str:
    """The machine's load average (1/5/15 min, ``os.getloadavg()``) before and after a benchmark's runs."""
    return (
        f"load average (1/5/15 min) {before[0]:.2f}/{before[1]:.2f}/{before[2]:.2f} before, "
        f"{after[0]:.2f}/{after[1]:.2f}/{after[2]:.2f} after"
    )


def section_head(title: str, command: str, load: str, note: str = "") -> list[str]:
    """The lines every benchmark section opens with: its ``title``, the ``command`` that wrote it, and one item
    with the date, the machine and its ``load`` (:func:`load_text`), then ``note`` (what the load changes)."""
    return [
        f"## {title}",
        "",
        "```bash",
        command,
        "```",
        "",
        f"- Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC. Machine: {platform.platform()}, "
        f"{os.cpu_count()} CPUs, shared with other jobs; {load}." + (f" {note}" if note else ""),
    ]


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
