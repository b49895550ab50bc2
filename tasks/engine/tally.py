"""A run's totals over its records: items, scores, calls and tokens (``summary.json`` and the summary lines)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from debate_eval.tasks.engine.accounting import Accounting, RoleUsage
from debate_eval.tasks.engine.record import Record

__all__ = ["Tally"]


@dataclass
class Tally:
    """Items, scores, calls and tokens over a set of records (a failed item's calls count too)."""

    items: int = 0
    finished: int = 0
    failed: int = 0
    parsed: int = 0
    unparsed: int = 0
    agreed: int = 0
    rounds_total: int = 0
    accounting: Accounting = field(default_factory=Accounting)
    errors: dict[str, int] = field(default_factory=dict)
    scores: dict[int, int] = field(default_factory=dict)  # score bin (rounded half up) -> finished items
    verdicts: dict[str, int] = field(default_factory=dict)  # pairwise: verdict (or "none") -> finished items
    pairwise: bool = False  # any record is a pairwise one (failed ones too)
    # any record names a system or has no human rating (failed ones too): the summary compares systems
    systems: bool = False
    rated: bool = False  # any record has a human rating or label (what meta-eval compares the judge with)

    def add(self, record: Record) -> None:
        """Count one item's record."""
        self.items += 1
        self.accounting.add_item(record.usage or {})
        self.pairwise = self.pairwise or record.pairwise
        self.rated = self.rated or record.human_score is not None or getattr(record, "human_label", None) is not None
        self.systems = self.systems or bool(record.system_id or record.system_a or record.human_score is None)
        if record.error:
            self.failed += 1
            kind = str(record.error).split(":")[0]
            self.errors[kind] = self.errors.get(kind, 0) + 1
            return
        self.finished += 1
        if record.judged:  # a pairwise record has a verdict
            self.parsed += 1
        else:
            self.unparsed += 1
        if record.pairwise:
            verdict = str(record.verdict or "none")
            self.verdicts[verdict] = self.verdicts.get(verdict, 0) + 1
        elif isinstance(record.score, (int, float)):
            score = math.floor(float(record.score) + 0.5 + 1e-9)  # as analysis.distribution.score_bin
            self.scores[score] = self.scores.get(score, 0) + 1
        if record.agreed:
            self.agreed += 1
        self.rounds_total += int(record.rounds or 0)

    def to_dict(self, cost_usd: float | None) -> dict[str, Any]:
        """JSON-ready counts and usage."""
        return {
            **{name: getattr(self, name) for name in COUNT_FIELDS if name != "rounds_total"},
            "llm_calls": self.accounting.llm_calls,
            "cached_calls": self.accounting.cached_calls,
            "usage": self.accounting.to_dict(),
            "estimated_cost_usd": cost_usd,
            "errors": self.errors,
            **({"score_distribution": {str(b): self.scores[b] for b in sorted(self.scores)}} if self.scores else {}),
            **({"verdict_distribution": dict(sorted(self.verdicts.items()))} if self.verdicts else {}),
        }

    def to_state(self) -> dict[str, Any]:
        """Everything the tally holds, JSON-ready (``from_state`` reads it back; the resume index keeps it)."""
        state = {name: getattr(self, name) for name in STATE_FIELDS}
        state["scores"] = {str(score): count for score, count in self.scores.items()}
        state["roles"] = {role: vars(usage).copy() for role, usage in self.accounting.roles.items()}
        return state

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> Tally:
        """The tally ``to_state`` wrote; a ``ValueError`` (or ``KeyError``/``TypeError``) when it is not one."""
        tally = cls(**{name: state[name] for name in STATE_FIELDS})
        if not all(isinstance(getattr(tally, name), int) for name in COUNT_FIELDS):
            raise ValueError("a count is not a whole number")
        tally.errors = {str(kind): int(count) for kind, count in dict(state["errors"]).items()}
        tally.verdicts = {str(verdict): int(count) for verdict, count in dict(state["verdicts"]).items()}
        tally.scores = {int(score): int(count) for score, count in dict(state["scores"]).items()}
        tally.pairwise, tally.systems = bool(state["pairwise"]), bool(state["systems"])
        tally.rated = bool(state["rated"])
        for role, usage in dict(state["roles"]).items():
            tally.accounting.roles[str(role)] = RoleUsage(**{name: int(value) for name, value in usage.items()})
        return tally


COUNT_FIELDS = ("items", "finished", "failed", "parsed", "unparsed", "agreed", "rounds_total")
STATE_FIELDS = (*COUNT_FIELDS, "errors", "scores", "verdicts", "pairwise", "systems", "rated")
