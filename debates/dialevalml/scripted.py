"""DialEvalML's canned replies for the scripted server: its evaluator (a request with no system message, as
G-Eval's) answers a bare score."""

from __future__ import annotations

from debate_eval.agents.models.providers.scripted_server import ScriptedReplies, ScriptedRole

SCRIPTED_REPLIES = ScriptedReplies(
    "dialevalml", roles=(ScriptedRole("evaluator", no_system=True),), replies={"evaluator": "3"}
)
