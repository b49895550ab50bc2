"""FED (Mehri & Eskenazi 2020): 375 turn-level and 125 dialogue-level items, each rated by 5 annotators.

Two registered sets read the same file (``fed/fed_data.json``, DSincerity/FED_Replication, a fork of
Shikib/fed; no licence stated upstream, so it does not ship): ``fed_turn`` (rows with a ``response``;
inputs ``context`` and ``response``) and ``fed_dialogue`` (rows without; input ``dialogue``). Each quality
is an aspect (``Semantically appropriate`` -> ``semantically_appropriate``); its label is the mean of the
annotators' integer scores, skipping their "N/A (...)" strings. A quality every annotator marked N/A has
no label for that item (one dialogue's ``error_recovery``). Correlations are item-level over all items of
a level, so every item is its own group.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.registry import ITEM_LEVEL, DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, describe, read_json_rows

TURN_QUALITIES: Mapping[str, tuple[float, float]] = {
    "Interesting": (0.0, 2.0),
    "Engaging": (0.0, 2.0),
    "Specific": (0.0, 2.0),
    "Relevant": (0.0, 2.0),
    "Correct": (0.0, 2.0),
    "Semantically appropriate": (0.0, 2.0),
    "Understandable": (0.0, 1.0),
    "Fluent": (0.0, 2.0),
    "Overall": (0.0, 4.0),
}
DIALOGUE_QUALITIES: Mapping[str, tuple[float, float]] = {
    "Coherent": (0.0, 2.0),
    "Error recovery": (0.0, 2.0),
    "Consistent": (0.0, 1.0),
    "Diverse": (0.0, 2.0),
    "Depth": (0.0, 2.0),
    "Likeable": (0.0, 2.0),
    "Understanding": (0.0, 2.0),
    "Flexible": (0.0, 2.0),
    "Informative": (0.0, 2.0),
    "Inquisitive": (0.0, 2.0),
    "Overall": (0.0, 4.0),
}
TURN = "turn"
DIALOGUE = "dialogue"


def aspect_name(quality: str) -> str:
    """FED's quality name as an aspect: ``Semantically appropriate`` -> ``semantically_appropriate``."""
    return quality.lower().replace(" ", "_")


def fed_item(
    dataset: str, level: str, number: int, system_id: str, inputs: dict[str, str], scores: dict[str, float], index: int
) -> Item:
    """The ``number``-th item (from 1) of a level, from the row at 0-based ``index``: its own group, its id
    shared by FED and xDial-Eval (same order)."""
    item_id = f"{'turn' if level == TURN else 'dial'}-{number:03d}"
    return Item(item_id, dataset, item_id, system_id, inputs=inputs, human_scores=scores, row_index=index)


def mean_label(row: Row, name: str, ratings: object, scale: tuple[float, float]) -> float | None:
    """The mean of the integer ratings in ``ratings``, skipping "N/A (...)" strings; None when all are N/A."""
    if not isinstance(ratings, list) or not ratings:
        raise row.error(name, f"expected a list of the annotators' ratings, got {describe(ratings)}")
    values = []
    for position, rating in enumerate(ratings, start=1):
        if isinstance(rating, str) and rating.strip().upper().startswith("N/A"):
            continue
        if isinstance(rating, bool) or not isinstance(rating, int):
            raise row.error(
                name, f'rating {position}: expected an integer or an "N/A (...)" string, got {describe(rating)}'
            )
        values.append(float(row.on_scale(name, float(rating), scale)))
    return sum(values) / len(values) if values else None


def load_fed(path: Path, *, spec: DatasetSpec, data: bytes | None = None, level: str = TURN) -> list[Item]:
    """Load the items of one level (``turn`` or ``dialogue``) of a FED file."""
    qualities = TURN_QUALITIES if level == TURN else DIALOGUE_QUALITIES
    items: list[Item] = []
    for index, raw in enumerate(read_json_rows(path, data)):
        row = Row(path, index, raw)
        if ("response" in row.raw) != (level == TURN):
            continue
        context = row.text("context")
        system = row.text("system")
        annotations = row.get("annotations")
        if not isinstance(annotations, dict):
            raise row.error("annotations", f"expected an object, got {describe(annotations)}")
        scores: dict[str, float] = {}
        for quality, scale in qualities.items():
            name = f"annotations.{quality}"
            if quality not in annotations:
                raise row.error(name, f"missing (the annotations have: {', '.join(annotations) or 'none'})")
            label = mean_label(row, name, annotations[quality], scale)
            if label is not None:
                scores[aspect_name(quality)] = label
        inputs = {"context": context, "response": row.text("response")} if level == TURN else {"dialogue": context}
        items.append(fed_item(spec.name, level, len(items) + 1, system, inputs, scores, index))
    if not items:
        raise UserError(f"{path}: the file has no {level}-level rows")
    return items


def _spec(name: str, level: str, qualities: Mapping[str, tuple[float, float]], description: str) -> DatasetSpec:
    return DatasetSpec(
        name=name,
        description=description,
        relative_path="fed/fed_data.json",
        aspects={aspect_name(quality): scale for quality, scale in qualities.items()},
        inputs=("context", "response") if level == TURN else ("dialogue",),
        kind="dialogue",
        loader=load_fed,
        level=ITEM_LEVEL,
        upstream_url=(
            "https://raw.githubusercontent.com/DSincerity/FED_Replication/"
            "349fa42ec0d44d5b24453daeb6ea6fd59acec740/fed_data.json"
        ),
        git_blob_id="92ce01c6811f72c0a8b8b75a628f71dfc3a60c3b",
        size_bytes=832_081,
        licence="none stated upstream (Shikib/fed, DSincerity/FED_Replication); not shipped",
        attribution="Mehri & Eskenazi 2020, Unsupervised Evaluation of Interactive Dialog with DialoGPT (FED)",
        options={"level": level},
    )


TURN_SPEC = register_dataset(
    _spec("fed_turn", TURN, TURN_QUALITIES, "FED turn level: 375 responses in context, mean of 5 annotators")
)
DIALOGUE_SPEC = register_dataset(
    _spec("fed_dialogue", DIALOGUE, DIALOGUE_QUALITIES, "FED dialogue level: 125 dialogues, mean of 5 annotators")
)
