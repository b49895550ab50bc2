"""Per-role credentials: a role with its own API key is billed to that
key, even when its endpoint and model are the other roles'.

Before the fix the clients were shared by a key-less identity (``agents/models/pool.py``): every Critic
request carried ``OPENAI_API_KEY`` while ``config.json`` named the Critic's key.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import FAKE_KEY, ITEMS, Outcome, assert_no_key, run_args

CRITIC_KEY = "sk-CRITIC-FAULTSUITE-9876543210-must-never-be-printed"


def test_the_critics_own_key_is_the_one_its_requests_carry(
    fault_env: Path,
    cli: Callable[[list[str]], Outcome],
    server_factory: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEBATE_EVAL_CRITIC_API_KEY", CRITIC_KEY)
    server = server_factory()
    outcome = cli(run_args(server, fault_env / "run"))

    assert outcome.code == 0, outcome.output
    assert "Traceback" not in outcome.output
    records = outcome.records()
    assert len(records) == ITEMS and all(r["error"] is None and r["score"] == 3 for r in records)
    assert server.keys_by_role["scorer"] == {f"Bearer {FAKE_KEY}"}
    assert server.keys_by_role["critic"] == {f"Bearer {CRITIC_KEY}"}
    # the endpoint check sends one request per distinct credential: both keys were checked before the items
    assert server.keys_by_role["evaluator"] == {f"Bearer {FAKE_KEY}", f"Bearer {CRITIC_KEY}"}
    config = json.loads((outcome.out / "config.json").read_text(encoding="utf-8"))
    assert config["models"]["roles"]["critic"]["api_key"] == "$DEBATE_EVAL_CRITIC_API_KEY"
    assert config["models"]["roles"]["scorer"]["api_key"] == "$OPENAI_API_KEY"
    assert_no_key(outcome.output, outcome.out)  # neither key appears in any file or output
    assert CRITIC_KEY not in outcome.output
    for path in outcome.out.rglob("*"):
        if path.is_file():
            assert CRITIC_KEY.encode() not in path.read_bytes(), path
