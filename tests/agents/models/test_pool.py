"""Client sharing in ``ClientPool``: roles share a client only when every setting and credential is equal."""

from __future__ import annotations

import asyncio

import pytest
from autogen_core.models import UserMessage

from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.settings import resolve_model_config

MESSAGE = [UserMessage(content="Rate this.", source="user")]


async def _ask(pool: ClientPool, roles: list[str]) -> None:
    try:
        for role in roles:
            await pool.shared(role).create(MESSAGE)
    finally:
        await pool.close()


def test_equal_settings_share_a_client_and_each_credential_gets_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedOpenAIServer() as server:
        env = {
            "OPENAI_API_KEY": "sk-global",
            "DEBATE_EVAL_CRITIC_API_KEY": "sk-critic",
            "DEBATE_EVAL_TIEBREAKER_ORGANIZATION": "org-tiebreaker",
            "OPENAI_BASE_URL": server.base_url,
            "DEBATE_EVAL_MODEL": "m",
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)  # the pool reads the keys' values from the environment
        pool = ClientPool(resolve_model_config(environ=env))
        assert pool.shared("scorer") is pool.shared("commander")  # every setting and credential equal
        assert pool.shared("critic") is not pool.shared("scorer")  # its own key
        assert pool.shared("tiebreaker") is not pool.shared("scorer")  # its own organisation
        asyncio.run(_ask(pool, ["scorer", "critic", "tiebreaker", "commander"]))

    keys = [h["authorization"] for h in server.headers]
    organisations = [h.get("openai-organization") for h in server.headers]
    assert keys == ["Bearer sk-global", "Bearer sk-critic", "Bearer sk-global", "Bearer sk-global"]
    assert organisations == [None, None, "org-tiebreaker", None]


def test_roles_with_equal_model_and_sampling_share_cached_answers() -> None:
    env = {"OPENAI_API_KEY": "a", "DEBATE_EVAL_CRITIC_API_KEY": "b", "DEBATE_EVAL_MODEL": "m"}
    pool = ClientPool(resolve_model_config(environ=env))
    scorer, critic = pool.settings_for("scorer"), pool.settings_for("critic")
    assert pool.namespace_for(scorer) == pool.namespace_for(critic)  # the key changes no answer
    assert scorer.client_identity(env) != critic.client_identity(env)


def test_a_key_changed_in_the_environment_gets_its_own_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """``shared`` works out a role's stack key once per settings, variant and key value: the same settings give
    the same client, a new key value in the environment a client of its own, and the old value its old one."""
    env = {"OPENAI_API_KEY": "sk-first", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "DEBATE_EVAL_MODEL": "m"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    pool = ClientPool(resolve_model_config(environ=env))
    first = pool.shared("evaluator", sampling={"top_logprobs": 5})
    assert pool.shared("evaluator", sampling={"top_logprobs": 5}) is first
    assert pool.shared("evaluator", "sample-1", sampling={"top_logprobs": 5}) is not first  # its own namespace
    monkeypatch.setenv("OPENAI_API_KEY", "sk-second")
    second = pool.shared("evaluator", sampling={"top_logprobs": 5})
    assert second is not first
    monkeypatch.setenv("OPENAI_API_KEY", "sk-first")
    assert pool.shared("evaluator", sampling={"top_logprobs": 5}) is first
