"""A ``RunRequest`` turned into what the engine runs: ``RunConfig`` (what changes the results) and
``RunOptions`` (how the run is executed).

The only place a run's options are interpreted: the command line, a ``--config`` file and the Python API
all come through here, so they resolve the same data, template, method configuration and models.
"""

from __future__ import annotations

import re
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.answer_format import JSON
from debate_eval.agents.models.batch import BatchOptions
from debate_eval.agents.models.http_client import DEFAULT_MAX_ANSWER_BYTES
from debate_eval.agents.models.settings import ROLES, ModelOverrides, resolve_model_config
from debate_eval.debates.answer_plan import AUTO, answer_plan
from debate_eval.debates.base import DEFAULT_METHOD, MethodContext, get_method
from debate_eval.debates.fidelity import AUTHORS_CODE
from debate_eval.tasks.data.criteria import criteria_template
from debate_eval.tasks.data.datasets import check_aspect, get_dataset, resolve_data_dir
from debate_eval.tasks.data.frames import DATA_FILE, needs_copy, table_rows, write_rows
from debate_eval.tasks.data.own_file import own_task_type, register_own_file
from debate_eval.tasks.data.own_rows import PAIRWISE_FIELDS, SINGLE_FIELDS, validate_rows
from debate_eval.tasks.data.registry import PAIRWISE, PAIRWISE_LABELS, looks_like_own_file, with_variant
from debate_eval.tasks.data.templates import parse_scale, resolve_template
from debate_eval.tasks.engine.aspects import build_for_aspects
from debate_eval.tasks.engine.backends.shards import parse_shard, shard_dir_name
from debate_eval.tasks.engine.pairwise import check_run_task_type, pairwise_template
from debate_eval.tasks.engine.progress import AUTO as PROGRESS_AUTO
from debate_eval.tasks.engine.progress import MODES as PROGRESS_MODES
from debate_eval.tasks.engine.progress import NONE, QUIET
from debate_eval.tasks.engine.request import RunRequest, field_names
from debate_eval.tasks.engine.run_config import RunConfig, RunOptions

FIELD_NAMES = tuple(dict.fromkeys(SINGLE_FIELDS + PAIRWISE_FIELDS))
T = TypeVar("T")


def method_name(request: RunRequest) -> str:
    """The request's method (the default method when none is given)."""
    return request.method or DEFAULT_METHOD


def resolve_dataset(request: RunRequest, data: object = None) -> RunRequest:
    """The request with ``dataset`` as the registry knows it: a user's own file is validated (every row) and
    registered under its path; ``language`` selects an xDial-Eval variant (``xdial_fed_turn-german``). Data
    given as an object (``data``: a DataFrame, a list of dicts, a ``datasets.Dataset``) or as ``hf:``/.parquet
    is validated the same way and copied into the run directory first (``data.frames``); the request then
    names that copy and the run directory (``out``)."""
    if data is None and not request.dataset:
        raise UserError("give the data to evaluate: --dataset NAME|FILE (dataset = in a --config file)")
    if not request.aspect:
        raise UserError("give the aspect to evaluate: --aspect NAME (aspect = in a --config file)")
    _check_keys(request.fields, "--fields", FIELD_NAMES)
    _check_keys(request.labels, "--labels", PAIRWISE_LABELS)
    if data is not None or needs_copy(request.dataset):
        request = _copy_data(request, request.dataset if data is None else data)
    if looks_like_own_file(request.dataset):
        if request.language:
            raise UserError("--language is for the xDial-Eval datasets, not for your own file")
        scale = parse_scale(request.scale) if request.scale else None
        spec = register_own_file(
            request.dataset,
            fields=request.fields,
            aspect=request.aspect,
            scale=None if scale is None else (scale.low, scale.high),
            labels=request.labels or None,
        )
        if spec.task_type != PAIRWISE and not request.template and not request.criteria:
            names = ", ".join("{{" + name + "}}" for name in spec.inputs)
            raise UserError(
                f'{request.dataset}: your own data needs --criteria "one sentence: what is a good answer?" with '
                f"--scale LO-HI, or --template FILE, a G-Eval-style prompt with the placeholders {names}"
            )
        return request
    if request.fields or request.labels:
        raise UserError(f"--fields and --labels are for your own file; {request.dataset} is a built-in dataset")
    if request.language:
        spec = get_dataset(request.dataset)
        if not spec.variants or spec.variant_option != "language":
            raise UserError(f"--language is for xdial_fed_turn and xdial_fed_dialogue, not {request.dataset}")
        if request.language not in spec.variants:
            raise UserError(f"unknown --language {request.language!r}; valid: {', '.join(spec.variants)}")
        return replace(request, dataset=with_variant(get_dataset(spec.base_name), request.language).name)
    return request


def _copy_data(request: RunRequest, data: object) -> RunRequest:
    """Validate ``data`` as an own file (one line per bad row, naming ``DataFrame``, ``hf:...``) and write it
    to ``OUT/data.jsonl``; the request then reads that file."""
    rows, columns, label = table_rows(data)
    scale = parse_scale(request.scale) if request.scale else None
    fields = request.fields
    validate_rows(
        rows,
        columns,
        source=label,
        dataset=label,
        fields=fields,
        aspect=str(request.aspect),
        scale=None if scale is None else (scale.low, scale.high),
        labels=request.labels or None,
        task_type=own_task_type(fields),
    )
    name = label if isinstance(data, str) else "data"
    out = Path(request.out) if request.out else default_out_of(name, str(request.aspect), method_name(request))
    write_rows(rows, out / DATA_FILE)
    return replace(request, dataset=str(out / DATA_FILE), out=str(out))


def _check_keys(mapping: dict[str, str], option: str, valid: tuple[str, ...]) -> None:
    for key in mapping:
        if key not in valid:
            raise UserError(f"{option}: unknown name {key!r}; valid names: {', '.join(valid)}")


def build_run(request: RunRequest, data: object = None) -> tuple[RunConfig, RunOptions]:
    """The run a request asks for: its ``RunConfig`` and ``RunOptions`` (``data``: data given as an object,
    see ``resolve_dataset``)."""
    request = resolve_dataset(request, data)
    config = _resolved_run_config(request)
    return config, build_run_options(request, config)


def build_run_config(request: RunRequest) -> RunConfig:
    """The request's ``RunConfig``; several aspects (``a,b,c`` or ``all``): one configuration per aspect, run
    as one (``engine.aspects.MultiAspectConfig``)."""
    return _resolved_run_config(resolve_dataset(request))


def _resolved_run_config(request: RunRequest) -> RunConfig:
    assert request.dataset is not None and request.aspect is not None  # resolve_dataset checked them
    return build_for_aspects(request.aspect, request.dataset, lambda aspect: _aspect_run_config(request, aspect))


def _aspect_run_config(request: RunRequest, aspect: str) -> RunConfig:
    """The ``RunConfig`` of one aspect."""
    dataset = str(request.dataset)
    check_aspect(dataset, aspect)
    scale = parse_scale(request.scale) if request.scale else None
    name = method_name(request)
    method = get_method(name)
    spec = get_dataset(dataset)
    task_type = check_run_task_type(method, dataset, spec.task_type, request.swap)
    template_path = Path(request.template) if request.template else None
    if request.criteria and template_path is not None:
        raise UserError("--criteria builds the template: give --criteria or --template, not both")
    if task_type == "pairwise":
        if request.criteria:
            raise UserError("--criteria builds a single-score template; a pairwise dataset has its own prompt")
        template = pairwise_template(aspect, template_path)
    elif request.criteria:
        template = criteria_template(dataset, aspect, request.criteria, scale)
    else:
        template = resolve_template(
            dataset, aspect, template_path, scale, universal_newlines=authors_code_request(request)
        )
    context = MethodContext(
        dataset=dataset, dataset_kind=spec.kind, aspect=aspect, task_type=task_type, swap=bool(request.swap)
    )
    models = resolve_model_config(model_overrides(request))
    method_config = method.configure(request.method_options, context)
    return RunConfig(
        dataset=dataset,
        aspect=aspect,
        protocol=name,
        template=template,
        models=models,
        method_config=method_config,
        swap=request.swap,
        answers=answer_plan(
            requested_answer_format(request),
            models,
            getattr(method_config, "fidelity", None),
            list(method.roles(method_config)),
        ),
    )


def requested_answer_format(request: RunRequest) -> str:
    """``answer_format`` (default auto); ``structured_output`` is ``json`` and agrees with no other."""
    chosen = request.answer_format
    if request.structured_output:
        if chosen not in (None, JSON):
            raise UserError(f"--structured-output (structured_output) is --answer-format json, not {chosen}")
        return JSON
    return chosen or AUTO


def progress_mode(request: RunRequest) -> str:
    """``progress`` (default auto); ``no_progress`` is ``none`` (retries still one line each) and ``quiet``
    shows nothing at all; neither agrees with another ``progress``."""
    chosen = request.progress
    if chosen is not None and chosen not in PROGRESS_MODES:
        raise UserError(f"unknown progress display {chosen!r}; choose from {', '.join(PROGRESS_MODES)}")
    if request.quiet or request.no_progress:
        if chosen not in (None, NONE):
            raise UserError(f"--quiet / --no-progress show no progress: not with --progress {chosen}")
        return QUIET if request.quiet else NONE
    return chosen or PROGRESS_AUTO


def model_overrides(request: RunRequest) -> ModelOverrides:
    """The model options as ``ModelOverrides`` (the environment and the defaults fill in the rest)."""
    for role in (*request.role_model, *request.role_base_url, *request.role_provider):
        if role not in ROLES:
            raise UserError(
                f"unknown role {role!r} in --role-model/--role-base-url/--role-provider; roles are: {', '.join(ROLES)}"
            )
    return _same_named(
        request,
        ModelOverrides,
        role_models=dict(request.role_model),
        role_base_urls=dict(request.role_base_url),
        role_providers=dict(request.role_provider),
        no_seed=request.no_seed or (request.seed is None and authors_code_request(request)),  # their code sent none
        timeout_s=request.timeout,
        gguf_path=request.gguf,
        literal=authors_code_request(request),
    )


def authors_code_request(request: RunRequest) -> bool:
    """``fidelity="authors-code"`` of a method that has it (the DEBATE family, ChatEval): their request bodies
    (``SamplingSettings.literal``) and their way of reading a template file (universal newlines)."""
    if request.method_options.get("fidelity") != "authors-code":
        return False
    method = get_method(method_name(request))
    sampled = method.sampled_method(request.method_options)  # self-consistency: its base method's format
    if sampled is not None:
        method = get_method(sampled)
    return "fidelity" in getattr(method.config_type, "__dataclass_fields__", {})


def default_out_of(dataset: str, aspect: str, method: str) -> Path:
    """``runs/DATASET_ASPECT_METHOD`` with folder-safe names: the run directory of a request without ``out``."""
    return Path("runs") / f"{dataset_slug(dataset)}_{dataset_slug(aspect)}_{method}"


def build_run_options(request: RunRequest, config: RunConfig) -> RunOptions:
    """The execution options as ``RunOptions``."""
    if request.reset_cache and request.no_cache:
        raise UserError("--reset-cache and --no-cache do not go together (--reset-cache starts an empty cache)")
    batch = None
    if request.batch:
        if config.models.needs_embedded:
            raise UserError("--batch needs an endpoint with the Batch API routes; the embedded model has none")
        defaults = BatchOptions()
        batch = BatchOptions(
            max_requests=request.batch_max_requests or defaults.max_requests,
            wait_s=request.batch_wait,
            poll_s=request.batch_poll or defaults.poll_s,
        )
    shard = parse_shard(request.shard) if request.shard else None
    out_dir = Path(request.out) if request.out else default_out_of(config.dataset, config.aspect, config.protocol)
    if shard and not request.out:  # each shard its own directory (engine.backends.shards)
        out_dir = out_dir.with_name(f"{out_dir.name}_{shard_dir_name(shard)}")
    if shard and ((request.workers or 1) > 1 or request.ray):
        raise UserError(
            "--shard does not go with --workers or --ray: run each shard with one worker, or the run with either"
        )
    return _same_named(
        request,
        RunOptions,
        out_dir=out_dir,
        data_dir=resolve_data_dir(request.data_dir),
        use_cache=not request.no_cache,
        cache_dir=Path(request.cache_dir) if request.cache_dir else None,
        progress=progress_mode(request),
        preflight=not request.no_preflight,
        batch=batch,
        max_answer_bytes=request.max_answer_bytes or DEFAULT_MAX_ANSWER_BYTES,
        shard=shard,
        workers=request.workers,
        ray=request.ray or None,
    )


def _same_named(request: RunRequest, target: type[T], **given: Any) -> T:
    """``target`` (a dataclass) of ``given``, its other fields the request's options of the same name, as they are
    (one name per option: ``--max-tokens`` is ``max_tokens`` in the request, the model settings and the run)."""
    names = {spec.name for spec in fields(target)} - given.keys()
    return target(**{name: getattr(request, name) for name in field_names() if name in names}, **given)


def dataset_slug(dataset: str) -> str:
    """A folder-name-safe form of a dataset name (an own file's path becomes its stem)."""
    if looks_like_own_file(dataset):
        dataset = re.sub(r"\.(jsonl|csv|json)$", "", dataset.rsplit("/", 1)[-1], flags=re.IGNORECASE)
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", dataset).strip("._") or "dataset"


def method_warnings(config: RunConfig, request: RunRequest | None = None) -> list[str]:
    """The method's one-line warnings for this configuration (e.g. G-Eval's samples at temperature 0),
    ``--fidelity authors-code`` with this project's own template (their prompt file makes it their run), and,
    given the ``request``, a model setting for a role the method never calls (``--role-model critic=...`` with
    G-Eval): it changes nothing, which the user would not otherwise learn."""
    temperature = config.models.for_role("scorer").sampling.temperature
    found = list(config.method.warnings(config.method_config, temperature))
    if request is not None:
        calls = config.method.roles(config.method_config)
        used = {role if role in ROLES else "scorer" for role in calls}  # other roles take the Scorer's settings
        for name in ("role_model", "role_base_url", "role_provider"):
            found += [
                f"--{name.replace('_', '-')} {role}=...: {config.protocol} makes no {role} call (its model roles: "
                f"{', '.join(calls)}), so this setting changes nothing"
                for role in getattr(request, name)
                if role not in used
            ]
    method, method_config = config.method, config.method_config
    base = getattr(method_config, "base", None)
    if isinstance(base, str) and hasattr(method_config, "base_config"):  # self-consistency: the sampled method's
        method, method_config = get_method(base), method_config.base_config
    authors_file = method.authors_prompt_file(config.dataset, config.aspect)
    fidelity = getattr(method_config, "fidelity", None)
    if fidelity == AUTHORS_CODE and authors_file and config.template.source.startswith("builtin:"):
        found.append(
            f"--fidelity authors-code without --template sends this project's own wording of the prompt "
            f"({config.template.source}), not the authors': give their prompt file ({authors_file}) with "
            "--template FILE for their run"
        )
    return found
