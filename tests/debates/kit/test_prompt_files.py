"""A method's prompt files read through the kit: the file's text (trailing whitespace removed) and a JSON table
without its ``_about`` note, checked against the files read directly."""

from __future__ import annotations

import json
from pathlib import Path

from debate_eval.debates.kit.prompt_files import prompt_file, prompt_file_table

PAIRWISE = Path(__file__).resolve().parents[3] / "debates" / "pairwise" / "prompts"


def test_a_prompt_file_is_its_text_without_trailing_whitespace() -> None:
    raw = (PAIRWISE / "task.txt").read_text(encoding="utf-8")
    assert prompt_file("debate_eval.debates.pairwise", "task.txt") == raw.rstrip()


def test_a_prompt_table_leaves_out_its_notes() -> None:
    raw = json.loads((PAIRWISE / "relays.json").read_text(encoding="utf-8"))
    table = prompt_file_table("debate_eval.debates.pairwise", "relays.json")
    assert table == {key: value for key, value in raw.items() if not key.startswith("_")}
    assert set(raw) - set(table) == {key for key in raw if key.startswith("_")}
