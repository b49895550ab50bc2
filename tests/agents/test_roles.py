"""The role vocabulary: a method registers its own agents' roles, and the roles with model settings of their own
are listed after the built-in ones."""

from __future__ import annotations

import pytest

from debate_eval.agents import roles


@pytest.fixture
def vocabulary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Private copies of the registered roles."""
    monkeypatch.setattr(roles, "ROLE_OF", dict(roles.ROLE_OF))
    monkeypatch.setattr(roles, "MODEL_ROLES", list(roles.MODEL_ROLES))


def test_a_methods_agents_get_their_roles(vocabulary: None) -> None:
    before = list(roles.MODEL_ROLES)
    assert roles.role_of("Umpire") == "umpire"  # an unregistered agent: its name, lower-cased
    roles.register_roles({"Umpire": "line_judge", "Scribe": "scribe"}, ["line_judge"])
    assert roles.role_of("Umpire") == "line_judge" and roles.role_of("Scribe") == "scribe"
    assert [*before, "line_judge"] == roles.MODEL_ROLES
    roles.register_roles({"Umpire": "line_judge"}, ["line_judge"])  # again: nothing changes
    assert [*before, "line_judge"] == roles.MODEL_ROLES


def test_an_agent_name_keeps_its_role(vocabulary: None) -> None:
    with pytest.raises(ValueError, match="'Scorer' already has the role 'scorer'"):
        roles.register_roles({"Scorer": "umpire"})
