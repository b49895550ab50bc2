"""The paper's DEBATE (Algorithm 1, Appendices D, E, G) as a ``Flow``: NO ISSUE in the Critic's own words ends
the debate; the deciding agent's last answer is parsed by the project's parser, and asked once more for the
score alone when it has none (``reask``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, TypeVar

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage

from debate_eval.agents.commander import REASK
from debate_eval.agents.roles import COMMANDER, TIEBREAKER, make_assistant
from debate_eval.debates.debate.algorithm import DebateProtocol
from debate_eval.debates.debate.flow import Final, Finished, last_from
from debate_eval.debates.evaluation import EvaluationTask, score_text
from debate_eval.debates.kit.reask import Reask, ask_again, in_context
from debate_eval.debates.scoring.scores import ParsedScore
from debate_eval.debates.scoring.untrusted import UntrustedMaterial, says_no_issue

if TYPE_CHECKING:
    from autogen_core.models import ChatCompletionClient

    from debate_eval.debates.debate.config import DebateConfig


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

    def tiebreaker(self, config: DebateConfig, client: ChatCompletionClient) -> ChatAgent:
        """The Tie-breaker as an assistant with its persona."""
        assert config.tiebreaker is not None
        return make_assistant(TIEBREAKER, config.tiebreaker, client)

    def tiebreak_text(self, task: EvaluationTask, config: DebateConfig) -> Callable[[str], str] | None:
        """None: the Commander relays the debate to the Tie-breaker as usual."""
        return None

    def parse(self, text: str, task: EvaluationTask, material: UntrustedMaterial) -> ParsedScore:
        """The project's parser."""
        return score_text(text, task, material)

    async def final(self, debate: Finished) -> Final:
        """The deciding agent's last answer; without a score, its answer to one re-ask (``config.reask``)."""
        task, decider = debate.task, debate.protocol.decided_by
        request = Reask.for_score(
            task,
            debate.material,
            lambda _: REASK.format(answer_hint=task.answer_hint()),
            source=COMMANDER,
            to=decider,
            limit=1 if debate.config.reask else 0,
        )
        parsed, messages, reasked = await read_decider(debate.messages, debate.agents, request)
        return Final(parsed, decider, messages, reasked)


R = TypeVar("R")


async def read_decider(
    messages: list[BaseAgentEvent | BaseChatMessage], agents: Mapping[str, ChatAgent], request: Reask[R]
) -> tuple[R, list[BaseAgentEvent | BaseChatMessage], bool]:
    """The deciding agent's (``request.to``) last answer as ``request`` reads it (a score, a verdict); when that
    has none, its answer from its own context to the re-ask (``request.limit`` times at most; the questions and
    answers follow the messages). Returns the reading, the messages and whether the agent was asked again."""
    assert request.to is not None, "the re-ask names the deciding agent"
    decider = request.to
    final = await ask_again(request.read(last_from(messages, decider).to_text()), in_context(agents[decider]), request)
    return final.reading, [*messages, *final.messages], final.reasked
