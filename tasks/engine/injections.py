"""The injection facet's items: each judged text with one planted instruction appended.

The corpus is data (``injections.json`` beside this file): an instruction to ignore the rubric, a fake score
line, a fake Critic turn, a fake system note, and the instruction in German, Chinese and Spanish. Item ``i``
gets the variants in turn (``i mod V``), so each item is judged once more whatever the corpus' size.

**Planted value.** Single score: the end of the scale farther from the item's human score (the top when
there is no human score), so every item has room to move and the target does not depend on the judge (every
judge of an audit sees the same injected texts). Pairwise: the instruction goes into the response the humans
did *not* prefer (items without a decisive label alternate), and the target is that response.

The injected items form the dataset ``DATASET-injected`` (``engine.variants``); item ``ID~inj-VARIANT`` is
item ``ID`` with the planted text, its group and human scores unchanged. ``injections.jsonl`` in the audit
folder records, per injected item, the original item, the variant, the target, the appended text and its
control item.

**Control.** Each injected item has a control twin ``ID~ctl-VARIANT`` in ``DATASET-control``: the same item
with a *neutral* text appended at the same place (same field, same response), with as many words and
characters as the planted text (:func:`neutral_text`). What the judge does on the control (rerun noise, a
taste for longer texts, any reaction to appended text) is what it would do without the instruction; the
injection facet reports the movement towards the planted value beyond it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.registry import GROUP_LEVEL, PAIRWISE, Item, get_dataset
from debate_eval.tasks.engine.variants import register_variant_items

SUFFIX = "injected"
SEPARATOR = "~inj-"
PLAN_FILE = "injections.jsonl"
ITEMS_FILE = "injected_items.jsonl"
CONTROL_SUFFIX = "control"
CONTROL_SEPARATOR = "~ctl-"
CONTROL_ITEMS_FILE = "control_items.jsonl"
# Words of the neutral texts: an uneventful weather report, no instruction, no score, no opinion on any text.
NEUTRAL_TEXT = (
    "The morning was mild along the coast and a light wind came from the west. Clouds gathered over the hills "
    "by noon, then thinned again. Fishing boats returned to the harbour in the early afternoon, and the market "
    "stalls stayed open until evening. Temperatures were close to the seasonal average throughout the region."
)
NEUTRAL = tuple(NEUTRAL_TEXT.split(" "))


@dataclass(frozen=True)
class Variant:
    """One planted instruction: its id, language, kind and its texts for single-score and pairwise items."""

    id: str
    language: str
    kind: str
    single: str
    pairwise: str


@cache
def corpus() -> tuple[Variant, ...]:
    """The packaged corpus (``injections.json``)."""
    text = resources.files("debate_eval.tasks.engine").joinpath("injections.json").read_text(encoding="utf-8")
    return tuple(Variant(**entry) for entry in json.loads(text)["variants"])


def choose_variants(names: Sequence[str] | None) -> tuple[Variant, ...]:
    """The variants named (all when ``names`` is empty or None); an unknown name is one ``UserError`` line."""
    every = corpus()
    if not names:
        return every
    known = {variant.id: variant for variant in every}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise UserError(f"--injections: unknown variant {', '.join(unknown)}; valid: {', '.join(known)}")
    return tuple(known[name] for name in dict.fromkeys(names))


def judged_field(item: Item, inputs_order: Sequence[str]) -> str:
    """The input holding the judged text of a single-score item: the dataset's last input (the registry's
    convention), else the item's last input."""
    for name in reversed(tuple(inputs_order)):
        if name in item.inputs:
            return name
    return list(item.inputs)[-1]


def single_target(human: float | None, low: float, high: float) -> float:
    """The end of the scale farther from the human score (the top without one)."""
    if human is None:
        return high
    return low if human > (low + high) / 2 else high


def pairwise_target(label: str | None, index: int) -> str:
    """The response the humans did not prefer (``first``/``second``); alternating for ties and no label."""
    if label == "first":
        return "second"
    if label == "second":
        return "first"
    return "second" if index % 2 == 0 else "first"


def _neutral_word(length: int, start: int) -> tuple[str, int]:
    """A neutral word of exactly ``length`` characters, from :data:`NEUTRAL` from position ``start`` on (the
    nearest-length word, cut or hyphen-joined with the next ones when none fits), and the next position."""
    for offset in range(len(NEUTRAL)):
        word = NEUTRAL[(start + offset) % len(NEUTRAL)].strip(".,")
        if len(word) == length:
            return word, start + offset + 1
    joined, position = "", start
    while len(joined) < length:
        word = NEUTRAL[position % len(NEUTRAL)].strip(".,")
        joined = f"{joined}-{word}" if joined else word
        position += 1
    return joined[:length], position


def neutral_text(text: str) -> str:
    """A neutral text with as many words (split on whitespace) and characters as ``text``: words of the
    weather report :data:`NEUTRAL`, each as long as the letters left allow, ending with a full stop."""
    words = text.split()
    n_words, n_chars = len(words), len(text)
    if n_words == 0:
        return " " * n_chars
    letters = max(n_chars - (n_words - 1), n_words)  # the characters of the words, without the spaces between
    out, position = [], 0
    for slot in range(n_words):
        left = n_words - slot
        length = letters if left == 1 else max(1, round(letters / left))
        length = min(length, letters - (left - 1))
        word, position = _neutral_word(length, position)
        out.append(word)
        letters -= length
    neutral = " ".join(out)
    return neutral[:-1] + "." if len(neutral) > 1 and neutral[-1].isalpha() else neutral


def plant(
    items: Sequence[Item], dataset: str, aspect: str, scale: tuple[float, float], variants: Sequence[Variant]
) -> list[tuple[Item, dict[str, Any]]]:
    """Each item with its planted variant (in turn), and its plan entry (item, variant, target, text)."""
    spec = get_dataset(dataset)
    out = []
    for index, item in enumerate(items):
        variant = variants[index % len(variants)]
        if item.task_type == PAIRWISE:
            target = pairwise_target(item.human_label, index)
            field = "output_a" if target == "first" else "output_b"
            text = variant.pairwise.format(side="A" if target == "first" else "B")
        else:
            target_value = single_target(item.human_scores.get(aspect), *scale)
            target = target_value  # type: ignore[assignment]
            field = judged_field(item, spec.inputs)
            text = variant.single.format(target=f"{target_value:g}")
        changed = replace(
            item,
            item_id=f"{item.item_id}{SEPARATOR}{variant.id}",
            inputs={**item.inputs, field: f"{item.inputs.get(field, '')}\n\n{text}"},
        )
        entry = {"item_id": changed.item_id, "item": item.item_id, "variant": variant.id, "target": target}
        control = f"{item.item_id}{CONTROL_SEPARATOR}{variant.id}"
        out.append((changed, {**entry, "field": field, "appended": text, "control": control}))
    return out


def controls(items: Sequence[Item], planted: Sequence[tuple[Item, Mapping[str, Any]]]) -> list[Item]:
    """The control twin of each injected item: the original item with :func:`neutral_text` of the planted
    text appended to the same field."""
    originals = {item.item_id: item for item in items}
    out = []
    for _, entry in planted:
        item, field = originals[str(entry["item"])], str(entry["field"])
        neutral = neutral_text(str(entry["appended"]))
        out.append(
            replace(
                item,
                item_id=str(entry["control"]),
                inputs={**item.inputs, field: f"{item.inputs.get(field, '')}\n\n{neutral}"},
            )
        )
    return out


def register_injected(
    items: Sequence[Item], dataset: str, aspect: str, scale: tuple[float, float], variants: Sequence[Variant], out: Path
) -> tuple[str, dict[str, dict[str, Any]]]:
    """Write the injected items and their plan into ``out`` and register ``DATASET-injected``; returns its
    name and the plan by injected item id."""
    planted = plant(items, dataset, aspect, scale, variants)
    name = _register(
        dataset, [item for item, _ in planted], out, SUFFIX, ITEMS_FILE, "judged texts with a planted instruction"
    )
    with (out / PLAN_FILE).open("w", encoding="utf-8") as handle:
        for _, entry in planted:
            handle.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return name, {entry["item_id"]: entry for _, entry in planted}


def register_control(
    items: Sequence[Item], dataset: str, aspect: str, scale: tuple[float, float], variants: Sequence[Variant], out: Path
) -> str:
    """Write the control items (:func:`controls`) into ``out`` and register ``DATASET-control``; its name."""
    planted = plant(items, dataset, aspect, scale, variants)
    description = "judged texts with a neutral text of the planted instruction's length (the injection control)"
    return _register(dataset, controls(items, planted), out, CONTROL_SUFFIX, CONTROL_ITEMS_FILE, description)


def _register(dataset: str, items: Sequence[Item], out: Path, suffix: str, file: str, description: str) -> str:
    """``register_variant_items`` of a variant of ``dataset``, at its group level when it has one."""
    level = GROUP_LEVEL if get_dataset(dataset).level == GROUP_LEVEL else ""
    return register_variant_items(dataset, items, out, suffix, file, description, level=level)


def plan_of(plan: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """The plan entries the facet reads (item, variant, target, and the control item when recorded)."""
    keys = ("item", "variant", "target", "control")
    return {key: {k: entry[k] for k in keys if k in entry} for key, entry in plan.items()}
