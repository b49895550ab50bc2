"""Model providers behind one registry: openai-compatible, embedded llama.cpp, the scripted test server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers import all_providers, get_provider
from debate_eval.agents.models.settings import EmbeddedSettings, ModelOverrides, resolve_model_config
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.compat.hashes import url_identity


def test_the_builtin_providers_are_registered() -> None:
    names = [
        "openai",
        "azure",
        "anthropic",
        "gemini",
        "ollama",
        "embedded",
        "scripted",
        "inspect",
        "litellm",
        "deepeval",
    ]
    assert list(all_providers()) == names
    assert get_provider("embedded").shares_slots and not get_provider("openai").shares_slots
    # inspect_ai's models bring their own cache and connection limits: the run's stay out
    assert [name for name in names if get_provider(name).own_call_layers] == ["inspect"]
    assert [name for name in names if not get_provider(name).checks_endpoint] == ["inspect", "deepeval"]
    names = ", ".join(names)
    with pytest.raises(UserError, match=f"unknown model provider 'bogus'; providers are: {names}"):
        get_provider("bogus")


def test_a_provider_whose_library_is_missing_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "inspect_ai" else real(name, *a))
    with pytest.raises(UserError) as caught:
        get_provider("inspect").check_installed()
    assert (
        str(caught.value)
        == "the inspect provider needs the Python package 'inspect_ai': pip install 'debate-eval[inspect]'"
    )


def test_the_default_provider_follows_key_and_url() -> None:
    assert resolve_model_config(environ={}).for_role("critic").provider == "embedded"
    remote = resolve_model_config(ModelOverrides(base_url="http://127.0.0.1:9/v1", model="m"), environ={})
    assert remote.for_role("critic").provider == "openai"
    keyed = resolve_model_config(environ={"OPENAI_API_KEY": "k", "DEBATE_EVAL_MODEL": "gpt-4o"})
    assert keyed.for_role("scorer").provider == "openai" and keyed.for_role("scorer").base_url is None


def test_a_provider_can_be_chosen_globally_or_per_role() -> None:
    scripted = resolve_model_config(ModelOverrides(provider="scripted"), environ={})
    assert {s.provider for s in scripted.roles.values()} == {"scripted"}
    assert scripted.for_role("scorer").model == "scripted" and scripted.for_role("scorer").sampling.max_tokens is None
    mixed = resolve_model_config(environ={"DEBATE_EVAL_CRITIC_PROVIDER": "scripted"})
    assert mixed.for_role("critic").provider == "scripted" and mixed.for_role("scorer").provider == "embedded"
    flagged = resolve_model_config(ModelOverrides(role_providers={"critic": "scripted"}), environ={})
    assert flagged.for_role("critic").provider == "scripted" and flagged.for_role("scorer").provider == "embedded"
    with pytest.raises(UserError, match="unknown model provider"):
        resolve_model_config(environ={"DEBATE_EVAL_PROVIDER": "bogus"})
    with pytest.raises(UserError, match="unknown role 'bogus'"):
        resolve_model_config(ModelOverrides(role_providers={"bogus": "scripted"}), environ={})


def test_endpoint_identities_leave_ports_and_secrets_out() -> None:
    embedded = EmbeddedSettings(gguf_sha256="abc")
    config = resolve_model_config(environ={})
    assert config.for_role("scorer").identity(embedded)["endpoint"] == {"embedded": embedded.identity()}
    remote = resolve_model_config(ModelOverrides(base_url="https://u:pw@host/v1?key=s3cret", model="m"), environ={})
    assert remote.for_role("scorer").identity()["endpoint"] is None  # a user's endpoint: never the URL
    assert url_identity(remote.for_role("scorer"))["endpoint"] == "https://host/v1?key=***"
    scripted = resolve_model_config(ModelOverrides(provider="scripted"), environ={})
    assert scripted.for_role("scorer").identity()["endpoint"] == {"scripted": "default replies"}


def test_run_with_the_scripted_provider_starts_its_own_server(isolated_env: Path) -> None:
    out = isolated_env / "offline"
    argv = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--provider", "scripted"]
    assert main([*argv, "--out", str(out), "--no-progress", "--max-rounds", "1"]) == 0
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 2 and all(r["error"] is None and r["score"] == 3 for r in records)
    assert all(r["llm_calls"] == 3 for r in records)  # Scorer, Critic, Scorer: one round
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["models"]["scorer"]["provider"] == "scripted"
