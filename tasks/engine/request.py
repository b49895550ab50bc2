"""A run's request: every option of ``run`` in one typed record, whichever way it was given.

The command line (``debate-eval run`` flags), a ``--config run.toml`` file and the Python API
(``debate_eval.evaluate(...)``) each build one ``RunRequest``; ``engine.build`` turns it into the engine's
``RunConfig`` (what changes the results) and ``RunOptions`` (how the run is executed). Nothing about a run is
decided anywhere else, so an option added here works from all three entry points.

**One name per option.** A field's name is the argparse ``dest`` of its flag and the key in a TOML file or
an ``evaluate`` keyword: ``--max-tokens`` is ``max_tokens``, ``--no-cache`` is ``no_cache = true``. A method's
own options (``--max-rounds``, ``--geval-samples``, declared once in the method's ``Options``) travel in
``method_options`` under their names and are checked by the method (``Method.parse_options``).

A field left at its default (None, False, empty) means "not given": the engine's default, or the
environment's (``$DEBATE_EVAL_MODEL``, ``$OPENAI_BASE_URL``, ...), applies.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from debate_eval.agents.errors import UserError

DATA, METHOD, MODELS, EXECUTION = "data", "method", "models", "execution"
FLAGS = "flags"  # the ``source`` of a request built from command-line flags: errors name the flag

# How a field's value is checked (``check_value``); the kind of every field is in its metadata.
TEXT, PATH, INT, POSITIVE_INT, NON_NEGATIVE_INT, FLOAT, POSITIVE_FLOAT, SWITCH, MAPPING, SCALE, OPTIONS = (
    "text",
    "path",
    "int",
    "positive int",
    "non-negative int",
    "float",
    "positive float",
    "switch",
    "mapping",
    "scale",
    "options",
)


def _kind(group: str, kind: str) -> dict[str, str]:
    """A request field's metadata: its group and how its value is checked (``check_value``)."""
    return {"group": group, "kind": kind}


def _option(group: str, kind: str, default: Any = None) -> Any:
    """A request field with a fixed default (mappings: ``field(default_factory=dict, metadata=_kind(...))``)."""
    return field(default=default, metadata=_kind(group, kind))


@dataclass(frozen=True)
class RunRequest:
    """Everything a user can ask of one run (``debate-eval run``, ``--config FILE``, ``evaluate``).

    Field names are the flags' names with ``_`` for ``-``; see the module docstring.
    """

    # ---- what to evaluate
    dataset: str | None = _option(DATA, TEXT)  # a registered name or the path of your own file
    aspect: str | None = _option(DATA, TEXT)  # one aspect, a,b,c or all
    data_dir: str | None = _option(DATA, PATH)
    # your own file's columns {"source": "article", ...}; a pairwise file's label values {"first": "A", ...}
    fields: dict[str, str] = field(default_factory=dict, metadata=_kind(DATA, MAPPING))
    labels: dict[str, str] = field(default_factory=dict, metadata=_kind(DATA, MAPPING))
    language: str | None = _option(DATA, TEXT)  # xDial-Eval's language
    limit: int | None = _option(DATA, POSITIVE_INT)
    docs: int | None = _option(DATA, POSITIVE_INT)
    template: str | None = _option(DATA, PATH)
    scale: str | None = _option(DATA, SCALE)  # "1-5"
    criteria: str | None = _option(DATA, TEXT)  # one sentence: a template is built from it (data.criteria)
    # ---- how to evaluate
    method: str | None = _option(METHOD, TEXT)  # None: debates.base.DEFAULT_METHOD
    swap: bool = _option(METHOD, SWITCH, False)
    method_options: dict[str, Any] = field(default_factory=dict, metadata=_kind(METHOD, OPTIONS))  # by name
    # ---- models (API keys only from the environment / .env)
    model: str | None = _option(MODELS, TEXT)
    base_url: str | None = _option(MODELS, TEXT)
    provider: str | None = _option(MODELS, TEXT)
    role_model: dict[str, str] = field(default_factory=dict, metadata=_kind(MODELS, MAPPING))  # {"critic": "gpt-4o"}
    role_base_url: dict[str, str] = field(default_factory=dict, metadata=_kind(MODELS, MAPPING))
    role_provider: dict[str, str] = field(
        default_factory=dict, metadata=_kind(MODELS, MAPPING)
    )  # {"critic": "anthropic"}
    temperature: float | None = _option(MODELS, FLOAT)
    top_p: float | None = _option(MODELS, FLOAT)
    seed: int | None = _option(MODELS, INT)
    no_seed: bool = _option(MODELS, SWITCH, False)
    max_tokens: int | None = _option(MODELS, POSITIVE_INT)
    timeout: float | None = _option(MODELS, FLOAT)
    max_retries: int | None = _option(MODELS, NON_NEGATIVE_INT)
    gguf: str | None = _option(MODELS, PATH)
    gguf_sha256: str | None = _option(MODELS, TEXT)
    embedded_parallel: int | None = _option(MODELS, POSITIVE_INT)
    answer_format: str | None = _option(MODELS, TEXT)  # auto | free | grammar | json (debates/answer_plan.py)
    structured_output: bool = _option(MODELS, SWITCH, False)  # = answer_format "json"
    env_file: str | None = _option(MODELS, PATH)
    # ---- execution (does not change results)
    out: str | None = _option(EXECUTION, PATH)
    concurrency: int | None = _option(EXECUTION, POSITIVE_INT)
    rpm: int | None = _option(EXECUTION, POSITIVE_INT)  # request budget per minute (agents/models/rate_limit.py)
    tpm: int | None = _option(EXECUTION, POSITIVE_INT)  # token budget per minute
    no_cache: bool = _option(EXECUTION, SWITCH, False)
    reset_cache: bool = _option(EXECUTION, SWITCH, False)
    cache_dir: str | None = _option(EXECUTION, PATH)
    progress: str | None = _option(EXECUTION, TEXT)  # auto | bar | lines | none (engine/progress.py)
    quiet: bool = _option(EXECUTION, SWITCH, False)  # = progress "none"
    no_progress: bool = _option(EXECUTION, SWITCH, False)  # = progress "none" (the older spelling)
    no_preflight: bool = _option(EXECUTION, SWITCH, False)
    max_answer_bytes: int | None = _option(EXECUTION, POSITIVE_INT)  # None: http_client.DEFAULT_MAX_ANSWER_BYTES
    fast_path: bool = _option(EXECUTION, SWITCH, False)  # the opt-in private fast path (agents/models/fast_path.py)
    batch: bool = _option(EXECUTION, SWITCH, False)
    batch_max_requests: int | None = _option(EXECUTION, POSITIVE_INT)
    batch_wait: float | None = _option(EXECUTION, POSITIVE_FLOAT)
    batch_poll: float | None = _option(EXECUTION, POSITIVE_FLOAT)
    allow_endpoint_change: bool = _option(EXECUTION, SWITCH, False)  # resume at another server (engine.endpoints)
    shard: str | None = _option(EXECUTION, TEXT)  # "K/N": only shard K of N of the items (engine.backends.shards)
    workers: int | None = _option(EXECUTION, POSITIVE_INT)  # processes on this machine (engine.backends.workers)
    ray: str | None = _option(EXECUTION, TEXT)  # the shards as Ray tasks: "local", "auto" or an address
    trace_content: bool = _option(EXECUTION, SWITCH, False)  # judged texts and answers on spans (agents.telemetry)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], source: str = "options") -> RunRequest:
        """A request from names and values (a TOML file's table, ``evaluate``'s keywords). A name that is no
        field is a method option (checked when the run is built); ``-`` in a name reads as ``_``. Every
        value is checked: a ``UserError`` names ``source`` and the option."""
        known = field_names()
        given: dict[str, Any] = {}
        options: dict[str, Any] = {}
        for raw_name, value in values.items():
            name = str(raw_name).replace("-", "_")
            if name == "method_options":
                if not isinstance(value, Mapping):
                    raise UserError(f"{source}: method_options: expected a table of option names and values")
                options.update({str(k).replace("-", "_"): v for k, v in value.items()})
            elif name in known:
                given[name] = check_value(name, value, source)
            else:
                options[name] = value
        return cls(**given, method_options=options)

    def updated(self, other: RunRequest) -> RunRequest:
        """This request with every option ``other`` gives (command-line flags over a ``--config`` file)."""
        changes = {name: value for name, value in other.given().items() if name != "method_options"}
        options = {**self.method_options, **other.method_options}
        return replace(self, **changes, method_options=options)

    def given(self) -> dict[str, Any]:
        """The options this request sets (not at their default), by name, in field order."""
        found = {}
        for spec in fields(self):
            value = getattr(self, spec.name)
            if value is not None and value is not False and value != {}:
                found[spec.name] = value
        return found

    def with_options(self, **changes: Any) -> RunRequest:
        """A copy with some fields (checked) or method options changed; None removes a method option."""
        known = field_names()
        options = dict(self.method_options)
        direct = {}
        for name, value in changes.items():
            if name in known:
                direct[name] = check_value(name, value, "options") if value is not None else None
            elif value is None:
                options.pop(name, None)
            else:
                options[name] = value
        return replace(self, **direct, method_options=options)


def field_names() -> tuple[str, ...]:
    """The request's option names, in order."""
    return tuple(spec.name for spec in fields(RunRequest))


def field_kind(name: str) -> str:
    """How the value of option ``name`` is checked."""
    return next(spec.metadata["kind"] for spec in fields(RunRequest) if spec.name == name)


def field_group(name: str) -> str:
    """The group of option ``name``: data, method, models or execution."""
    return next(spec.metadata["group"] for spec in fields(RunRequest) if spec.name == name)


def check_value(name: str, value: Any, source: str = "options") -> Any:
    """``value`` for option ``name`` checked and normalised (paths as text, ``"a=b,c=d"`` as a mapping, a
    scale ``(1, 5)`` as ``"1-5"``); a one-line ``UserError`` naming ``source`` and the option otherwise."""
    kind = field_kind(name)
    if value is None:
        return None

    label = option_label(name, source)

    def fail(expected: str) -> UserError:
        return UserError(f"{label}: expected {expected}, got {value!r}")

    if kind == SWITCH:
        if not isinstance(value, bool):
            raise fail("true or false")
        return value
    if kind in (TEXT, PATH):
        if kind == PATH and isinstance(value, os.PathLike):
            return os.fspath(value)
        if not isinstance(value, str):
            raise fail("a path" if kind == PATH else "text")
        return value
    if kind in (INT, POSITIVE_INT, NON_NEGATIVE_INT):
        if isinstance(value, bool) or not isinstance(value, int):
            raise fail("a whole number")
        if kind == POSITIVE_INT and value < 1:
            raise fail("a whole number >= 1")
        if kind == NON_NEGATIVE_INT and value < 0:
            raise fail("a whole number >= 0")
        return value
    if kind in (FLOAT, POSITIVE_FLOAT):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise fail("a number")
        if kind == POSITIVE_FLOAT and not value > 0:
            raise fail("a number > 0")
        return float(value)
    if kind == SCALE:
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(_is_number(v) for v in value):
            return f"{value[0]:g}-{value[1]:g}"
        raise fail('a scale such as "1-5" or (1, 5)')
    if kind == MAPPING:
        return _mapping(value, fail, label)
    if kind == OPTIONS:
        if not isinstance(value, Mapping):
            raise fail("a mapping of option names to values")
        return {str(k).replace("-", "_"): v for k, v in value.items()}
    raise AssertionError(f"unknown kind {kind!r} of option {name}")  # pragma: no cover - a field without a kind


def option_label(name: str, source: str) -> str:
    """How a message names option ``name``: ``--max-tokens`` for flags, ``run.toml: max_tokens`` otherwise."""
    return f"--{name.replace('_', '-')}" if source == FLAGS else f"{source}: {name}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _mapping(value: Any, fail: Any, label: str) -> dict[str, str]:
    """``{"a": "X"}``, ``"a=X,b=Y"`` or ``[("a", "X")]`` as a dict of text."""
    pairs: Iterable[Any]
    if isinstance(value, str):
        pairs = []
        for part in (piece.strip() for piece in value.split(",")):
            if part:
                key, sep, item = part.partition("=")
                if not sep or not key.strip() or not item.strip():
                    raise UserError(f"{label}: expected NAME=VALUE pairs separated by commas, got {part!r}")
                pairs.append((key.strip(), item.strip()))
    elif isinstance(value, Mapping):
        pairs = value.items()
    elif isinstance(value, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        pairs = value
    else:
        raise fail("a mapping of names to values")
    result: dict[str, str] = {}
    for key, item in pairs:
        if not isinstance(key, str) or not isinstance(item, (str, int, float)) or isinstance(item, bool):
            raise fail("a mapping of names to text")
        if key in result:
            raise UserError(f"{label}: {key!r} is given twice")
        result[key] = str(item)
    return result
