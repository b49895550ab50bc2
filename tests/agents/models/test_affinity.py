"""Session keys and replica affinity: a debate's calls stay on one replica, and debates spread evenly."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.affinity import (
    ReplicaSet,
    debate_session,
    role_call,
    session_key,
    session_keys_enabled,
    split_urls,
)
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config


def test_no_key_outside_a_debate_and_one_key_per_debate_and_role() -> None:
    assert session_key() is None
    with debate_session("hash", "item-1", "coherence"):
        with role_call("scorer"):
            scorer = session_key()
            assert session_key() == scorer  # stable within the debate
        with role_call("critic"):
            critic = session_key()
    with debate_session("hash", "item-2", "coherence"), role_call("scorer"):
        other = session_key()
    assert session_key() is None
    assert len({scorer, critic, other}) == 3
    assert all(key is not None and key.startswith("de-") and len(key) == 27 for key in (scorer, critic, other))
    assert "item" not in str(scorer)  # an opaque hash, not the material


def test_replica_set_pins_sessions_and_places_new_ones_on_the_least_loaded() -> None:
    replicas = ReplicaSet(["http://a/v1", "http://b/v1/", "http://c/v1"])
    first = replicas.acquire("s1")
    second = replicas.acquire("s2")
    third = replicas.acquire("s3")
    assert sorted((first, second, third)) == [0, 1, 2]  # each new session on an idle replica
    assert replicas.acquire("s1") == first  # pinned although it is now the busiest
    replicas.release(second)
    replicas.release(third)
    assert replicas.acquire("s4") in (second, third)  # not the busy one
    assert replicas.rewrite("http://a/v1/chat/completions", 1) == "http://b/v1/chat/completions"
    assert replicas.rewrite("http://elsewhere/v1/chat/completions", 1) is None
    assert replicas.rewrite("http://a/v10/chat", 1) is None  # a longer path is not under the base URL


def test_base_url_lists_split_into_replicas() -> None:
    assert split_urls(None) == (None, ())
    assert split_urls("http://a/v1") == ("http://a/v1", ())
    assert split_urls("http://a/v1, http://b/v1,http://c/v1") == ("http://a/v1", ("http://b/v1", "http://c/v1"))
    config = resolve_model_config(ModelOverrides(base_url="http://a/v1,http://b/v1", model="m"), environ={})
    scorer = config.for_role("scorer")
    assert (scorer.base_url, scorer.replica_urls) == ("http://a/v1", ("http://b/v1",))
    assert scorer.to_public_dict()["replica_urls"] == ["http://b/v1"]
    single = resolve_model_config(ModelOverrides(base_url="http://a/v1", model="m"), environ={})
    assert "replica_urls" not in single.for_role("scorer").to_public_dict()  # one URL: the config it always had


def test_session_keys_can_be_turned_off() -> None:
    assert session_keys_enabled({})
    assert not session_keys_enabled({"DEBATE_EVAL_SESSION_KEYS": "0"})
    assert not session_keys_enabled({"DEBATE_EVAL_SESSION_KEYS": "off"})


def _run(out: Path, base_url: str, *extra: str) -> list[dict[str, Any]]:
    from debate_eval.tasks.cli.main import main

    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "6", "--no-cache",
            "--base-url", base_url, "--model", "scripted", "--out", str(out), "--no-progress", *extra]  # fmt: skip
    assert main(args) == 0
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def test_a_debate_stays_on_one_replica_and_debates_spread_evenly(isolated_env: Path) -> None:
    servers = [ScriptedOpenAIServer().start() for _ in range(3)]
    try:
        urls = ",".join(server.base_url for server in servers)
        records = _run(isolated_env / "run", urls, "--concurrency", "3")
        assert len(records) == 6 and all(not r.get("error") for r in records)
        where: dict[str, set[int]] = defaultdict(set)  # session key -> replicas that served it
        for index, server in enumerate(servers):
            for headers in server.headers:
                if "x-session-id" in headers:  # the endpoint check is no debate: it carries no key
                    assert headers["x-smg-routing-key"] == headers["x-session-id"]
                    where[headers["x-session-id"]].add(index)
        assert where and all(len(replicas) == 1 for replicas in where.values())  # a session never moves
        sessions = Counter(next(iter(replicas)) for replicas in where.values())
        assert max(sessions.values()) - min(sessions.get(i, 0) for i in range(3)) <= 2  # spread across debates
        assert all(server.count > 0 for server in servers)
        bodies = [request for server in servers for request in server.requests]
        assert not any("prompt_cache_key" in body for body in bodies)  # a body field for the OpenAI API only
        texts = {r["item_id"] for r in records}
        assert not any(item in key for key in where for item in texts)
    finally:
        for server in servers:
            server.stop()


def test_without_session_keys_no_header_is_sent(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEBATE_EVAL_SESSION_KEYS", "0")
    with ScriptedOpenAIServer() as server:
        _run(isolated_env / "run", server.base_url, "--limit", "2")
        assert server.headers and not any("x-session-id" in headers for headers in server.headers)


def test_the_openai_api_gets_the_key_as_prompt_cache_key_other_endpoints_do_not() -> None:
    import asyncio

    import openai
    from autogen_core.models import UserMessage

    from debate_eval.agents.models.providers import get_provider
    from debate_eval.agents.models.sdk_body_passthrough import plain_body_chat_client

    provider = get_provider("openai")
    assert provider.session_body_field("https://api.openai.com/v1") == "prompt_cache_key"
    assert provider.session_body_field(None) == "prompt_cache_key"  # the default endpoint is the OpenAI API
    assert provider.session_body_field("http://127.0.0.1:8000/v1") is None

    async def two_calls(base_url: str) -> str | None:
        sdk = openai.AsyncOpenAI(base_url=base_url, api_key="not-needed", max_retries=0)
        client = plain_body_chat_client(sdk, {"model": "gpt-4o-2024-08-06"}, session_field="prompt_cache_key")
        message = [UserMessage(content="hello", source="user")]
        await client.create(message)
        with debate_session("h", "item", "aspect"), role_call("scorer"):
            await client.create(message)
            key = session_key()
        await client.close()
        return key

    with ScriptedOpenAIServer() as server:
        expected = asyncio.run(two_calls(server.base_url))
    assert "prompt_cache_key" not in server.requests[0]  # outside a debate: nothing added
    assert server.requests[1]["prompt_cache_key"] == expected
