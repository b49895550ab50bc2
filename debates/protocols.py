"""The evaluation protocols, selectable by name (``--protocol``).

==============  ==========================================================================================
``debate``      DEBATE: Devil's-Advocate Critic (``devils-advocate``), the n-th score stands without agreement
``multiagent``  the paper's MultiAgent baseline: the same debate with the ``plain`` Critic
``tiebreaker``  the plain debate, with the Tie-breaker deciding when the Critic never agrees (Figure 2, right)
``both``        Devil's Advocate and Tie-breaker together (Figure 2, right, "Both")
``geval``       G-Eval: a single agent, one call per item, the same template
==============  ==========================================================================================

``--critic`` overrides a protocol's Critic (the config records the persona actually used).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from debate_eval.agents.errors import UserError
from debate_eval.agents.model_clients import ClientPool
from debate_eval.debates.debate import DebateConfig, run_debate
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
    )
}

Evaluator = Callable[[EvaluationTask, ClientPool], Awaitable[Outcome]]


def get_protocol(name: str) -> ProtocolSpec:
    """The protocol called ``name``; a UserError lists the valid names."""
    try:
        return PROTOCOLS[name]
    except KeyError:
        raise UserError(f"unknown protocol {name!r}; protocols are: {', '.join(PROTOCOLS)}") from None


def make_evaluator(debate: DebateConfig | None, geval: GEvalConfig | None) -> Evaluator:
    """The coroutine function that evaluates one task under the configured protocol."""
    if debate is not None:
        return lambda task, pool: run_debate(task, debate, pool)
    if geval is not None:
        return lambda task, pool: run_geval(task, geval, pool)
    raise ValueError("either a debate or a G-Eval configuration is needed")
