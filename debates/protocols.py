"""The evaluation protocols, selectable by name (``--protocol``).

==============  ==========================================================================================
``debate``      DEBATE: Devil's-Advocate Critic (``devils-advocate``), the n-th score stands without agreement
``multiagent``  the paper's MultiAgent baseline: the same debate with the ``plain`` Critic
``tiebreaker``  the plain debate, with the Tie-breaker deciding when the Critic never agrees (Figure 2, right)
``both``        Devil's Advocate and Tie-breaker together (Figure 2, right, "Both")
``geval``       G-Eval: a single agent, one call per item, the same template
``chateval``    ChatEval (Chan et al. 2023): role-played referees discuss for T turns; the mean of their scores
==============  ==========================================================================================

``--critic`` overrides a protocol's Critic (the config records the persona actually used). ChatEval is
configured by ``ChatEvalConfig`` (``--chateval-roles``, ``--chateval-turns``, ``--chateval-strategy``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.pool import ClientPool
from debate_eval.debates.chateval import ChatEvalConfig, run_chateval
from debate_eval.debates.debate.run import DebateConfig, run_debate
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.geval import GEvalConfig, run_geval


@dataclass(frozen=True)
class ProtocolSpec:
    """A protocol's defaults."""

    name: str
    description: str
    multi_agent: bool
    critic: str | None = None
    tie_breaker: bool = False


PROTOCOLS: dict[str, ProtocolSpec] = {
    spec.name: spec
    for spec in (
        ProtocolSpec("debate", "DEBATE: Scorer vs Devil's-Advocate Critic", True, "devils-advocate", False),
        ProtocolSpec("multiagent", "MultiAgent baseline: the debate with the plain Critic", True, "plain", False),
        ProtocolSpec("tiebreaker", "plain debate, Tie-breaker decides without agreement", True, "plain", True),
        ProtocolSpec("both", "Devil's Advocate and Tie-breaker", True, "devils-advocate", True),
        ProtocolSpec("geval", "G-Eval: one agent, one call (probability-weighted when possible)", False),
        # multi_agent is False: ChatEval is no Scorer/Critic debate; it staffs its own panel (ChatEvalConfig)
        ProtocolSpec("chateval", "ChatEval: referees with role personas discuss; mean of their scores", False),
    )
}

Evaluator = Callable[[EvaluationTask, ClientPool], Awaitable[Outcome]]


def get_protocol(name: str) -> ProtocolSpec:
    """The protocol called ``name``; a UserError lists the valid names."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise UserError(f"unknown protocol {name!r}; protocols are: {', '.join(PROTOCOLS)}") from None


def make_evaluator(
    debate: DebateConfig | None, geval: GEvalConfig | None, chateval: ChatEvalConfig | None = None
) -> Evaluator:
    """The coroutine function that evaluates one task under the configured protocol."""
    if chateval is not None:
        return lambda task, pool: run_chateval(task, chateval, pool)
    if debate is not None:
        return lambda task, pool: run_debate(task, debate, pool)
    if geval is not None:
        return lambda task, pool: run_geval(task, geval, pool)
    raise ValueError("a debate, G-Eval or ChatEval configuration is needed")
