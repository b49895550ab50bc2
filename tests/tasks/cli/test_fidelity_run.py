"""The issue-17 done-when case through the command line, on the project's scripted OpenAI-compatible server:
a Scorer that answers "Score: 1", "Score: 2", "Score: 3" in turn and a Critic that never agrees, n = 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, default_reply, role_of_request
from debate_eval.tasks.cli.main import main


def counting_scorer(request: dict[str, Any]) -> str:
    """The Scorer's k-th answer is "Score: k" (k = its own earlier answers in the request + 1)."""
    if role_of_request(request) != "scorer":
        return default_reply(request)  # the Critic never agrees; the Commander says a short line
    answered = sum(1 for m in request.get("messages") or [] if m.get("role") == "assistant")
    return f"Score: {answered + 1}"


def run(server: ScriptedOpenAIServer, out: Path, *extra: str) -> dict[str, Any]:
    args = [
        "run",
        "--dataset",
        "summeval",
        "--aspect",
        "coherence",
        "--limit",
        "1",
        "--max-rounds",
        "2",
        "--no-preflight",
    ]
    assert main([*args, "--base-url", server.base_url, "--model", "m", "--out", str(out), *extra]) == 0
    return json.loads((out / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])


def test_done_when_paper_ends_at_3_and_authors_code_at_2_with_5_calls_each(isolated_env: Path) -> None:
    with ScriptedOpenAIServer(reply=counting_scorer) as server:
        paper = run(server, isolated_env / "paper")
        paper_roles = [role_of_request(r) for r in server.requests]
        del server.requests[:]
        authors = run(server, isolated_env / "authors", "--fidelity", "authors-code")
        authors_roles = [role_of_request(r) for r in server.requests]
    assert paper["score"] == 3 and paper["llm_calls"] == 5
    assert paper_roles == ["scorer", "critic", "scorer", "critic", "scorer"]
    assert authors["score"] == 2 and authors["llm_calls"] == 5
    assert authors_roles == ["scorer", "commander", "critic", "scorer", "critic"]
    assert all("seed" not in r for r in server.requests)  # authors-code sends no seed
    config = json.loads((isolated_env / "authors" / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["debate"]["fidelity"] == "authors-code"
    assert config["models"]["roles"]["scorer"]["sampling"]["seed"] is None
    paper_config = json.loads((isolated_env / "paper" / "config.json").read_text(encoding="utf-8"))
    assert paper_config["models"]["roles"]["scorer"]["sampling"]["seed"] == 453
