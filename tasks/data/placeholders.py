"""Template placeholders: which names a template may use, and which inputs each dataset provides.

A placeholder is ``{{Name}}`` (blanks inside the braces are tolerated); the names are the inputs of the
registered datasets (see :mod:`debate_eval.tasks.data.registry`) and of the user's own files.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.registry import get_dataset

# ``{{Name}}``; blanks inside the braces are tolerated (``{{ Summary }}``), names are case-sensitive.
PLACEHOLDER_RE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")

#: The inputs each dataset provides, in the order they are shown to the judge; the last one is the
#: output being evaluated, which every template of that dataset must show.
DATASET_INPUTS: Mapping[str, tuple[str, ...]] = {
    "summeval": ("Document", "Summary"),
    "topical_chat": ("Dialogue", "Fact", "Response"),
}

#: Every placeholder name a template may use: the inputs of the registered datasets (FED and xDial:
#: ``context``/``response`` or ``dialogue``; pairwise sets: ``question``/``input``/``output_a``/``output_b``)
#: and of the user's own files (``source``/``output``/``reference``/``context``).
KNOWN_PLACEHOLDERS: tuple[str, ...] = (
    "Document",
    "Summary",
    "Dialogue",
    "Fact",
    "Response",
    "context",
    "response",
    "dialogue",
    "source",
    "output",
    "reference",
    "question",
    "input",
    "output_a",
    "output_b",
)


def dataset_inputs(dataset: str | None) -> tuple[str, ...] | None:
    """The inputs a registered dataset (or a registered own file) provides; None when unknown."""
    if dataset is None:
        return None
    if dataset in DATASET_INPUTS:
        return tuple(DATASET_INPUTS[dataset])
    try:
        inputs = get_dataset(dataset).inputs
    except UserError:
        return None
    return tuple(inputs) or None


def template_set(dataset: str) -> str:
    """The folder of built-in templates for ``dataset``: a variant uses its base set's (xdial_fed_turn-german)."""
    try:
        return get_dataset(dataset).base_name
    except UserError:
        return dataset


def placeholders_of(text: str) -> tuple[str, ...]:
    """The placeholder names in ``text``, in order of first appearance."""
    return tuple(dict.fromkeys(match.group(1) for match in PLACEHOLDER_RE.finditer(text)))


def check_placeholders(placeholders: tuple[str, ...], dataset: str | None, source: str) -> None:
    """Refuse unknown names, names the dataset does not provide, and a template that never shows the judged
    text (the dataset's last input)."""
    unknown = [name for name in placeholders if name not in KNOWN_PLACEHOLDERS]
    if unknown:
        raise UserError(
            f"template {source}: unknown placeholder(s) {', '.join('{{' + n + '}}' for n in unknown)}; "
            f"valid placeholders: {', '.join('{{' + n + '}}' for n in KNOWN_PLACEHOLDERS)}"
        )
    allowed = dataset_inputs(dataset)
    if allowed is not None:
        foreign = [name for name in placeholders if name not in allowed]
        if foreign:
            raise UserError(
                f"template {source}: {', '.join('{{' + n + '}}' for n in foreign)} is not an input of "
                f"dataset {dataset}; its inputs are {', '.join('{{' + n + '}}' for n in allowed)}"
            )
        output = allowed[-1]
        if output not in placeholders:
            raise UserError(f"template {source} never shows the text to evaluate: add the {{{{{output}}}}} placeholder")
    elif not placeholders:
        raise UserError(
            f"template {source} has no placeholders; use {', '.join('{{' + n + '}}' for n in KNOWN_PLACEHOLDERS)}"
        )
