"""Model settings: precedence, the paper's defaults, per-role overrides, and no secret in any output."""

from __future__ import annotations

import json

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import (
    EMBEDDED,
    EMBEDDED_MAX_TOKENS,
    OPENAI,
    ModelOverrides,
    load_env_file,
    resolve_model_config,
)
from debate_eval.tasks.engine.compat.hashes import url_era_namespace, url_identity

SECRET = "sk-test-0123456789abcdefSECRET"


def test_no_key_no_url_means_the_embedded_model_with_paper_settings() -> None:
    config = resolve_model_config(environ={})
    scorer = config.for_role("scorer")
    assert scorer.provider == EMBEDDED and config.needs_embedded
    assert (scorer.sampling.temperature, scorer.sampling.top_p, scorer.sampling.seed) == (0.0, 1.0, 453)
    assert scorer.sampling.frequency_penalty == 0 and scorer.sampling.presence_penalty == 0
    assert scorer.sampling.max_tokens == EMBEDDED_MAX_TOKENS


def test_api_key_selects_openai_and_needs_a_model() -> None:
    with pytest.raises(UserError, match="no model name"):
        resolve_model_config(environ={"OPENAI_API_KEY": SECRET})
    config = resolve_model_config(environ={"OPENAI_API_KEY": SECRET, "DEBATE_EVAL_MODEL": "gpt-4o"})
    critic = config.for_role("critic")
    assert critic.provider == OPENAI and critic.model == "gpt-4o" and critic.api_key_env == "OPENAI_API_KEY"
    assert critic.sampling.max_tokens is None and not config.needs_embedded


def test_flags_beat_environment_and_roles_beat_globals() -> None:
    env = {
        "OPENAI_BASE_URL": "http://env:1/v1",
        "DEBATE_EVAL_MODEL": "env-model",
        "DEBATE_EVAL_CRITIC_MODEL": "critic-env-model",
        "DEBATE_EVAL_TEMPERATURE": "0.5",
    }
    overrides = ModelOverrides(model="flag-model", role_base_urls={"tiebreaker": "http://tb:2/v1"}, temperature=0.2)
    config = resolve_model_config(overrides, environ=env)
    assert config.for_role("scorer").model == "flag-model"
    assert config.for_role("critic").model == "critic-env-model"
    assert config.for_role("tiebreaker").base_url == "http://tb:2/v1"
    assert config.for_role("scorer").base_url == "http://env:1/v1"
    assert config.for_role("scorer").sampling.temperature == 0.2


def test_mixed_roles_remote_critic_embedded_scorer() -> None:
    env = {"DEBATE_EVAL_CRITIC_API_KEY": SECRET, "DEBATE_EVAL_CRITIC_MODEL": "gpt-4o"}
    config = resolve_model_config(environ=env)
    assert config.for_role("critic").provider == OPENAI and config.for_role("scorer").provider == EMBEDDED
    assert config.for_role("critic").api_key_env == "DEBATE_EVAL_CRITIC_API_KEY"


def test_public_views_and_identity_carry_no_secret() -> None:
    env = {"OPENAI_API_KEY": SECRET, "DEBATE_EVAL_MODEL": "gpt-4o", "OPENAI_BASE_URL": "http://x/v1"}
    config = resolve_model_config(environ=env)
    dumped = json.dumps([config.to_public_dict(), config.identity()])
    assert SECRET not in dumped and "$OPENAI_API_KEY" in dumped
    assert config.for_role("scorer").api_key(env) == SECRET
    assert config.for_role("scorer").identity()["endpoint"] is None  # the URL is no part of the model's identity
    assert config.to_public_dict()["roles"]["scorer"]["base_url"] == "http://x/v1"  # config.json keeps it
    assert url_identity(config.for_role("scorer"))["endpoint"] == "http://x/v1"  # as earlier versions hashed it


def test_credentials_in_the_base_url_are_left_out_and_keep_the_clients_apart() -> None:
    url = f"https://alice:{SECRET}@llm.example:8443/v1?api-key=QUERY-SECRET&api-version=2024"
    config = resolve_model_config(environ={"DEBATE_EVAL_MODEL": "gpt-4o", "OPENAI_BASE_URL": url})
    dumped = json.dumps([config.to_public_dict(), config.identity()])
    assert SECRET not in dumped and "QUERY-SECRET" not in dumped and "alice" not in dumped
    public = "https://llm.example:8443/v1?api-key=***&api-version=***"
    assert config.to_public_dict()["roles"]["scorer"]["base_url"] == public
    assert url_identity(config.for_role("scorer"))["endpoint"] == public
    assert config.for_role("scorer").base_url == url  # the client still gets the real URL

    other = resolve_model_config(
        environ={"DEBATE_EVAL_MODEL": "gpt-4o", "OPENAI_BASE_URL": url.replace("alice", "bob")}
    )
    namespace = ClientPool(config).namespace_for(config.for_role("scorer"))
    assert namespace == ClientPool(other).namespace_for(other.for_role("scorer"))  # the same model's answers
    assert config.for_role("scorer").client_identity() != other.for_role("scorer").client_identity()  # own clients
    legacy = url_era_namespace(ClientPool(config), config.for_role("scorer"))
    assert legacy is not None and legacy != url_era_namespace(ClientPool(other), other.for_role("scorer"))
    assert SECRET not in namespace + legacy


def test_bad_numbers_and_roles_are_user_errors() -> None:
    with pytest.raises(UserError, match="DEBATE_EVAL_TEMPERATURE"):
        resolve_model_config(environ={"DEBATE_EVAL_TEMPERATURE": "hot"})
    with pytest.raises(UserError, match="unknown role 'jury'"):  # ('judge' is Fennec's role now)
        resolve_model_config(ModelOverrides(role_models={"jury": "x"}), environ={})


def test_no_seed_sends_none() -> None:
    config = resolve_model_config(ModelOverrides(no_seed=True), environ={})
    assert "seed" not in config.for_role("scorer").sampling.create_args()


def test_missing_env_file_is_a_user_error(tmp_path) -> None:
    with pytest.raises(UserError, match=r"no such \.env file"):
        load_env_file(tmp_path / "missing.env")


def test_a_remote_model_name_without_key_or_url_is_refused_not_served_by_the_embedded_model() -> None:
    with pytest.raises(UserError, match="'gpt-4o' but has no API key or base URL"):
        resolve_model_config(environ={"DEBATE_EVAL_MODEL": "gpt-4o"})
    with pytest.raises(UserError, match="the scorer"):
        resolve_model_config(ModelOverrides(role_models={"scorer": "gpt-4o"}), environ={})
    # a custom GGUF may be named freely (the name is what its server reports)
    config = resolve_model_config(ModelOverrides(model="my-local-gguf"), environ={"DEBATE_EVAL_GGUF": "x.gguf"})
    assert config.for_role("scorer").provider == EMBEDDED and config.for_role("scorer").model == "my-local-gguf"


def test_authors_code_sends_temperature_only_as_an_integer() -> None:
    """--fidelity authors-code (``literal``): their llm_config's temperature 0, nothing else unless set."""
    env = {"OPENAI_API_KEY": SECRET, "DEBATE_EVAL_MODEL": "m"}
    sampling = resolve_model_config(ModelOverrides(literal=True, no_seed=True), environ=env).for_role("scorer").sampling
    args = sampling.create_args()
    assert args == {"temperature": 0} and type(args["temperature"]) is int
    chosen = ModelOverrides(literal=True, temperature=0.5, top_p=1.0, seed=7)
    args = resolve_model_config(chosen, environ=env).for_role("scorer").sampling.create_args()
    assert args == {"temperature": 0.5, "top_p": 1, "seed": 7} and type(args["top_p"]) is int


def test_the_paper_modes_identity_is_unchanged_by_the_literal_field() -> None:
    """Earlier runs keep their config hash and cache namespace: ``literal`` enters the identity only when set."""
    env = {"OPENAI_API_KEY": SECRET, "DEBATE_EVAL_MODEL": "m"}
    paper = resolve_model_config(environ=env).for_role("scorer")
    assert "literal" not in paper.identity()["sampling"]
    assert paper.sampling.create_args() == {
        "temperature": 0.0,
        "top_p": 1.0,
        "frequency_penalty": 0.0,
        "presence_penalty": 0.0,
        "seed": 453,
    }
    authors = resolve_model_config(ModelOverrides(literal=True), environ=env).for_role("scorer")
    assert authors.identity()["sampling"]["literal"] is True
    assert authors.identity() != paper.identity()
