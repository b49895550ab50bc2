"""The in-process ``--provider scripted`` (the test double of the docs' offline examples) holds nothing per
call: its server counts the requests it answers and keeps none of them (before: every request body and its
headers, about 5 kB a call, so a run's memory grew with its items)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import Outcome

from debate_eval.agents.models.providers import scripted_server


def test_the_scripted_provider_keeps_no_request(
    isolated_env: Path, cli: Callable[[list[str]], Outcome], monkeypatch: pytest.MonkeyPatch
) -> None:
    servers: list[Any] = []
    real_enter = scripted_server.ScriptedOpenAIServer.__enter__

    def enter(self: Any) -> Any:
        servers.append(self)
        return real_enter(self)

    monkeypatch.setattr(scripted_server.ScriptedOpenAIServer, "__enter__", enter)
    rows = isolated_env / "rows.jsonl"
    rows.write_text(
        "".join(json.dumps({"id": f"r{k}", "source": f"Source text {k}. " * 30, "output": f"Answer {k}."}) + "\n"
                for k in range(24)),
        encoding="utf-8",
    )  # fmt: skip
    outcome = cli([
        "run", "--dataset", str(rows), "--aspect", "helpfulness", "--criteria", "Is the answer helpful?",
        "--scale", "1-5", "--method", "geval", "--provider", "scripted", "--out", str(isolated_env / "out"),
        "--no-progress", "--no-cache",
    ])  # fmt: skip
    assert outcome.code == 0, outcome.output[-2000:]
    (server,) = servers
    assert server.count == 24 + 1  # one call an item, and the endpoint check
    held = len(server.requests) + len(server.headers)
    assert held == 0, f"{held / server.count:.1f} objects held per call"
