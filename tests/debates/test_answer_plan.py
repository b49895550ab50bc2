"""The run's answer plan (debates/answer_plan.py): auto constrains only the embedded model, authors-code stays free,
and the plan enters the config only when some role is constrained."""

from __future__ import annotations

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import ModelConfig, ModelOverrides, resolve_model_config
from debate_eval.debates.answer_plan import answer_data, answer_plan, plan_for_roles

EMBEDDED = resolve_model_config(ModelOverrides(), environ={})
REMOTE = resolve_model_config(ModelOverrides(model="gpt-4o"), environ={"OPENAI_API_KEY": "sk-x"})
MIXED = resolve_model_config(
    ModelOverrides(role_models={"critic": "gpt-4o"}), environ={"DEBATE_EVAL_CRITIC_API_KEY": "sk-x"}
)


def test_auto_is_a_grammar_on_the_embedded_model_only() -> None:
    assert answer_plan("auto", EMBEDDED).mode_for("scorer") == "grammar"
    assert answer_plan("auto", REMOTE).mode_for("scorer") == "free"
    mixed = answer_plan("auto", MIXED)
    assert (mixed.mode_for("scorer"), mixed.mode_for("critic"), mixed.mode_for("referee")) == (
        "grammar",
        "free",
        "grammar",
    )
    assert plan_for_roles(answer_plan("auto", REMOTE), ["scorer", "critic"]) is None  # the hash stays as it was
    recorded = plan_for_roles(mixed, ["scorer", "critic"])
    assert recorded is not None and recorded["modes"] == {"critic": "free", "scorer": "grammar"}
    assert recorded["caps"] == answer_data()["caps"] and recorded["requested"] == "auto"


def test_explicit_modes_apply_to_every_role() -> None:
    assert answer_plan("json", REMOTE).mode_for("critic") == "json"
    assert answer_plan("grammar", REMOTE).mode_for("tiebreaker") == "grammar"
    assert answer_plan("free", EMBEDDED).active is False


def test_authors_code_keeps_the_authors_free_text() -> None:
    assert answer_plan("auto", EMBEDDED, "authors-code").active is False
    for requested in ("grammar", "json"):
        with pytest.raises(UserError, match="not with --fidelity authors-code"):
            answer_plan(requested, EMBEDDED, "authors-code")
    with pytest.raises(UserError, match="unknown answer format"):
        answer_plan("yaml", EMBEDDED)


def test_a_model_the_providers_table_gives_no_answer_format_is_refused_when_the_run_calls_it() -> None:
    def claude(scorer: str, critic: str) -> ModelConfig:
        overrides = ModelOverrides(provider="anthropic", model=scorer, role_models={"critic": critic})
        return resolve_model_config(overrides, environ={"ANTHROPIC_API_KEY": "sk-ant-x"})

    assert answer_plan("json", claude("claude-sonnet-4-6", "claude-opus-4-1")).mode_for("critic") == "json"
    with pytest.raises(UserError) as error:
        answer_plan("json", claude("claude-2.1", "claude-sonnet-4-6"))
    assert str(error.value) == (
        "--answer-format json (--structured-output) is not available with the scorer's model 'claude-2.1': the "
        "anthropic provider's table of models gives it no answer format; choose another model or another answer "
        "format"
    )
    with pytest.raises(UserError, match=r"the critic's model 'claude-instant-1\.2'"):
        answer_plan("json", claude("claude-sonnet-4-6", "claude-instant-1.2"), roles=["scorer", "critic"])
    # a role the run does not call is not asked, and free answers need nothing of the model
    assert answer_plan("json", claude("claude-sonnet-4-6", "claude-2.0"), roles=["scorer"]).mode_for("scorer") == "json"
    assert answer_plan("free", claude("claude-2.1", "claude-2.1")).active is False


def test_the_data_file_names_known_kinds_and_positive_caps() -> None:
    data = answer_data()
    assert data["kinds"]["scorer"] == "score" and data["kinds"]["critic"] == "critique"
    assert all(cap >= 8 for cap in data["caps"].values())
