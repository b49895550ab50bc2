"""Whose debate is run: a ``Flow`` is one fidelity of DEBATE (``paper.py``: the paper's Algorithm 1;
``authors_code.py``: the authors' released code), the strategy ``run_debate`` follows, as ChatEval runs its
``paper`` or ``faireval`` panel.

A flow decides what differs between the two, and only that: when the Critic agrees and when the debate ends
(``protocol``), how the Tie-breaker is staffed and sent the debate (``tiebreaker``, ``tiebreak_text``), how the
Commander forwards and replies (``forward_first``, ``commander_replies``), how an answer is read (``parse``) and how
the final score is chosen (``final``). The team, its agents' clients, the transcript and the outcome are
``run_debate``'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from autogen_agentchat.messages import BaseAgentEvent, BaseChatMessage

if TYPE_CHECKING:
    from autogen_agentchat.base import ChatAgent
    from autogen_core.models import ChatCompletionClient

    from debate_eval.debates.debate.algorithm import DebateProtocol
    from debate_eval.debates.debate.config import DebateConfig
    from debate_eval.debates.evaluation import EvaluationTask
    from debate_eval.debates.scoring.scores import ParsedScore
    from debate_eval.debates.scoring.untrusted import UntrustedMaterial


@dataclass
class Finished:
    """A debate that has ended, as ``Flow.final`` reads it: the task, the configuration, the judged texts, the
    messages, the protocol's state and the agents by name."""

    task: EvaluationTask
    config: DebateConfig
    material: UntrustedMaterial
    messages: list[BaseAgentEvent | BaseChatMessage]
    protocol: DebateProtocol
    agents: dict[str, ChatAgent]


@dataclass
class Final:
    """How a debate ended: the parsed score, the agent whose answer it is, whether that agent was asked again,
    the messages (with a re-ask's, if any) and what the flow adds to the outcome's details."""

    parsed: ParsedScore
    decider: str
    messages: list[BaseAgentEvent | BaseChatMessage]
    reasked: bool = False
    details: dict[str, Any] = field(default_factory=dict)


class Flow(Protocol):
    """One fidelity of DEBATE (see the module)."""

    forward_first: bool  # the Commander forwards the task before the Scorer's first answer
    commander_replies: bool  # the Commander's auto-replies are model calls

    def protocol(self, config: DebateConfig, material: UntrustedMaterial) -> DebateProtocol:
        """The state machine: rounds, the Critic's agreement, the Tie-breaker."""
        ...

    def tiebreaker(self, config: DebateConfig, client: ChatCompletionClient) -> ChatAgent:
        """The Tie-breaker agent (the same for every item of ``config``)."""
        ...

    def tiebreak_text(self, task: EvaluationTask, config: DebateConfig) -> Callable[[str], str] | None:
        """When the Commander writes the Tie-breaker's whole input from the debate log, that text for ``task``."""
        ...

    def parse(self, text: str, task: EvaluationTask, material: UntrustedMaterial) -> ParsedScore:
        """An answer of the Scorer or the Tie-breaker, read as this flow reads it."""
        ...

    async def final(self, debate: Finished) -> Final:
        """The final score of a finished debate."""
        ...


def last_from(messages: Sequence[BaseAgentEvent | BaseChatMessage], source: str) -> BaseChatMessage:
    """The last chat message of ``source`` in ``messages``."""
    for message in reversed(messages):
        if isinstance(message, BaseChatMessage) and message.source == source:
            return message
    raise RuntimeError(f"the debate has no message from the {source}")
