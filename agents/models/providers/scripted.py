"""``scripted``: the scripted test server (``scripted_server.py`` beside this file), started for the run.

An OpenAI-compatible HTTP server on 127.0.0.1 that answers from a fixed script per role (the reply tables each
method registers, ``scripted_server.ScriptedReplies``): no model, no key, no network. ``--provider scripted``
runs the whole pipeline offline in seconds, e.g. to check a new method, dataset or template; the tests use the
server directly. Its scores mean nothing.

``--model NAME`` with a name of ``planted.SCRIPTS`` (``planted-first``, ``planted-length``, ``planted-copy``,
``planted-noisy``) serves a judge with a planted behaviour instead (for ``debate-eval audit``); any other name
gets the default replies.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from debate_eval.agents.models.providers import register_provider
from debate_eval.agents.models.providers.openai import RunServerProvider
from debate_eval.agents.models.served_model import ServedModel
from debate_eval.agents.models.settings import EmbeddedSettings, ModelConfig, ModelSettings

SCRIPTED = "scripted"


@register_provider
class ScriptedProvider(RunServerProvider):
    """The scripted server in a background thread of this process, for the length of the run."""

    name = SCRIPTED
    description = "the scripted test server: canned replies per role, no model (checks a pipeline offline)"
    default_model = SCRIPTED

    def endpoint_identity(self, settings: ModelSettings, embedded: EmbeddedSettings) -> Any:
        """The script, not the port (which changes every run)."""
        from debate_eval.agents.models.providers.planted import script_for

        return {SCRIPTED: settings.model if script_for(settings.model) else "default replies"}

    async def served_model(
        self, settings: ModelSettings, base_url: str | None, http_client: Any, embedded: EmbeddedSettings
    ) -> ServedModel:
        """None: the scripted server serves no weights."""
        return ServedModel.unknown("the scripted server serves no model")

    def start(self, config: ModelConfig, roles: list[str], out_dir: Path, stack: contextlib.ExitStack) -> str:
        """Start the server (with the planted script the Scorer's model names, if any); it stops when the run
        ends."""
        from debate_eval.agents.models.providers.planted import script_for
        from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, default_reply

        reply = script_for(config.for_role("scorer").model) or default_reply
        # nothing reads its requests back: it keeps none (a run of many items would hold every request)
        return stack.enter_context(ScriptedOpenAIServer(reply=reply, keep_requests=False)).base_url
