"""Algorithm 1 as a state machine, without models."""

from __future__ import annotations

import pytest

from debate_eval.agents.roles import COMMANDER, CRITIC, SCORER, TIEBREAKER, USER, Relay
from debate_eval.debates.debate.algorithm import DebateProtocol, ProtocolError, StopReason


def agrees(text: str) -> bool:
    return "NO ISSUE" in text


def play(protocol: DebateProtocol, critic_replies: list[str]) -> list[str]:
    """Drive the protocol with well-behaved agents; returns the speakers in order."""
    replies = iter(critic_replies)
    protocol.observe(COMMANDER, {"to": SCORER, "relay": "task"})
    speakers = [COMMANDER]
    while (speaker := protocol.next_speaker()) is not None:
        speakers.append(speaker)
        if speaker == COMMANDER:
            assert protocol.pending is not None
            target = {Relay.REVIEW: CRITIC, Relay.FEEDBACK: SCORER, Relay.TIEBREAK: TIEBREAKER}[protocol.pending]
            protocol.observe(COMMANDER, {"to": target})
        elif speaker == CRITIC:
            protocol.observe(CRITIC, {}, next(replies))
        else:
            protocol.observe(speaker, {}, "Score: 3")
    return speakers


def test_disagreement_runs_n_rounds_and_ends_with_a_rescore() -> None:
    protocol = DebateProtocol(max_rounds=2, tie_breaker=False, critic_agrees=agrees)
    speakers = play(protocol, ["too high", "still too high"])
    assert speakers == [
        COMMANDER, SCORER, COMMANDER, CRITIC, COMMANDER, SCORER, COMMANDER, CRITIC, COMMANDER, SCORER,
    ]  # fmt: skip
    assert protocol.stop_reason is StopReason.MAX_ROUNDS
    assert protocol.rounds == 2 and protocol.scorer_turns == 3 and not protocol.agreed
    assert protocol.decided_by == SCORER


def test_agreement_stops_at_once() -> None:
    protocol = DebateProtocol(max_rounds=4, tie_breaker=True, critic_agrees=agrees)
    speakers = play(protocol, ["NO ISSUE"])
    assert speakers == [COMMANDER, SCORER, COMMANDER, CRITIC]
    assert protocol.agreed and protocol.stop_reason is StopReason.AGREED
    assert protocol.decided_by == SCORER  # no Tie-breaker when the Critic agrees


def test_tiebreaker_only_without_agreement() -> None:
    protocol = DebateProtocol(max_rounds=1, tie_breaker=True, critic_agrees=agrees)
    speakers = play(protocol, ["wrong"])
    assert speakers == [COMMANDER, SCORER, COMMANDER, CRITIC, COMMANDER, SCORER, COMMANDER, TIEBREAKER]
    assert protocol.stop_reason is StopReason.TIEBREAKER and protocol.decided_by == TIEBREAKER


def test_zero_rounds_is_a_single_scorer() -> None:
    protocol = DebateProtocol(max_rounds=0, tie_breaker=False, critic_agrees=agrees)
    assert play(protocol, []) == [COMMANDER, SCORER]
    assert protocol.stop_reason is StopReason.MAX_ROUNDS


@pytest.mark.parametrize("rounds", [1, 2, 3, 4, 5])
def test_turn_bound_covers_the_longest_debate(rounds: int) -> None:
    protocol = DebateProtocol(max_rounds=rounds, tie_breaker=True, critic_agrees=agrees)
    speakers = play(protocol, ["no"] * rounds)
    assert len(speakers) <= protocol.max_turns()
    assert speakers.count(CRITIC) == rounds and speakers.count(SCORER) == rounds + 1


def test_the_critic_verdict_is_only_read_from_the_critic() -> None:
    protocol = DebateProtocol(max_rounds=1, tie_breaker=False, critic_agrees=agrees)
    protocol.observe(COMMANDER, {"to": SCORER})
    protocol.observe(SCORER, {}, "NO ISSUE. Score: 4")
    assert not protocol.finished and protocol.pending is Relay.REVIEW


def test_out_of_turn_messages_are_rejected() -> None:
    protocol = DebateProtocol(max_rounds=1, tie_breaker=False, critic_agrees=agrees)
    protocol.observe(COMMANDER, {"to": SCORER})
    with pytest.raises(ProtocolError):
        protocol.observe(CRITIC, {}, "NO ISSUE")
    with pytest.raises(ProtocolError):
        protocol.observe("Stranger", {}, "hello")


def test_commander_must_address_the_expected_agent() -> None:
    protocol = DebateProtocol(max_rounds=1, tie_breaker=False, critic_agrees=agrees)
    protocol.observe(COMMANDER, {"to": SCORER})
    protocol.observe(SCORER, {}, "Score: 2")
    with pytest.raises(ProtocolError):
        protocol.observe(COMMANDER, {"to": SCORER})


def test_user_opening_asks_the_commander_for_the_task() -> None:
    protocol = DebateProtocol(max_rounds=1, tie_breaker=False, critic_agrees=agrees)
    protocol.observe(USER, {"to": COMMANDER})
    assert protocol.next_speaker() == COMMANDER and protocol.pending is Relay.TASK


def test_invalid_settings() -> None:
    with pytest.raises(ValueError):
        DebateProtocol(max_rounds=-1, tie_breaker=False, critic_agrees=agrees)
    with pytest.raises(ValueError):
        DebateProtocol(max_rounds=0, tie_breaker=True, critic_agrees=agrees)
