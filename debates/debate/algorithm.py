"""Algorithm 1 of the DEBATE paper as a small state machine, with no model and no AutoGen in it.

The group chat manager feeds it every message and asks it who speaks next; the Commander asks it what to
relay. Keeping the rules here makes them easy to read and to test:

1. The Commander gives the task prompt P to the Scorer; the Scorer answers with a score S.
2. For round i = 1..n: the Commander forwards (P, latest S) to the Critic. If the Critic's own message
   says NO ISSUE, the debate stops (agreement). Otherwise the Commander relays the feedback to the Scorer,
   who rescores.
3. Final answer: the Scorer's latest answer; with the Tie-breaker, when the Critic never agreed, the
   Tie-breaker's verdict over the whole debate log (after the n-th rescore, so that the debate itself is
   the same with and without the Tie-breaker).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from debate_eval.agents.roles import COMMANDER, CRITIC, RELAY_TARGET, SCORER, TIEBREAKER, USER, Relay


class StopReason(str, Enum):
    """Why a debate ended."""

    AGREED = "agreed"  # the Critic said NO ISSUE
    MAX_ROUNDS = "max_rounds"  # n rounds without agreement: the n-th score stands
    TIEBREAKER = "tiebreaker"  # n rounds without agreement: the Tie-breaker decided


class ProtocolError(RuntimeError):
    """A message arrived that Algorithm 1 does not allow at this point (a bug, not bad input)."""


@dataclass
class DebateProtocol:
    """State of one debate. ``critic_agrees`` decides whether a Critic message says NO ISSUE."""

    max_rounds: int
    tie_breaker: bool
    critic_agrees: Callable[[str], bool]

    def __post_init__(self) -> None:
        if self.max_rounds < 0:
            raise ValueError("max_rounds must be >= 0")
        if self.tie_breaker and self.max_rounds == 0:
            raise ValueError("the Tie-breaker needs at least one round of debate")
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new debate)."""
        self.rounds = 0  # Critic turns so far
        self.scorer_turns = 0
        self.agreed = False
        self.stop_reason: StopReason | None = None
        self.pending: Relay | None = None
        self._next: str | None = None

    @property
    def finished(self) -> bool:
        """True once the debate has ended."""
        return self.stop_reason is not None

    @property
    def decided_by(self) -> str:
        """The agent whose latest answer carries the final score."""
        return TIEBREAKER if self.stop_reason is StopReason.TIEBREAKER else SCORER

    def max_turns(self) -> int:
        """An upper bound on the number of agent turns (a safety net for the group chat)."""
        return 2 + 4 * self.max_rounds + 2 + 1

    def next_speaker(self) -> str | None:
        """Who speaks next (None once finished)."""
        return None if self.finished else self._next

    def observe(self, source: str, metadata: dict[str, str] | None = None, content: str = "") -> None:
        """Advance the state with a message from ``source``."""
        if self.finished:
            raise ProtocolError(f"message from {source} after the debate ended")
        meta = metadata or {}
        if source == USER:
            self._expect(self.scorer_turns == 0 and self.pending is None and self._next is None, source)
            self._ask_commander(Relay.TASK)
        elif source == COMMANDER:
            target = meta.get("to")
            expected = RELAY_TARGET[self.pending] if self.pending is not None else SCORER
            if self.pending is None:  # the task prompt itself opens the debate, sent in the Commander's name
                self._expect(self.scorer_turns == 0 and self._next is None, source)
            self._expect(target == expected, source, f"addressed to {target}, expected {expected}")
            self.pending = None
            self._next = target
        elif source == SCORER:
            self._expect(self._next == SCORER, source)
            self.scorer_turns += 1
            self._after_score()
        elif source == CRITIC:
            self._expect(self._next == CRITIC, source)
            self.rounds += 1
            if self.critic_agrees(content):
                self.agreed = True
                self._finish(StopReason.AGREED)
            else:
                self._ask_commander(Relay.FEEDBACK)
        elif source == TIEBREAKER:
            self._expect(self._next == TIEBREAKER, source)
            self._finish(StopReason.TIEBREAKER)
        else:
            raise ProtocolError(f"unknown participant {source!r}")

    def _after_score(self) -> None:
        if self.rounds < self.max_rounds:
            self._ask_commander(Relay.REVIEW)
        elif self.tie_breaker:
            self._ask_commander(Relay.TIEBREAK)
        else:
            self._finish(StopReason.MAX_ROUNDS)

    def _ask_commander(self, relay: Relay) -> None:
        self.pending = relay
        self._next = COMMANDER

    def _finish(self, reason: StopReason) -> None:
        self.stop_reason = reason
        self.pending = None
        self._next = None

    def _expect(self, condition: bool, source: str, detail: str = "") -> None:
        if not condition:
            where = f" ({detail})" if detail else ""
            raise ProtocolError(f"unexpected message from {source}{where}; next speaker was {self._next}")
