"""``embedded``: the embedded llama.cpp server (``agents/models/embedded.py``), started for the run.

Used by every role that has neither an API key nor a base URL. The server listens on a fresh port each
run, so its endpoint is identified by the GGUF's checksum; every client waits for the server's slots.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from debate_eval.agents.models.answer_format import GRAMMAR, AnswerFormat
from debate_eval.agents.models.providers import register_provider
from debate_eval.agents.models.providers.openai import RunServerProvider
from debate_eval.agents.models.served_model import EMBEDDED_SHA256, ServedModel
from debate_eval.agents.models.settings import (
    EMBEDDED,
    EMBEDDED_MAX_TOKENS,
    EMBEDDED_MODEL_NAME,
    EmbeddedSettings,
    ModelConfig,
    ModelSettings,
)

SERVER_LOG = "embedded-server.log"


@register_provider
class EmbeddedProvider(RunServerProvider):
    """llama.cpp in a child process, one per run, shared by every embedded role."""

    name = EMBEDDED
    description = "the embedded llama.cpp server (SmolLM2-135M by default, or --gguf)"
    default_model = EMBEDDED_MODEL_NAME
    default_max_tokens = EMBEDDED_MAX_TOKENS
    # a local process, no network between: a call that is slow is a busy CPU at work, not a lost request
    # (on a loaded 2-core machine a debate turn took over 120 s and was retried, its work thrown away)
    default_timeout_s = 900.0
    shares_slots = True
    auto_answer_mode = "grammar"  # the toy model loops to its cap without one (docs/models.md)

    def endpoint_identity(self, settings: ModelSettings, embedded: EmbeddedSettings) -> Any:
        """The GGUF's checksum and context size (the port changes every run)."""
        return {"embedded": embedded.identity()}

    async def served_model(
        self, settings: ModelSettings, base_url: str | None, http_client: Any, embedded: EmbeddedSettings
    ) -> ServedModel:
        """The GGUF's SHA-256, the one checked when the server started (not hashed again)."""
        from debate_eval.agents.models.embedded import DEFAULT_SHA256

        return ServedModel((embedded.gguf_sha256 or DEFAULT_SHA256).lower(), EMBEDDED_SHA256)

    def start(self, config: ModelConfig, roles: list[str], out_dir: Path, stack: contextlib.ExitStack) -> str:
        """Start the server (log: ``OUT/embedded-server.log``), serving under the first role's model name."""
        from debate_eval.agents.models.embedded import EmbeddedServer

        alias = config.for_role(roles[0]).model
        server = EmbeddedServer(config.embedded, log_path=out_dir / SERVER_LOG, alias=alias)
        stack.enter_context(server)
        return server.base_url

    def answer_request(self, fmt: AnswerFormat) -> dict[str, Any]:
        """llama.cpp's own fields: the GBNF ``grammar``, or ``json_schema`` with the rationale's length bound
        (llama.cpp enforces ``maxLength``; OpenAI's strict schemas do not accept it)."""
        args: dict[str, Any] = {} if fmt.max_tokens is None else {"max_tokens": fmt.max_tokens}
        body = {"grammar": fmt.grammar()} if fmt.mode == GRAMMAR else {"json_schema": fmt.json_schema(bounded=True)}
        body = {key: value for key, value in body.items() if value is not None}
        if body:
            args["extra_body"] = body
        return args
