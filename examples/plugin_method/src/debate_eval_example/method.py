"""``example-single``: one model call per item, with this package's own system prompt.

A complete debate-eval method, registered by the entry point in ``pyproject.toml`` (which names this module;
importing it registers the method), so ``debate-eval run --method example-single`` works once the package is
installed (``pip install -e examples/plugin_method``). Nothing in debate-eval itself is edited, and it imports
only the method kit, ``debate_eval.debates``.

This module is what every ``debate-eval`` command loads (the command line is built from every method's
``Options``): the declaration, its options and its configuration, and no model code. How it judges is in
``judging.py``, which imports AutoGen and is loaded the first time the method judges, so a command that does
not run this method does not pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.debates import Method, MethodContext, UserError, option, register_method

if TYPE_CHECKING:
    from debate_eval.debates import ClientPool, EvaluationTask, Outcome


def default_prompt() -> str:
    """The packaged system prompt (``prompts/judge.txt``)."""
    return resources.files("debate_eval_example").joinpath("prompts/judge.txt").read_text(encoding="utf-8").strip()


@dataclass(frozen=True)
class ExampleConfig:
    """Everything that changes this method's results (it goes into the run's config hash)."""

    system_prompt: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json."""
        return {"system_prompt": self.system_prompt}


@dataclass(frozen=True)
class ExampleOptions:
    """Its options: each field is a flag (``--example-prompt FILE``), a ``--config`` key and an ``evaluate()``
    keyword (``example_prompt``)."""

    example_prompt: str | None = option(metavar="FILE", help="example-single: a system prompt file")


@register_method
class ExampleSingle(Method[ExampleConfig]):
    """One judge, one answer, scored by debate-eval's own score parser."""

    name = "example-single"
    description = "Example plugin: one model call per item with its own prompt, scored by the project's parser"
    config_type = ExampleConfig
    Options = ExampleOptions

    def build_config(self, options: ExampleOptions, ctx: MethodContext) -> ExampleConfig:
        """The system prompt: ``--example-prompt`` or the packaged one."""
        if not options.example_prompt:
            return ExampleConfig(default_prompt())
        try:
            return ExampleConfig(Path(options.example_prompt).read_text(encoding="utf-8").strip())
        except OSError as error:
            raise UserError(f"--example-prompt {options.example_prompt}: cannot read it ({error.strerror})") from None

    def roles(self, config: ExampleConfig) -> tuple[str, ...]:
        """The one model role it calls."""
        return ("scorer",)

    async def judge(self, task: EvaluationTask, config: ExampleConfig, pool: ClientPool) -> Outcome:
        """Ask once and read the answer (``judging.ask_once``, loaded here: the first call imports AutoGen)."""
        from debate_eval_example.judging import ask_once

        return await ask_once(task, config.system_prompt, pool)
