"""The task of one item under one configuration: its prompt rendered when the item is scheduled."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from debate_eval.debates.evaluation import EvaluationTask
from debate_eval.debates.pairwise.prompts import PAIRWISE_INPUTS
from debate_eval.tasks.data.datasets import Item, get_dataset
from debate_eval.tasks.engine.pairwise import PAIRWISE, build_pairwise_task, check_task_type
from debate_eval.tasks.engine.run_config import RunConfig


class TaskBuilder:
    """Renders the task of one item under one configuration, when the item is scheduled (a run of 100k items
    holds no prompt it has not started). A method that cannot judge the dataset's task type is refused when
    the builder is made; ``check`` refuses a template that some item cannot fill, before any model call."""

    def __init__(self, config: RunConfig) -> None:
        spec = get_dataset(config.dataset)
        self.config = config
        self.kind = spec.kind
        self.task_type = getattr(spec, "task_type", "single")
        check_task_type(config.protocol, config.method.task_types, config.dataset, task_type=self.task_type)
        self.swap = bool(getattr(config, "swap", False))

    def check(self, items: Iterable[Item]) -> None:
        """Each shape of the items' inputs (their names) fills the template: the one-line ``UserError`` that
        rendering would raise, raised now, without rendering a prompt."""
        self.check_shapes({tuple(item.inputs) for item in items})

    def check_shapes(self, shapes: Iterable[tuple[str, ...]]) -> None:
        """``check`` given the shapes of the items' inputs (``ItemSource.shapes``) rather than the items."""
        if self.task_type == PAIRWISE:  # every pairwise input is shown, empty or not (``task_inputs``)
            self.config.template.check_inputs(PAIRWISE_INPUTS)
            return
        for shape in shapes:
            self.config.template.check_inputs(shape)

    def __call__(self, item: Item) -> EvaluationTask:
        """The task of ``item``: its prompt rendered now; pairwise items get their swapped twin with --swap."""
        config = self.config
        if self.task_type == PAIRWISE:
            inputs = dict(item.inputs)
            return build_pairwise_task(item.item_id, inputs, config.template, config.aspect, self.kind, self.swap)
        return EvaluationTask(
            item_id=item.item_id,
            prompt=config.template.render(item.inputs),
            aspect=config.aspect,
            scale=config.template.scale,
            untrusted=tuple(item.inputs.values()),
            kind=self.kind,
            inputs=dict(item.inputs),  # a method may show some inputs apart (Fennec's criteria: never the output)
        )


def build_tasks(config: RunConfig, items: Sequence[Item]) -> list[EvaluationTask]:
    """Render the prompt of every item (a template problem fails here, before any model call). A method that
    cannot judge the dataset's task type is refused here; pairwise items get their swapped twin with --swap."""
    builder = TaskBuilder(config)
    return [builder(item) for item in items]
