"""Fennec's four agents are registered with the role vocabulary: their transcript roles, and model settings of
their own after the DEBATE roles (``--role-model judge=...``)."""

from __future__ import annotations

from debate_eval.agents.models.settings import ROLES, resolve_model_config
from debate_eval.agents.roles import role_of
from debate_eval.debates.fennec.roles import AGENT_ROLES, FENNEC_ROLES


def test_fennecs_roles_are_registered() -> None:
    assert {agent: role_of(agent) for agent in AGENT_ROLES} == {
        "CriteriaWriter": "criteria_writer",
        "GuidelineWriter": "guideline_writer",
        "Judge": "judge",
        "Corrector": "corrector",
    }
    assert list(ROLES) == ["scorer", "critic", "commander", "tiebreaker", *FENNEC_ROLES]


def test_a_fennec_role_has_model_settings_of_its_own() -> None:
    environ = {
        "OPENAI_BASE_URL": "http://127.0.0.1:9/v1",
        "DEBATE_EVAL_MODEL": "m",
        "DEBATE_EVAL_JUDGE_MODEL": "judge-model",
    }
    config = resolve_model_config(environ=environ)
    assert config.for_role("judge").model == "judge-model" and config.for_role("corrector").model == "m"
