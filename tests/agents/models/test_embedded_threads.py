"""The embedded server's thread count: the CPUs other work leaves idle (agents/models/embedded.py)."""

from __future__ import annotations

from pathlib import Path

from debate_eval.agents.models.embedded import busy_cpus, idle_threads


def test_embedded_threads_follow_the_idle_cpus() -> None:
    assert [idle_threads(2, busy) for busy in (0.0, 0.6, 0.99, 1.0, 1.3, 2.0, 7.5)] == [2, 2, 2, 2, 1, 1, 1]
    assert idle_threads(8, 2.2) == 6 and idle_threads(4, 0.0) == 4


def test_the_busy_cpus_are_measured_now_where_the_system_tells() -> None:
    busy, how = busy_cpus(sample_s=0.05)
    if Path("/proc/stat").is_file():
        assert busy is not None and busy >= 0 and "/proc/stat" in how
    else:
        assert busy is None or "load average" in how
