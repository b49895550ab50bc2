"""A method's prompt files: the data files in the ``prompts/`` folder of its package, read as text or as a
JSON table."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def prompt_file(package: str, name: str) -> str:
    """The text of ``prompts/NAME`` in ``package`` (trailing whitespace removed)."""
    return (resources.files(package) / "prompts" / name).read_text(encoding="utf-8").rstrip()


@cache
def prompt_file_table(package: str, name: str) -> dict[str, str]:
    """A JSON prompt file of ``package`` as a dict (its ``_about`` note left out)."""
    data = json.loads(prompt_file(package, name))
    return {key: value for key, value in data.items() if not key.startswith("_")}
