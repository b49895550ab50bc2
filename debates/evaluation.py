"""What one evaluation needs (the task) and what it produces (the outcome), shared by all protocols."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange, parse_score
from debate_eval.debates.scoring.untrusted import UntrustedMaterial


@dataclass(frozen=True)
class EvaluationTask:
    """One item to score: the rendered prompt P, the aspect's scale, and the untrusted texts in P."""

    item_id: str
    prompt: str
    aspect: str
    scale: ScoreRange
    untrusted: tuple[str, ...]
    kind: str = "summarization"  # or "dialogue" (selects the Tie-breaker's wording)

    def material(self) -> UntrustedMaterial:
        """The untrusted texts, indexed for copy detection."""
        return UntrustedMaterial(self.untrusted)

    def answer_hint(self) -> str:
        """The scale, as the Commander states it when it asks for a final number."""
        return f"Answer with a number from {self.scale.low:g} to {self.scale.high:g}."


def score_text(text: str, task: EvaluationTask, material: UntrustedMaterial) -> ParsedScore:
    """Parse an agent's own answer: copies of the untrusted texts are blanked out first."""
    return parse_score(material.neutralize(text), task.scale, task.aspect)


@dataclass
class Outcome:
    """The result of one evaluation."""

    score: float | None
    parse: ParsedScore
    decided_by: str  # the agent whose answer carries the score
    stop_reason: str
    transcript: list[dict[str, Any]]
    calls: list[CallRecord]
    agreed: bool | None = None  # DEBATE: did the Critic say NO ISSUE
    rounds: int = 0  # DEBATE: Critic turns
    reasked: bool = False  # the deciding agent was asked again for the score alone
    details: dict[str, Any] = field(default_factory=dict)  # protocol-specific (e.g. G-Eval weighting)
