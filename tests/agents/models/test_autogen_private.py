"""Private AutoGen names come from one module, which says which AutoGen versions they were checked with."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
PRIVATE = re.compile(r"^\s*(?:from|import)\s+autogen_[a-z_]*(?:\.[a-z_]+)*\._", re.MULTILINE)


def test_private_autogen_imports_live_in_autogen_private_only() -> None:
    found = {
        str(path.relative_to(ROOT))
        for folder in ("agents", "debates", "tasks", "examples")
        for path in (ROOT / folder).rglob("*.py")
        if PRIVATE.search(path.read_text(encoding="utf-8"))
    }
    assert found == {"agents/models/autogen_private.py"}


def test_the_installed_autogen_is_the_tested_one() -> None:
    from debate_eval.agents.models import autogen_private

    assert autogen_private.untested_versions() is None


def test_another_autogen_version_is_named_in_one_line(monkeypatch: Any) -> None:
    from debate_eval.agents.models import autogen_private

    real = autogen_private.metadata.version
    monkeypatch.setattr(
        autogen_private.metadata, "version", lambda name: "0.8.0" if name == "autogen-agentchat" else real(name)
    )
    assert autogen_private.untested_versions() == "autogen-agentchat 0.8.0 (tested: 0.7.5)"


def test_the_group_chat_subclasses_the_names_of_autogen_private() -> None:
    from debate_eval.agents.models import autogen_private
    from debate_eval.debates.group_chat import FilteredAgentContainer, SingleTaskManager

    assert issubclass(SingleTaskManager, autogen_private.BaseGroupChatManager)
    assert issubclass(FilteredAgentContainer, autogen_private.ChatAgentContainer)
