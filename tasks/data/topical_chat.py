"""USR's annotations of Topical-Chat (Mehri & Eskenazi 2020) in UniEval's format: 60 contexts x 6 responses.

Shipped inside the package (compressed, see ``packaged/NOTICE``). Items are grouped by their dialogue
context (an id derived from its text); inputs ``Dialogue``, ``Fact`` and ``Response``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from debate_eval.tasks.data.registry import GROUP_LEVEL, DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, read_json_rows
from debate_eval.tasks.data.summeval import unieval_item

ASPECTS = {**dict.fromkeys(("naturalness", "coherence", "engagingness"), (1.0, 3.0)), "groundedness": (0.0, 1.0)}


def topical_chat_context_id(source: str) -> str:
    """A stable id for a Topical-Chat dialogue context, derived from its text alone."""
    return "tc-" + hashlib.sha1(source.encode("utf-8")).hexdigest()[:10]


def load_topical_chat(path: Path, *, spec: DatasetSpec, data: bytes | None = None) -> list[Item]:
    """Load and validate a Topical-Chat file (UniEval format); contexts are grouped by their text."""
    items: list[Item] = []
    seen: dict[tuple[str, str], int] = {}
    sources: dict[str, str] = {}
    for index, raw in enumerate(read_json_rows(path, data)):
        row = Row(path, index, raw)
        dialogue = row.text("source")
        system_id = row.text("system_id")
        response = row.text("system_output")
        fact = row.text("context")
        scores = row.scores(spec.aspects)
        context_id = topical_chat_context_id(dialogue)
        if sources.setdefault(context_id, dialogue) != dialogue:
            raise row.error("source", f"two different dialogues share the context id {context_id}")
        inputs = {"Dialogue": dialogue, "Fact": fact, "Response": response}
        items.append(unieval_item(row, spec, seen, (context_id, "source"), system_id, inputs, scores))
    return items


SPEC = register_dataset(
    DatasetSpec(
        name="topical_chat",
        description="knowledge-grounded dialogue: 60 contexts x 6 responses, mean of 3 annotators (USR)",
        relative_path="topical_chat/topical_chat.json",
        aspects=ASPECTS,
        inputs=("Dialogue", "Fact", "Response"),
        kind="dialogue",
        loader=load_topical_chat,
        level=GROUP_LEVEL,
        upstream_url=(
            "https://raw.githubusercontent.com/maszhongming/UniEval/main/reproduce/data/dialogue/topical_chat.json"
        ),
        git_blob_id="b1d805141da0c7896888b5843a0cbc8f2cc26e30",
        size_bytes=669_279,
        licence="Topical-Chat CDLA-Sharing-1.0; some facts Washington Post text, CC BY-NC-ND 4.0; UniEval copy MIT",
        attribution="Mehri & Eskenazi 2020 (USR) on Topical-Chat (Gopalakrishnan et al. 2019), UniEval format",
        shipped=True,
    )
)
