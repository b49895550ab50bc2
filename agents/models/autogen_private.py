"""Every private AutoGen name the project uses, in one place, each with its reason, and the AutoGen versions they
were checked with.

AutoGen's public API is the rule everywhere else (tests/agents/models/test_autogen_private.py fails on a private
``autogen_*`` import outside this module). The exceptions:

- ``BaseGroupChatManager``, ``ChatAgentContainer``, ``GroupChatError``, ``GroupChatTermination``
  (``autogen_agentchat.teams._group_chat``): the custom teams of DEBATE and ChatEval
  (``debates/group_chat.py``). autogen-agentchat exports none of them, yet its own documented way to build a
  custom team is to subclass ``BaseGroupChatManager`` (``BaseGroupChat``'s docstring); why the public
  ``GraphFlow`` does not fit is said in ``debates/group_chat.py``. The subclasses also rely on the manager's
  ``_current_turn``, ``_message_thread``, ``_termination_condition`` and ``_name``; ``RelayingManager``, which
  writes the Commander's relays itself, further on the manager's ``_output_message_queue`` (the relay joins the
  chat's output), ``_group_topic_type`` and ``_participant_name_to_topic_type`` (the relay is published to its
  addressee's container), ``_apply_termination_condition`` (a relay counts as a turn for termination) and
  ``_signal_termination_with_error`` (a failing relay ends the chat as a failing participant does); on the
  container's ``_buffer_message`` and ``_message_buffer``, and its ``_log_message`` and ``_message_factory``
  (DEBATE's manager puts the participants' messages in the chat's output itself); and on ``BaseGroupChat``'s
  ``_base_group_chat_manager_class``, ``_emit_team_events``, ``_group_topic_type`` and
  ``_participant_topic_types`` (DEBATE's containers are not subscribed to the group topic) and its two factory hooks
  (``_create_group_chat_manager_factory``, ``_create_participant_factory``).
- ``TraceHelper`` (``autogen_core._telemetry._tracing``): ``--fast-path`` (``fast_path.py``) patches its
  ``trace_block`` and the runtime's ``_create_otel_attributes`` and ``_try_serialize``; opt-in only, and
  refused (one line, the default path taken) when the installed autogen-core is not the tested one.

A new AutoGen version means checking these names here first, then raising ``TESTED`` (and the pin in
pyproject.toml). Importing this module with another version installed warns once, naming the versions.
"""

from __future__ import annotations

import warnings
from importlib import metadata

from autogen_agentchat.teams._group_chat._base_group_chat_manager import BaseGroupChatManager
from autogen_agentchat.teams._group_chat._chat_agent_container import ChatAgentContainer
from autogen_agentchat.teams._group_chat._events import GroupChatError, GroupChatTermination
from autogen_core._telemetry._tracing import TraceHelper

__all__ = [
    "TESTED",
    "BaseGroupChatManager",
    "ChatAgentContainer",
    "GroupChatError",
    "GroupChatTermination",
    "TraceHelper",
    "untested_versions",
]

TESTED = {"autogen-agentchat": "0.7.5", "autogen-core": "0.7.5"}  # distribution -> the version checked


def untested_versions() -> str | None:
    """One line naming each AutoGen distribution whose installed version is not the tested one (None: all are)."""
    found = []
    for name, tested in TESTED.items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "none"
        if installed != tested:
            found.append(f"{name} {installed} (tested: {tested})")
    return ", ".join(found) or None


_UNTESTED = untested_versions()
if _UNTESTED is not None:
    warnings.warn(f"debate-eval uses private AutoGen classes checked with other versions: {_UNTESTED}", stacklevel=2)
