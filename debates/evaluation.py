"""What one evaluation needs (the task) and what it produces (the outcome), shared by all protocols."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange, parse_score
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

if TYPE_CHECKING:  # loaded without AutoGen and the verdict parser: the registry and --help stay light
    from debate_eval.agents.models.wrappers import CallRecord
    from debate_eval.debates.scoring.verdicts import ParsedVerdict


@dataclass(frozen=True)
class EvaluationTask:
    """One item to score: the rendered prompt P, the aspect's scale, and the untrusted texts in P."""

    item_id: str
    prompt: str
    aspect: str
    scale: ScoreRange
    untrusted: tuple[str, ...]
    kind: str = "summarization"  # or "dialogue" (selects the Tie-breaker's wording)
    # "single" (score one text) or "pairwise" (which of output_a / output_b is better, or a tie).
    task_type: str = "single"
    # The item's raw fields, all untrusted: source/output/reference/context for single items,
    # question/input/output_a/output_b for pairwise ones.
    inputs: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)
    # Pairwise with --swap: the same item with output_a and output_b exchanged (built by the engine).
    swapped: EvaluationTask | None = field(default=None, hash=False, compare=False)

    @property
    def pairwise(self) -> bool:
        """True for an A-versus-B task."""
        return self.task_type == "pairwise"

    def without_swap(self) -> EvaluationTask:
        """This task with no swapped twin (what a method sees for one order)."""
        return replace(self, swapped=None)

    def material(self) -> UntrustedMaterial:
        """The untrusted texts, indexed for copy detection."""
        return UntrustedMaterial(self.untrusted)

    def answer_hint(self) -> str:
        """The scale, as the Commander states it when it asks for a final number."""
        return f"Answer with a number from {self.scale.low:g} to {self.scale.high:g}."


def score_text(text: str, task: EvaluationTask, material: UntrustedMaterial) -> ParsedScore:
    """Parse an agent's own answer: copies of the untrusted texts are blanked out first."""
    return parse_score(material.neutralize(text), task.scale, task.aspect)


def planted(task: EvaluationTask) -> frozenset[str]:
    """The verdict phrases the judged texts of ``task`` hold (see ``verdicts.planted_verdicts``)."""
    from debate_eval.debates.scoring.verdicts import planted_verdicts

    return planted_verdicts(task.untrusted)


def verdict_text(text: str, material: UntrustedMaterial, planted_markers: frozenset[str]) -> ParsedVerdict:
    """Parse an agent's own verdict: copies of the untrusted texts are blanked out first, and verdict phrases
    planted in those texts decide nothing."""
    from debate_eval.debates.scoring.verdicts import parse_verdict

    return parse_verdict(material.neutralize(text), planted_markers)


def marked_transcript(parts: Iterable[tuple[Mapping[str, Any], Sequence[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """One transcript from several, in order: each part's entries marked with its keys (``{"order": "swapped"}``,
    ``{"sample": 2}``) and numbered anew."""
    joined: list[dict[str, Any]] = []
    for marks, part in parts:
        joined += [{**entry, "index": len(joined) + i, **marks} for i, entry in enumerate(part)]
    return joined


NO_SCORE = ParsedScore(None, "no_score", "none", "A pairwise task has no score: see the verdict.")


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
    # Pairwise: "first" / "second" / "tie", or None (no verdict); how it was parsed (None for single tasks).
    verdict: str | None = None
    verdict_parse: ParsedVerdict | None = None
    # Pairwise with --swap: each order's verdict in the original order ({"original": ..., "swapped": ...}),
    # and whether they agree (None when either order has no verdict).
    verdicts: dict[str, str | None] | None = None
    consistent: bool | None = None

    @classmethod
    def for_verdict(cls, verdict: ParsedVerdict, **fields: Any) -> Outcome:
        """A pairwise outcome: no score (``NO_SCORE``), the verdict's value and its parse; ``fields`` the rest
        (``decided_by``, ``stop_reason``, ``transcript``, ``calls``, ...)."""
        return cls(score=None, parse=NO_SCORE, verdict=verdict.value, verdict_parse=verdict, **fields)

    def run_fields(self) -> dict[str, Any]:
        """How the outcome was reached, as a record keeps it of a sample or an order: ``decided_by``,
        ``stop_reason``, ``agreed``, ``rounds``, ``reasked`` and ``details``."""
        return {
            "decided_by": self.decided_by,
            "stop_reason": self.stop_reason,
            "agreed": self.agreed,
            "rounds": self.rounds,
            "reasked": self.reasked,
            "details": self.details,
        }
