"""The pairwise prompts, read from the data files in ``prompts/`` (the project's own words).

=====================  =====================================================================================
``task.txt``           the task prompt P (MT-Bench style: the question, both responses, compare, explain,
                       end with ``[[A]]``/``[[B]]``/``[[C]]``); placeholders ``{{question}}``, ``{{input}}``,
                       ``{{output_a}}``, ``{{output_b}}`` (the pairwise item's inputs)
``panel.txt``          ChatEval's referee instructions for a comparison (``{count}`` referees)
``summarizer.txt``     ChatEval's summarizer, for a comparison
``relays.json``        the Commander's relays in a pairwise debate (fixed texts and LLM instructions)
``personas.json``      the pairwise counterparts of the built-in DEBATE personas, keyed ``role/name``
``reask.txt``          asked once of the deciding agent when its answer has no verdict
``answer_hint.txt``    the verdict format, as the Commander states it
=====================  =====================================================================================
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace

from debate_eval.agents.personas import Persona
from debate_eval.debates.kit.prompt_files import prompt_file, prompt_file_table
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

PAIRWISE_INPUTS = ("question", "input", "output_a", "output_b")
NO_INPUT = "(none)"  # what P shows when the item has no additional input


# a prompt file of this package by name: its text (trailing whitespace removed), or a JSON one as a dict
prompt_text = functools.partial(prompt_file, "debate_eval.debates.pairwise")
prompt_table = functools.partial(prompt_file_table, "debate_eval.debates.pairwise")


def task_inputs(inputs: Mapping[str, str]) -> dict[str, str]:
    """A pairwise item's inputs as P shows them: every key present, an empty input shown as ``(none)``."""
    shown = {key: str(inputs.get(key) or "") for key in PAIRWISE_INPUTS}
    if not shown["input"].strip():
        shown["input"] = NO_INPUT
    return shown


def swapped_inputs(inputs: Mapping[str, str]) -> dict[str, str]:
    """``inputs`` with ``output_a`` and ``output_b`` exchanged (the other order of an A-versus-B item)."""
    swapped = dict(inputs)
    swapped["output_a"], swapped["output_b"] = inputs.get("output_b", ""), inputs.get("output_a", "")
    return swapped


def render_task(inputs: Mapping[str, str]) -> str:
    """P for a pairwise item: ``task.txt`` with its ``{{name}}`` placeholders filled in one pass (text inserted
    from the responses is never scanned again)."""
    shown = task_inputs(inputs)
    pattern = r"\{\{\s*(question|input|output_a|output_b)\s*\}\}"
    return re.sub(pattern, lambda m: shown[m.group(1)], prompt_text("task.txt"))


def answer_hint() -> str:
    """The verdict format, as the Commander and the Tie-breaker relay state it."""
    return prompt_text("answer_hint.txt")


def reask_text() -> str:
    """What the deciding agent is asked when its answer had no verdict."""
    return prompt_text("reask.txt")


def pairwise_persona(persona: Persona) -> Persona:
    """The pairwise counterpart of a built-in DEBATE persona; any other persona (a ChatEval referee, a user's
    file, a persona with no counterpart) unchanged."""
    text = prompt_table("personas.json").get(f"{persona.role}/{persona.name}")
    if text is None or persona.source.startswith("file:"):
        return persona
    return replace(
        persona,
        text=text,
        source=f"debate-eval's pairwise version of {persona.source}",
        description=persona.description,
    )


def instruction_chunks(prompt: str, texts: Sequence[str]) -> list[str]:
    """The parts of ``prompt`` that are not the judged ``texts``: the instructions around them."""
    shown = sorted({text for text in texts if text and text.strip()}, key=len, reverse=True)
    if not shown:
        return [prompt]
    return [chunk for chunk in re.split("|".join(re.escape(text) for text in shown), prompt) if chunk.strip()]


def judge_material(texts: Sequence[str], prompt: str) -> UntrustedMaterial:
    """What an agent's verdict is read without: copies of the judged ``texts`` and echoes of the instructions
    (P's own words, the panel, re-ask and relay texts), so that "[C] when they are equally good" copied from
    the format line picks nothing."""
    static = [prompt_text(name) for name in ("panel.txt", "reask.txt", "answer_hint.txt", "summarizer.txt")]
    static += list(prompt_table("relays.json").values())
    return UntrustedMaterial([*texts, *instruction_chunks(prompt, texts), *static])
