"""G-Eval's canned replies for the scripted server: its evaluator (a request with no system message) answers
a bare score, or a verdict for a pairwise request."""

from __future__ import annotations

from debate_eval.agents.models.providers.scripted_server import ScriptedReplies, ScriptedRole

SCRIPTED_REPLIES = ScriptedReplies(
    "geval",
    roles=(ScriptedRole("evaluator", no_system=True),),
    replies={"evaluator": "3"},
    pairwise_replies={"evaluator": "Response A is more complete.\n[[A]]"},
)
