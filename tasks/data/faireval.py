"""FairEval (Wang et al. 2023, "Large Language Models are not Fair Evaluators"): 80 Vicuna-bench questions,
ChatGPT (gpt-3.5-turbo) against Vicuna-13B, one consolidated human label per question (41 / 25 / 14).

Read from ChatEval's preprocessed copy (``faireval/chateval_preprocessed/test.json``, from
chanchimin/ChatEval, Apache-2.0) rather than FairEval's own question/answer/review files, because it is the
file ChatEval's pairwise experiment (the one this project reproduces) reads, it holds question, both answers
and the label in one place, and its licence is stated. It agrees with FairEval's files question for question,
answer for answer and label for label (the tests check this when both are present). ``output_a`` is ChatGPT's
answer, ``output_b`` Vicuna-13B's; ``human_results`` gpt35 / vicuna / tie -> first / second / tie. Item ids
are FairEval's question ids (1-80; ChatEval counts from 0).
"""

from __future__ import annotations

from pathlib import Path

from debate_eval.tasks.data.pairwise import SPEC_FIELDS, pairwise_item
from debate_eval.tasks.data.registry import DatasetSpec, Item, register_dataset
from debate_eval.tasks.data.rows import Row, check_unique, describe, read_json_rows

LABELS = {"gpt35": "first", "vicuna": "second", "tie": "tie"}
FIRST, SECOND = "gpt35", "vicuna"


def load_faireval(path: Path, *, spec: DatasetSpec, data: bytes | None = None) -> list[Item]:
    """Load ChatEval's preprocessed FairEval file."""
    items: list[Item] = []
    seen: dict[int, int] = {}
    for index, raw in enumerate(read_json_rows(path, data)):
        row = Row(path, index, raw)
        question_id = row.get("question_id")
        if isinstance(question_id, bool) or not isinstance(question_id, int) or question_id < 0:
            raise row.error("question_id", f"expected a whole number >= 0, got {describe(question_id)}")
        check_unique(row, seen, question_id, ("question_id",), str(question_id))
        responses = row.get("response")
        if not isinstance(responses, dict):
            raise row.error("response", f"expected an object of answers by model, got {describe(responses)}")
        answers = []
        for model in (FIRST, SECOND):
            answer = responses.get(model)
            if not isinstance(answer, str) or not answer.strip():
                raise row.error(f"response.{model}", f"expected the answer text, got {describe(answer)}")
            answers.append(answer)
        verdict = row.text("human_results")
        if verdict not in LABELS:
            raise row.error("human_results", f"expected one of {', '.join(LABELS)}, got {describe(verdict)}")
        items.append(
            pairwise_item(
                item_id=str(question_id + 1),
                dataset=spec.name,
                system_id="gpt-3.5-turbo_vs_vicuna-13b",
                question=row.text("question"),
                input_text="",
                output_a=answers[0],
                output_b=answers[1],
                label=LABELS[verdict],
                row_index=index,
            )
        )
    return items


SPEC = register_dataset(
    DatasetSpec(
        name="faireval",
        description="80 Vicuna-bench questions, ChatGPT vs Vicuna-13B, human preference (ChatEval's copy)",
        relative_path="faireval/chateval_preprocessed/test.json",
        loader=load_faireval,
        upstream_url=(
            "https://github.com/chanchimin/ChatEval/raw/386e7326/agentverse/tasks/llm_eval/data/faireval/"
            "preprocessed_data/test.json"
        ),
        git_blob_id="56df022f9d7999628e33ebda7de4b1bc76e66d43",
        size_bytes=450_196,
        licence="Apache-2.0 (chanchimin/ChatEval); FairEval's own repository states none; not shipped",
        attribution="Wang et al. 2023 (FairEval), as preprocessed by Chan et al. 2023 (ChatEval)",
        **SPEC_FIELDS,
    )
)
