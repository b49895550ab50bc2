"""The Session is the one judging path: a ``Judge`` and a ``debate-eval run`` on the same endpoint send the same
requests for the same item, and the session closes what it opened."""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path

import debate_eval
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine import build
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.run_config import config_document
from debate_eval.tasks.engine.session import Session, SessionOptions, open_store

CRITERIA = "Is the summary faithful to the article?"
SOURCE = "The council met on Monday and approved the budget after a long debate."
OUTPUT = "The council approved the budget."
ROOT = Path(__file__).resolve().parents[3]


def bodies(server: ScriptedOpenAIServer) -> list[str]:
    """Every request body the endpoint received, in order, as canonical JSON."""
    return [json.dumps(request, sort_keys=True) for request in server.requests]


def test_a_judge_and_a_run_send_the_same_requests_for_the_same_item(isolated_env: Path) -> None:
    rows = isolated_env / "rows.jsonl"
    rows.write_text(json.dumps({"id": "x1", "source": SOURCE, "output": OUTPUT}) + "\n", encoding="utf-8")
    with ScriptedOpenAIServer() as server:
        args = ["run", "--dataset", str(rows), "--criteria", CRITERIA, "--scale", "1-5", "--aspect", "coherence"]
        args += ["--base-url", server.base_url, "--model", "m", "--out", "run", "--no-cache", "--no-progress"]
        assert main(args) == 0
        by_run = bodies(server)
    with ScriptedOpenAIServer() as server:
        with debate_eval.Judge(criteria=CRITERIA, base_url=server.base_url, model="m", no_cache=True) as judge:
            judgment = judge.score(OUTPUT, source=SOURCE, id="x1")
        by_judge = bodies(server)
    assert judgment.ok
    # the endpoint check, then the DEBATE's turns (Scorer, Critic, ...): more than one call, all the same
    assert len(by_run) >= 3
    assert by_judge == by_run, (len(by_judge), len(by_run))
    assert any(SOURCE in body for body in by_run)  # the item's prompt is among them
    record = json.loads((isolated_env / "run" / "results.jsonl").read_text(encoding="utf-8"))
    assert record["item_id"] == "x1" and record["score"] == judgment.score


def test_a_session_closes_its_store_and_releases_the_lock(isolated_env: Path) -> None:
    config = build.build_run_config(RunRequest(dataset="summeval", aspect="coherence", provider="scripted"))
    options = build.build_run_options(RunRequest(dataset="summeval", aspect="coherence", out="out"), config)
    out = isolated_env / "out"

    async def scenario() -> None:
        store = open_store(out, config, config_document(config, options))
        session = await Session.open(config, SessionOptions(use_cache=False, work_dir=out), store=store)
        assert session.models_open and session.store is store
        await session.close()
        assert not session.models_open and session.store is None
        await session.close()  # idempotent
        # the lock is free again: a second store opens
        again = open_store(out, config, config_document(config, options))
        again.close()

    asyncio.run(scenario())
    assert (out / "config.json").is_file()


OPENERS = ("ClientPool", "start_providers", "open_response_cache")  # what only the Session calls


def calls_of(path: Path, names: tuple[str, ...]) -> list[str]:
    """Where ``path`` calls one of ``names`` (by name or as an attribute), read with ``ast``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in names:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}")
    return found


def test_only_the_session_opens_models() -> None:
    """Nothing but the Session starts providers, opens the response cache or builds a client pool (the model
    layer, agents/, defines them and is left out)."""
    calls = [
        hit
        for folder in ("debates", "tasks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        for hit in calls_of(path, OPENERS)
    ]
    assert calls and all(hit.startswith("tasks/engine/session.py:") for hit in calls), calls
