"""The paper's DEBATE (Algorithm 1, Appendices D, E, G) as a ``Flow``: NO ISSUE in the Critic's own words ends
the debate; the deciding agent's last answer is parsed by the project's parser, and asked once more for the
score alone when it has none (``reask``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol, TypeVar

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage, TextMessage
from autogen_core import CancellationToken

from debate_eval.agents.commander import REASK
from debate_eval.agents.roles import COMMANDER, TIEBREAKER, Relay, make_assistant
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.debate.flow import Final
from debate_eval.debates.evaluation import EvaluationTask, score_text
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial, says_no_issue

if TYPE_CHECKING:
    from autogen_core.models import ChatCompletionClient

    from debate_eval.debates.debate.run import DebateConfig


class PaperFlow:
    """``--fidelity paper``."""

    forward_first = False
    commander_replies = False

    def protocol(self, config: DebateConfig, material: UntrustedMaterial) -> DebateProtocol:
        """Algorithm 1; the Critic agrees with NO ISSUE in its own words (any case unless asked otherwise)."""
        return DebateProtocol(
            max_rounds=config.max_rounds,
            tie_breaker=config.tiebreaker is not None,
            critic_agrees=lambda text: says_no_issue(text, material, case_sensitive=config.marker_case_sensitive),
        )

    def tiebreaker(
        self, task: EvaluationTask, config: DebateConfig, client: ChatCompletionClient
    ) -> tuple[ChatAgent, Callable[[str], str] | None]:
        """The Tie-breaker as an assistant with its persona; the Commander relays as usual."""
        assert config.tiebreaker is not None
        return make_assistant(TIEBREAKER, config.tiebreaker, client), None

    def parse(self, text: str, task: EvaluationTask, material: UntrustedMaterial) -> ParsedScore:
        """The project's parser."""
        return score_text(text, task, material)

    async def final(
        self,
        task: EvaluationTask,
        config: DebateConfig,
        material: UntrustedMaterial,
        messages: list[BaseAgentEvent | BaseChatMessage],
        protocol: DebateProtocol,
        agents: dict[str, ChatAgent],
    ) -> Final:
        """The deciding agent's last answer; without a score, its answer to one re-ask (``config.reask``)."""
        decider = protocol.decided_by
        question = (lambda: REASK.format(answer_hint=task.answer_hint())) if config.reask else None
        parsed, messages, reasked = await read_decider(
            messages, agents, decider, lambda text: score_text(text, task, material), question
        )
        return Final(parsed, decider, messages, reasked)


class _Reading(Protocol):
    @property
    def ok(self) -> bool: ...


R = TypeVar("R", bound=_Reading)


async def read_decider(
    messages: list[BaseAgentEvent | BaseChatMessage],
    agents: Mapping[str, ChatAgent],
    decider: str,
    read: Callable[[str], R],
    reask: Callable[[], str] | None,
) -> tuple[R, list[BaseAgentEvent | BaseChatMessage], bool]:
    """The deciding agent's last answer as ``read`` reads it (a score, a verdict); when that has none and
    ``reask`` gives a question, the agent's answer to that question, asked once (the question and the answer
    follow the messages). Returns the reading, the messages and whether the agent was asked again."""
    parsed = read(_last_from(messages, decider))
    if parsed.ok or reask is None:
        return parsed, messages, False
    question = TextMessage(source=COMMANDER, content=reask(), metadata={"to": decider, "relay": Relay.REASK.value})
    answer = await agents[decider].on_messages([question], CancellationToken())
    retry = read(answer.chat_message.to_text())
    return (retry if retry.ok else parsed), [*messages, question, answer.chat_message], True


def _last_from(messages: list[BaseAgentEvent | BaseChatMessage], source: str) -> str:
    for message in reversed(messages):
        if isinstance(message, BaseChatMessage) and message.source == source:
            return message.to_text()
    raise RuntimeError(f"the debate has no message from the {source}")
