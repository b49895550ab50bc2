"""What the engine does differently for pairwise (A versus B) items.

- ``pairwise_template``: the template P of a pairwise run, the project's (``debates/pairwise/prompts/task.txt``)
  or the user's file (``--template``) with the placeholders ``{{question}}``, ``{{input}}``, ``{{output_a}}``,
  ``{{output_b}}``. A pairwise task has no score scale; its template carries the placeholder range 0-1, which
  nothing reads.
- ``check_task_type``: a method that cannot judge the dataset's task type is refused in one line.
- ``build_pairwise_task``: the item's task (P rendered, the inputs kept, every text untrusted), with its
  swapped twin (responses exchanged, P rendered again) under ``--swap``.
- ``pairwise_fields``: what a pairwise result record adds (task type, verdict and how it was parsed, the
  human label, both orders' verdicts and whether they agree).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.pairwise.prompts import PAIRWISE_INPUTS, prompt_text, task_inputs
from debate_eval.debates.pairwise.swap import with_swapped
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.data.placeholders import placeholders_of
from debate_eval.tasks.data.templates import Template

PAIRWISE = "pairwise"
PREFERENCE = "preference"
NO_SCALE = ScoreRange(0, 1)  # a pairwise template has no scale; the type wants one


def pairwise_template(aspect: str = PREFERENCE, path: Path | None = None) -> Template:
    """P for a pairwise run: the built-in ``task.txt``, or the text of the file at ``path``.

    A user's file must show both responses (``{{output_a}}`` and ``{{output_b}}``) and use no other
    placeholders than the pairwise inputs; otherwise one ``UserError`` line names the file.
    """
    if path is None:
        text, source = prompt_text("task.txt"), f"builtin:pairwise/{PREFERENCE}"
    else:
        try:
            text = Path(path).read_text(encoding="utf-8").removeprefix("\ufeff").rstrip()
        except (OSError, UnicodeDecodeError) as error:
            raise UserError(f"template file {path}: cannot read it as UTF-8 text ({type(error).__name__})") from None
        source = str(path)
    names = placeholders_of(text)
    unknown = [name for name in names if name not in PAIRWISE_INPUTS]
    if unknown:
        shown = ", ".join("{{" + name + "}}" for name in unknown)
        valid = ", ".join("{{" + name + "}}" for name in PAIRWISE_INPUTS)
        raise UserError(f"template {source}: {shown} is not a pairwise input; pairwise placeholders are {valid}")
    missing = [name for name in ("output_a", "output_b") if name not in names]
    if missing:
        shown = " and ".join("{{" + name + "}}" for name in missing)
        raise UserError(f"template {source} never shows both responses: add the {shown} placeholder")
    return Template(dataset=None, aspect=aspect, text=text, scale=NO_SCALE, placeholders=names, source=source)


def check_task_type(method_name: str, method_task_types: Iterable[str], dataset: str, task_type: str) -> None:
    """Refuse, in one line, a method that cannot judge ``dataset``'s task type."""
    types = tuple(method_task_types)
    if task_type not in types:
        raise UserError(
            f"method {method_name} judges {' and '.join(types)} items only; dataset {dataset} is {task_type} "
            f"(`debate-eval methods` lists each method's task types)"
        )


def check_run_task_type(method: Any, dataset: str, task_type: str, swap: bool) -> str:
    """The dataset's task type, after refusing (one line each) a method that cannot judge it and ``--swap``
    on a dataset that is not pairwise."""
    check_task_type(method.name, method.task_types, dataset, task_type)
    if swap and task_type != PAIRWISE:
        raise UserError(f"--swap judges pairwise items in both orders; dataset {dataset} is {task_type}")
    return task_type


def build_pairwise_task(
    item_id: str, inputs: dict[str, str], template: Template, aspect: str, kind: str, swap: bool
) -> EvaluationTask:
    """The task of one pairwise item, with its swapped twin when ``swap``."""

    def render(values: Any) -> str:
        return template.render(task_inputs(values))

    task = EvaluationTask(
        item_id=item_id,
        prompt=render(inputs),
        aspect=aspect,
        scale=template.scale,
        untrusted=tuple(str(value) for value in inputs.values()),
        kind=kind,
        task_type=PAIRWISE,
        inputs=dict(inputs),
    )
    return with_swapped(task, render) if swap else task


def pairwise_fields(human_label: str | None, inputs: Mapping[str, str], outcome: Outcome | None) -> dict[str, Any]:
    """The fields a pairwise result record adds (``outcome`` None: a failed item); ``inputs`` (the question and
    both responses) are kept so that ``show`` can print them."""
    fields: dict[str, Any] = {
        "task_type": PAIRWISE,
        "human_label": human_label,
        "verdict": None,
        "inputs": {key: str(inputs.get(key) or "") for key in PAIRWISE_INPUTS},
    }
    if outcome is None:
        return fields
    parsed = outcome.verdict_parse
    fields.update(
        verdict=outcome.verdict,
        parse_status=parsed.status if parsed is not None else "no_verdict",
        parse_method=parsed.method if parsed is not None else "none",
        parse_reason=parsed.reason if parsed is not None else "No verdict.",
        verdict_parse=parsed.to_dict() if parsed is not None else None,
    )
    if outcome.verdicts is not None:
        fields.update(verdicts=outcome.verdicts, consistent=outcome.consistent)
    return fields
