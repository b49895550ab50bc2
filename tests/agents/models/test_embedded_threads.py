"""The embedded server's thread count: the CPUs other work leaves idle (agents/models/embedded.py)."""

from __future__ import annotations

from debate_eval.agents.models.embedded import idle_threads


def test_embedded_threads_follow_the_idle_cpus() -> None:
    assert [idle_threads(2, load) for load in (0.0, 0.4, 0.6, 1.0, 7.5)] == [2, 2, 1, 1, 1]
    assert idle_threads(8, 2.2) == 6 and idle_threads(4, 0.0) == 4
