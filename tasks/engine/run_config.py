"""A run's full configuration: what is evaluated, how, by which models; and how the run is executed.

``RunConfig`` holds everything that changes the results; its hash identifies a run directory's results
(a rerun with a different configuration is refused). ``RunOptions`` holds what does not change results
(which items, concurrency, cache), so a run can be extended or resumed with other options.
"""

from __future__ import annotations

import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.settings import ModelConfig, stable_hash
from debate_eval.agents.personas import get_persona
from debate_eval.debates.chateval import DEFAULT_ROLES, DEFAULT_TURNS, ONE_BY_ONE, STRATEGIES, ChatEvalConfig
from debate_eval.debates.debate.run import DebateConfig
from debate_eval.debates.geval import GEvalConfig
from debate_eval.debates.protocols import Evaluator, get_protocol, make_evaluator
from debate_eval.tasks.data.datasets import get_dataset
from debate_eval.tasks.data.templates import Template

DEFAULT_REMOTE_CONCURRENCY = 8


@dataclass(frozen=True)
class RunConfig:
    """What is evaluated and how (everything that changes the results)."""

    dataset: str
    aspect: str
    protocol: str
    template: Template
    models: ModelConfig
    debate: DebateConfig | None = None
    geval: GEvalConfig | None = None
    chateval: ChatEvalConfig | None = None

    def result_config(self) -> dict[str, Any]:
        """The result-affecting settings, JSON-ready and secret-free.

        ``chateval`` appears only when set, so the hashes of the other protocols' runs are unchanged.
        """
        config = {
            "dataset": self.dataset,
            "aspect": self.aspect,
            "protocol": self.protocol,
            "template": {
                "source": self.template.source,
                "sha256": self.template.sha256(),
                "scale": str(self.template.scale),
                "text": self.template.text,
            },
            "debate": self.debate.to_dict() if self.debate else None,
            "geval": self.geval.to_dict() if self.geval else None,
            "models": self.models.identity(),
        }
        if self.chateval is not None:
            config["chateval"] = self.chateval.to_dict()
        return config

    def config_hash(self) -> str:
        """Identifies the results of this configuration."""
        return stable_hash(self.result_config())[:16]

    def evaluator(self) -> Evaluator:
        """The coroutine function that evaluates one item under this configuration's protocol."""
        return make_evaluator(self.debate, self.geval, self.chateval)

    def roles(self) -> list[str]:
        """The model roles this run calls."""
        if self.chateval is not None:  # with the Scorer's settings unless a client is given for the role
            return ["referee", "summarizer"] if self.chateval.uses_summarizer else ["referee"]
        if self.debate is None:
            return ["scorer"]
        roles = ["scorer", "critic"]
        if self.debate.tiebreaker is not None:
            roles.append("tiebreaker")
        if self.debate.commander_llm:
            roles.append("commander")
        return roles


@dataclass(frozen=True)
class RunOptions:
    """How the run is executed (does not change results)."""

    out_dir: Path
    data_dir: Path
    limit: int | None = None
    docs: int | None = None
    concurrency: int | None = None  # None: 8 for remote endpoints, the embedded server's slots otherwise
    use_cache: bool = True
    cache_dir: Path | None = None
    progress: bool | None = None  # None: a progress bar when stderr is a terminal
    preflight: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json."""
        return {key: str(value) if isinstance(value, Path) else value for key, value in vars(self).items()}


def build_debate_config(
    protocol: str,
    dataset: str,
    *,
    critic: str | None = None,
    tie_breaker: bool | None = None,
    max_rounds: int = 2,
    commander_llm: bool = False,
    reask: bool = True,
    marker_case_sensitive: bool = False,
) -> DebateConfig | None:
    """The debate staffing for ``protocol`` (None for single-agent protocols)."""
    spec = get_protocol(protocol)
    if not spec.multi_agent:
        return None
    use_tiebreaker = spec.tie_breaker if tie_breaker is None else (tie_breaker or spec.tie_breaker)
    tiebreaker_name = "tiebreaker-dialogue" if get_dataset(dataset).kind == "dialogue" else "tiebreaker"
    return DebateConfig(
        scorer=get_persona("scorer", "scorer"),
        critic=get_persona(critic or spec.critic or "devils-advocate", "critic"),
        commander=get_persona("commander", "commander"),
        tiebreaker=get_persona(tiebreaker_name, "tiebreaker") if use_tiebreaker else None,
        max_rounds=max_rounds,
        commander_llm=commander_llm,
        reask=reask,
        marker_case_sensitive=marker_case_sensitive,
    )


def build_chateval_config(
    protocol: str,
    *,
    roles: str | list[str] | tuple[str, ...] | None = None,
    turns: int | None = None,
    strategy: str | None = None,
) -> ChatEvalConfig | None:
    """The ChatEval panel for ``--protocol chateval`` (None for other protocols).

    ``roles`` are referee persona names (or text files), as a list or comma-separated; defaults:
    general-public, critic, news-author; 2 turns; one-by-one. Other protocols ignore the ChatEval options
    (as G-Eval ignores ``--critic``), so an ablation grid can mix protocols.
    """
    if protocol != "chateval":
        return None
    if isinstance(roles, str):
        roles = [part.strip() for part in roles.split(",")]
    names = list(roles) if roles else list(DEFAULT_ROLES)
    if not all(names):
        raise UserError("--chateval-roles: empty role name (expected e.g. general-public,critic,news-author)")
    if strategy is not None and strategy not in STRATEGIES:
        raise UserError(f"--chateval-strategy: unknown strategy {strategy!r}; strategies are: {', '.join(STRATEGIES)}")
    if turns is not None and turns < 1:
        raise UserError("--chateval-turns: at least one discussion turn is needed")
    return ChatEvalConfig(
        referees=tuple(get_persona(name, "referee") for name in names),
        turns=DEFAULT_TURNS if turns is None else turns,
        strategy=strategy or ONE_BY_ONE,
    )


def versions() -> dict[str, str]:
    """Versions of the software that produced a run."""
    found = {"python": platform.python_version()}
    for package in ("debate-eval", "pyautogen", "autogen-agentchat", "autogen-ext", "openai", "xllamacpp"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def config_document(config: RunConfig, options: RunOptions) -> dict[str, Any]:
    """The content of ``config.json``: the full resolved configuration, with no secret in it."""
    return {
        "config_hash": config.config_hash(),
        "result_config": config.result_config(),
        "models": config.models.to_public_dict(),
        "run_options": options.to_dict(),
        "versions": versions(),
    }
