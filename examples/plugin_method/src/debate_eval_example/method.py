"""``example-single``: one model call per item, with this package's own system prompt.

A complete debate-eval method in one module. The entry point in ``pyproject.toml`` names this module;
importing it registers the method, so ``debate-eval run --method example-single`` works once the package
is installed (``pip install -e examples/plugin_method``). Nothing in debate-eval itself is edited.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseChatMessage, TextMessage

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.debates.base import Method, MethodContext, option, register_method
from debate_eval.debates.evaluation import EvaluationTask, Outcome, score_text
from debate_eval.debates.kit.transcript import build_transcript

JUDGE = "Scorer"  # the agent's name; its role, "scorer", picks its model settings and its transcript entries


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
        """Ask once; parse the answer (copies of the judged texts are blanked out before parsing)."""
        calls: list[CallRecord] = []
        material = task.material()
        client = pool.for_debate("scorer", calls)  # records each call (usage, cache hits) into ``calls``
        agent = AssistantAgent(JUDGE, model_client=client, system_message=config.system_prompt)
        result = await agent.run(task=TextMessage(source="user", content=task.prompt))
        messages = [m for m in result.messages if isinstance(m, BaseChatMessage)]
        parsed = score_text(messages[-1].to_text(), task, material)
        transcript = build_transcript(
            messages, calls, lambda m: score_text(m.to_text(), task, material) if m.source == JUDGE else None
        )
        return Outcome(
            score=parsed.value if parsed.ok else None,
            parse=parsed,
            decided_by=JUDGE,
            stop_reason="single_answer",
            transcript=transcript,
            calls=calls,
        )
