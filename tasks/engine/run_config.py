"""A run's full configuration: what is evaluated, how, by which models; and how the run is executed.

``RunConfig`` holds everything that changes the results; its hash identifies a run directory's results
(a rerun with a different configuration is refused). ``RunOptions`` holds what does not change results
(which items, concurrency, cache), so a run can be extended or resumed with other options.

The hash counts only the models of the roles the method calls, each by provider, model name and sampling
(``ModelSettings.identity``), not by the URL it is reached at (checked on resume by ``engine.endpoints``).
Hashes of earlier versions are recognised by ``engine.compat.hashes``.
"""

from __future__ import annotations

import functools
import platform
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from debate_eval.agents.models.answer_format import AnswerPlan
from debate_eval.agents.models.batch import BatchOptions
from debate_eval.agents.models.http_client import DEFAULT_MAX_ANSWER_BYTES
from debate_eval.agents.models.settings import ModelConfig, stable_hash
from debate_eval.debates.answer_plan import plan_for_roles
from debate_eval.debates.base import Evaluator, Method, get_method
from debate_eval.tasks.data.own_file import dataset_options
from debate_eval.tasks.data.templates import Template

DEFAULT_REMOTE_CONCURRENCY = 8


@dataclass(frozen=True)
class RunConfig:
    """What is evaluated and how (everything that changes the results): one method and its config."""

    dataset: str
    aspect: str
    protocol: str  # the method's registered name
    template: Template
    models: ModelConfig
    method_config: Any = None  # the method's config dataclass (``Method.build_config``)
    swap: bool = False  # pairwise: every item judged in both orders (--swap)
    answers: AnswerPlan | None = None  # answer formats (--answer-format; None: every answer free)

    @property
    def method(self) -> Method[Any]:
        """The registered method called ``protocol``."""
        return get_method(self.protocol)

    def result_config(self) -> dict[str, Any]:
        """The result-affecting settings (``method_result_config``), with ``swap: true`` for a --swap run and
        ``answers`` when some role's answers are constrained (each key is absent otherwise, so other runs keep
        their hash)."""
        config = self.method_result_config()
        if self.swap:
            config["swap"] = True
        answers = self.answer_config()
        if answers is not None:
            config["answers"] = answers
        return config

    def answer_config(self) -> dict[str, Any] | None:
        """The answer formats of the roles this run calls (``debates.answer_plan.plan_for_roles``), or None when
        every answer is free."""
        return plan_for_roles(self.answers, [*self.roles(), "scorer"])

    def method_result_config(self) -> dict[str, Any]:
        """The result-affecting settings, JSON-ready and secret-free: the method's config under its
        ``config_key`` and the models of the roles the method calls (no other role's)."""
        method = self.method
        return {
            **self._what(),
            method.config_key or method.name: method.config_dict(self.method_config),
            "models": {role: self._model_identity(role) for role in sorted(set(self.roles()))},
        }

    def config_hash(self) -> str:
        """Identifies the results of this configuration."""
        return stable_hash(self.result_config())[:16]

    def _what(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "aspect": self.aspect,
            "protocol": self.protocol,
            "template": {
                "source": self.template.source,
                "sha256": self.template.sha256(),
                "scale": str(self.template.scale),
                "text": self.template.text,
            },
            **dataset_options(self.dataset),  # an own file: its columns and blob id ({} for a registered set)
        }

    def _model_identity(self, role: str) -> dict[str, Any]:
        return self.models.for_role(role).identity(self.models.embedded)

    def evaluator(self) -> Evaluator:
        """The coroutine function that evaluates one item under this configuration's method."""
        return self.method.evaluator(self.method_config)

    def roles(self) -> list[str]:
        """The model roles this run calls."""
        return list(self.method.roles(self.method_config))


@dataclass(frozen=True)
class RunOptions:
    """How the run is executed (does not change results)."""

    out_dir: Path
    data_dir: Path
    limit: int | None = None
    docs: int | None = None
    concurrency: int | None = None  # None: 8 for remote endpoints, the embedded server's slots otherwise
    use_cache: bool = True
    reset_cache: bool = False  # move the response cache aside first (``agents.models.response_cache``)
    cache_dir: Path | None = None
    progress: str | bool | None = None  # bar | lines | none; None/auto: a bar on a terminal, else lines (progress.py)
    preflight: bool = True
    batch: BatchOptions | None = None  # run --batch: model calls go out as Batch API batches
    max_answer_bytes: int | None = DEFAULT_MAX_ANSWER_BYTES  # --max-answer-bytes: cap per answer (None: none)
    fast_path: bool = False  # --fast-path: the opt-in private fast path (agents/models/fast_path.py)
    rpm: float | None = None  # --rpm: a request budget per minute for each endpoint and model (None: headers)
    tpm: float | None = None  # --tpm: a token budget per minute
    allow_endpoint_change: bool = False  # resume at another server than the results were made at (endpoints.py)
    shard: tuple[int, int] | None = None  # --shard K/N: only the items of shard K of N (engine/backends/shards.py)
    workers: int | None = None  # --workers N: processes, each over shard k/N (backends/workers.py); None: not given
    ray: str | None = None  # --ray [ADDRESS]: the shards as Ray tasks (engine/backends/ray.py)
    skip_done_of: Path | None = None  # a worker's run directory: its finished items are not run again
    trace_content: bool = False  # --trace-content: judged texts and answers on the spans, when traced (telemetry)
    item_ids: tuple[str, ...] | None = None  # only these items of the selection (select's labelled items); None: all

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready view for config.json."""
        return {
            key: str(value) if isinstance(value, Path) else value.to_dict() if key == "batch" and value else value
            for key, value in vars(self).items()
        }


def versions() -> dict[str, str]:
    """Versions of the software that produced a run."""
    return dict(_installed_versions())


@functools.cache
def _installed_versions() -> dict[str, str]:
    """Read once per process: the package metadata lookups took several milliseconds per run."""
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
