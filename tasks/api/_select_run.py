"""Choosing a judge by running the candidates: ``debate-eval select --candidate SPEC ... --out DIR`` and
``debate_eval.select(candidates=[...], dataset=..., aspect=..., out=...)``.

Each candidate is a configuration: options of ``debate-eval run`` under the names of a ``--config`` TOML file
(``method``, ``max_rounds``, ``critic``, ``model``, ``template``, ``answer_format``...), given as
``KEY=VALUE,KEY=VALUE`` (each value read as a TOML value: ``2``, ``true``, ``0.5``; a bare word is text), as a
TOML file of such options, or from Python as a mapping. A ``name`` key names the candidate's run directory
(default: its options, ``method-debate_max_rounds-2``; a file's stem). The command's own options (dataset,
aspect, provider, model, ``--config``...) are shared; a candidate's options win over them.

Every candidate is run through the engine ``debate-eval run`` uses, into ``OUT/NAME`` (resumable: a rerun of
the same command continues, and a finished item is never judged again), on the labelled items only: those
that carry a human rating or verdict in the data, or those of the labels file (of the items ``--docs`` /
``--limit`` select, when given). Then ``select_judge`` chooses
among the run directories, the first candidate being the simplest (``tasks/analysis/select.py``).
"""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.select import DEFAULT_DEV_SHARE, DEFAULT_LEVEL, Selection
from debate_eval.tasks.engine.config_file import read_request_file, toml_value
from debate_eval.tasks.engine.request import RunRequest

Candidate = str | os.PathLike[str] | Mapping[str, Any]
Labels = str | os.PathLike[str] | Mapping[str, Any]  # a labels.jsonl file, or item id -> rating or verdict
NAME_KEY = "name"
_KEY = r"[A-Za-z_][A-Za-z0-9_-]*"
# KEY=VALUE up to the comma before the next KEY= (a quoted TOML string may hold commas and "=")
_PAIR = re.compile(rf'\s*({_KEY})\s*=\s*("(?:[^"\\]|\\.)*"|(?:[^,]|,(?!\s*{_KEY}\s*=))*)\s*(?:,|$)')
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
# every candidate runs in this process (the shards and workers of one candidate are run's)
UNSUPPORTED = ("shard", "workers", "ray")
# what the items are: the same for every candidate, given once to select
SHARED = ("dataset", "aspect", "data_dir", "fields", "labels", "language", "limit", "docs")


@dataclass(frozen=True)
class CandidateConfig:
    """One candidate: the name of its run directory and its options."""

    name: str
    request: RunRequest


def parse_candidate(spec: str) -> dict[str, Any]:
    """``"method=debate,max_rounds=2"`` -> ``{"method": "debate", "max_rounds": 2}``. A comma ends a value only
    where a ``KEY=`` follows it, and never inside a quoted TOML string: ``fields="source=a,output=b"``."""
    values: dict[str, Any] = {}
    position, text = 0, spec.strip()
    while position < len(text):
        found = _PAIR.match(text, position)
        if found is None or not found.group(2).strip():
            raise UserError(f"--candidate {spec!r}: expected KEY=VALUE,KEY=VALUE (the options of a --config file)")
        key = found.group(1)
        if key in values:
            raise UserError(f"--candidate {spec!r}: {key} is given twice")
        values[key] = toml_value(found.group(2).strip())
        position = found.end()
    if not values:
        raise UserError(f"--candidate {spec!r}: expected KEY=VALUE,KEY=VALUE (the options of a --config file)")
    return values


def _name_of(values: Mapping[str, Any]) -> str:
    parts = [f"{key}-{Path(str(value)).stem if isinstance(value, str) else value}" for key, value in values.items()]
    return _UNSAFE.sub("-", "_".join(parts)) or "defaults"


def candidate_configs(candidates: Sequence[Candidate]) -> list[CandidateConfig]:
    """The candidates (specs, TOML files or mappings) as named requests, in the order given (simplest first);
    a bad option, a shared name or an option select cannot honour is a one-line ``UserError``."""
    found: list[CandidateConfig] = []
    for number, candidate in enumerate(candidates, start=1):
        source = f"candidate {number}"
        if isinstance(candidate, Mapping):
            values = dict(candidate)
        elif str(candidate).endswith(".toml") or Path(candidate).is_file():
            request = read_request_file(candidate)
            name = Path(candidate).stem
            found.append(CandidateConfig(name, request))
            continue
        else:
            values = parse_candidate(str(candidate))
        name = str(values.pop(NAME_KEY, "") or _name_of(values))
        found.append(CandidateConfig(_UNSAFE.sub("-", name), RunRequest.from_mapping(values, source=source)))
    for config in found:
        given = config.request.given()
        if "out" in given:
            raise UserError(f"candidate {config.name}: out is select's --out (one run directory per candidate)")
        shared = [key for key in SHARED if key in given]
        if shared:
            raise UserError(f"candidate {config.name}: {shared[0]} is the same for every candidate; give it to select")
        refused = [key for key in UNSUPPORTED if key in given]
        if refused:
            raise UserError(f"candidate {config.name}: select runs every candidate in this process; drop {refused[0]}")
    names = [config.name for config in found]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise UserError(f"two candidates are named {twice[0]}; give each a name=... of its own")
    if len(found) < 2:
        raise UserError("select needs two candidates or more (the simplest first)")
    return found


def labelled_item_ids(request: RunRequest, labels: Labels | None = None) -> list[str]:
    """The ids of the data's labelled items, in the data's order: those with a human rating of the aspect (a
    verdict when pairwise), or, given labels (a labels file, or a mapping of item id to rating or verdict),
    the items they label."""
    from debate_eval.tasks.analysis.labels import read_labels
    from debate_eval.tasks.data.datasets import load_items, resolve_data_dir, select_items
    from debate_eval.tasks.engine.aspects import is_multi
    from debate_eval.tasks.engine.build import resolve_dataset

    resolved = resolve_dataset(request)
    aspect = str(resolved.aspect)
    if is_multi(aspect):
        raise UserError(f"select takes one aspect; {aspect} names several (one selection each)")
    items = load_items(str(resolved.dataset), resolve_data_dir(resolved.data_dir))
    items = select_items(items, limit=resolved.limit, docs=resolved.docs)  # --limit / --docs first
    if labels is not None:
        wanted = set(labels) if isinstance(labels, Mapping) else {label.item_id for label in read_labels(labels)}
        chosen = [item.item_id for item in items if item.item_id in wanted]
        source = "the labels" if isinstance(labels, Mapping) else str(labels)
    else:
        chosen = [
            item.item_id
            for item in items
            if (item.human_label if item.task_type == "pairwise" else item.human_scores.get(aspect)) is not None
        ]
        source = f"{resolved.dataset} ({aspect})"
    if not chosen:
        raise UserError(f"{source}: no labelled item to choose a judge on")
    return chosen


async def run_candidates_async(
    configs: Sequence[CandidateConfig],
    base: RunRequest,
    out: str | os.PathLike[str],
    item_ids: Sequence[str],
    announce: Callable[[str], None] | None = None,
) -> list[Path]:
    """Run (or resume) every candidate on ``item_ids`` into ``out/NAME``, one after the other (``announce``
    told ``[K/N] NAME`` as each starts); their run directories, in order. Every candidate is built first, so a
    bad one fails before any call. Candidates with failed items are one ``UserError`` once all have run (a
    rerun retries only those items)."""
    from debate_eval.tasks.analysis.end_of_run import compare_systems
    from debate_eval.tasks.engine.build import build_run
    from debate_eval.tasks.engine.runner import run

    built = []
    for config in configs:
        try:
            built.append(build_run(base.updated(config.request).with_options(out=str(Path(out) / config.name))))
        except UserError as error:
            raise UserError(f"candidate {config.name}: {error}") from None
    failed = []
    for number, (config, (run_config, options)) in enumerate(zip(configs, built, strict=True), start=1):
        if announce is not None:
            announce(f"[{number}/{len(configs)}] {config.name}")
        summary = await run(run_config, replace(options, item_ids=tuple(item_ids)), systems=compare_systems)
        if summary.total.failed:
            failed.append(f"{config.name} ({summary.total.failed} of {len(item_ids)} items, see {options.out_dir})")
    if failed:
        raise UserError(f"items failed in candidate {'; '.join(failed)}: run select again to retry them")
    return [options.out_dir for _, options in built]


def select_by_running(
    candidates: Sequence[Candidate],
    *,
    out: str | os.PathLike[str],
    base: RunRequest,
    labels: Labels | None = None,
    dev: float = DEFAULT_DEV_SHARE,
    seed: int = 0,
    level: float = DEFAULT_LEVEL,
    announce: Callable[[str], None] | None = None,
) -> tuple[Selection, list[Path]]:
    """Run ``candidates`` (simplest first) over ``base``'s data on its labelled items into ``out``, then choose
    among their runs (``select_judge``); the selection and the run directories (``announce``: told as each
    candidate starts)."""
    from debate_eval._evaluate import outside_event_loop
    from debate_eval.tasks.analysis.labelled import labels_of_file
    from debate_eval.tasks.analysis.select import select_judge
    from debate_eval.tasks.engine.environment import prepare_environment

    if not 0 < dev < 1:  # before any candidate pays for a call
        raise UserError(f"--dev must be between 0 and 1 (exclusive), not {dev}")
    if not 0 < level < 1:
        raise UserError(f"--level must be between 0 and 1 (exclusive), not {level}")
    configs = candidate_configs(candidates)
    refused = [key for key in UNSUPPORTED if key in base.given()]
    if refused:
        raise UserError(f"select runs every candidate in this process; drop {refused[0]}")
    prepare_environment(base.env_file)
    item_ids = labelled_item_ids(base, labels)
    paths = outside_event_loop(lambda: asyncio.run(run_candidates_async(configs, base, out, item_ids, announce)))
    given = labels_of_file(labels, paths[0]) if labels is not None and not isinstance(labels, Mapping) else labels
    return select_judge(paths, labels=given, dev_share=dev, seed=seed, level=level), paths
