"""Several aspects in one run: ``run --aspect all`` or ``--aspect a,b,c``.

A multi-aspect run is one run directory whose configuration is a ``MultiAspectConfig``: one ordinary
``RunConfig`` per aspect (its own template, scale and method configuration) under one hash. The runner
evaluates every item once per aspect (DialEvalML: one call per aspect; any other method: one whole
evaluation per aspect); each result line is an ordinary single-aspect record (its ``aspect``, its
``human_score``), so ``meta-eval``, ``show`` and ``report`` read the run per aspect. Resume is keyed by item
and aspect (``rundir.result_key``). A run with one aspect is exactly the run it always was (same hash, keyed by
item), so run directories of earlier versions resume unchanged.

``config.json``'s ``result_config`` keeps the first aspect's fields at the top (dataset, protocol,
template, ...: what the readers of a single-aspect run look for) with ``aspect`` = ``"a,b,c"``, and adds
``aspects``: each aspect's full result config.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.data.datasets import check_aspect, get_dataset
from debate_eval.tasks.engine.run_config import RunConfig

ALL = "all"


def split_aspects(dataset: str, text: str) -> list[str]:
    """The aspects ``--aspect`` names on ``dataset``: ``all`` (every aspect the dataset has), ``a,b,c``, or
    one aspect. Each is checked; a repeated one is refused."""
    spec = get_dataset(dataset)
    if text.strip().lower() == ALL:
        names = [name for name, scale in spec.aspects.items() if scale is not None]
        if not names:
            raise UserError(f"--aspect all: dataset {dataset} has no scored aspects")
        return names
    names = [part.strip() for part in text.split(",")]
    if any(not name for name in names):
        raise UserError(f"--aspect {text!r}: an empty aspect name (write a,b,c with no empty part)")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise UserError(f"--aspect {text!r}: {', '.join(repeated)} named twice")
    for name in names:
        check_aspect(dataset, name)
    return names


def is_multi(text: str) -> bool:
    """Whether ``--aspect`` names several aspects (``all`` or a comma)."""
    return text.strip().lower() == ALL or "," in text


@dataclass(frozen=True)
class MultiAspectConfig(RunConfig):
    """One run over several aspects: ``aspect_configs`` holds one single-aspect ``RunConfig`` per aspect;
    the inherited fields are the first aspect's (``aspect`` is ``"a,b,c"``)."""

    aspect_configs: tuple[RunConfig, ...] = ()

    def result_config(self) -> dict[str, Any]:
        """The first aspect's result config with ``aspect`` = ``"a,b,c"``, plus every aspect's under ``aspects``."""
        first = self.aspect_configs[0].result_config()
        return {**first, "aspect": self.aspect, "aspects": {c.aspect: c.result_config() for c in self.aspect_configs}}

    def roles(self) -> list[str]:
        """Every role any aspect's configuration calls."""
        roles: list[str] = []
        for config in self.aspect_configs:
            roles += [role for role in config.roles() if role not in roles]
        return roles


def multi_aspect_config(configs: Sequence[RunConfig]) -> RunConfig:
    """One ``RunConfig`` for ``configs`` (one per aspect, same dataset and method): the config itself when
    there is one, else a ``MultiAspectConfig``."""
    if len(configs) == 1:
        return configs[0]
    first = {spec.name: getattr(configs[0], spec.name) for spec in fields(RunConfig)}
    aspect = ",".join(c.aspect for c in configs)
    return MultiAspectConfig(**{**first, "aspect": aspect}, aspect_configs=tuple(configs))


def build_for_aspects(text: str, dataset: str, build: Callable[[str], RunConfig]) -> RunConfig:
    """The run's configuration for ``--aspect text``: ``build(aspect)`` for each aspect named."""
    if not is_multi(text):
        return build(text)
    return multi_aspect_config([build(aspect) for aspect in split_aspects(dataset, text)])


def per_aspect(config: RunConfig) -> tuple[RunConfig, ...]:
    """The single-aspect configurations a run evaluates (itself when it has one aspect)."""
    return getattr(config, "aspect_configs", ()) or (config,)
