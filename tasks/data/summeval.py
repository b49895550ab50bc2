"""SummEval (Fabbri et al. 2021) as preprocessed by BARTScore, UniEval and G-Eval: 100 documents x 16 summaries.

Shipped inside the package (compressed, see ``packaged/NOTICE``). Items are grouped by ``doc_id`` for the
summary-level meta-evaluation; inputs ``Document`` and ``Summary`` (G-Eval's placeholders).
"""

from __future__ import annotations

from pathlib import Path

from debate_eval.tasks.data.registry import GROUP_LEVEL, DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, check_unique, read_json_rows

ASPECTS = dict.fromkeys(("coherence", "consistency", "fluency", "relevance"), (1.0, 5.0))


def unieval_item(
    row: Row,
    spec: DatasetSpec,
    seen: dict[tuple[str, str], int],
    group: tuple[str, str],
    system_id: str,
    inputs: dict[str, str],
    scores: dict[str, float],
) -> Item:
    """The item of a row of a file in UniEval's format (SummEval, Topical-Chat): its id ``GROUP/SYSTEM``, unique in
    the file (``group``: the group's id and the field it is read from)."""
    group_id, group_field = group
    item_id = f"{group_id}/{system_id}"
    check_unique(row, seen, (group_id, system_id), (group_field, "system_id"), item_id)
    return Item(item_id, spec.name, group_id, system_id, inputs=inputs, human_scores=scores, row_index=row.index)


def load_summeval(path: Path, *, spec: DatasetSpec, data: bytes | None = None) -> list[Item]:
    """Load and validate a SummEval file (G-Eval/UniEval format) into items grouped by ``doc_id``."""
    items: list[Item] = []
    seen: dict[tuple[str, str], int] = {}
    for index, raw in enumerate(read_json_rows(path, data)):
        row = Row(path, index, raw)
        doc_id = row.text("doc_id")
        system_id = row.text("system_id")
        document = row.text("source")
        summary = row.text("system_output")
        row.optional_string("reference")
        scores = row.scores(spec.aspects)
        inputs = {"Document": document, "Summary": summary}
        items.append(unieval_item(row, spec, seen, (doc_id, "doc_id"), system_id, inputs, scores))
    return items


SPEC = register_dataset(
    DatasetSpec(
        name="summeval",
        description="CNN/DailyMail summaries: 100 documents x 16 systems, mean of 3 expert ratings",
        relative_path="summeval/summeval.json",
        aspects=ASPECTS,
        inputs=("Document", "Summary"),
        kind="summarization",
        loader=load_summeval,
        level=GROUP_LEVEL,
        upstream_url="https://raw.githubusercontent.com/nlpyang/geval/main/data/summeval.json",
        git_blob_id="812a51e6727b4a64e661603fa350d76586ef7de0",
        size_bytes=5_052_406,
        licence="MIT (Yale-LILY/SummEval; G-Eval, UniEval copies MIT); articles from CNN/DailyMail",
        attribution="Fabbri et al. 2021 (SummEval), preprocessed by BARTScore, UniEval and G-Eval",
        shipped=True,
    )
)
