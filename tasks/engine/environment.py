"""What every entry point does before a run: read the ``.env`` file, keep AutoGen's internal logging quiet."""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

from debate_eval.agents.models.settings import load_env_file


def prepare_environment(env_file: str | Path | None = None) -> None:
    """Load ``env_file`` (default: the nearest ``.env``, never overriding the environment) and keep AutoGen's
    internal logging off the terminal: a failed item is reported in its record and the run summary (set
    DEBATE_EVAL_DEBUG=1 to see AutoGen's logs)."""
    load_env_file(env_file)
    # AutoGen warns when an endpoint reports a dated model name (gpt-4o -> gpt-4o-2024-08-06) or a local alias.
    warnings.filterwarnings("ignore", message="Resolved model mismatch", category=UserWarning)
    if not os.environ.get("DEBATE_EVAL_DEBUG"):
        for name in ("autogen_core", "autogen_agentchat", "autogen_ext"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
