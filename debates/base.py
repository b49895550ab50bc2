"""The method registry (the contract a method implements is ``debates.method``, re-exported here):
``@register_method`` (or ``register_method(instance)``) makes a ``Method`` selectable by ``run --method NAME``.

Built-in methods live in the modules of ``BUILTIN_MODULES``. Third-party packages add methods through the
entry point group ``debate_eval.methods`` (as pytest and inspect_ai load plugins)::

    [project.entry-points."debate_eval.methods"]
    example-single = "debate_eval_example.method"   # a module that registers on import, or a Method

Plugins are loaded lazily (``get_method`` loads only the entry point it needs; ``all_methods`` loads all);
a plugin that fails to load is reported in one line on stderr and skipped, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from typing import Any, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.agents.lazy_modules import LazyModules
from debate_eval.agents.models.providers.scripted_server import register_replies
from debate_eval.debates.method import (
    Evaluator,
    Method,
    MethodContext,
    MethodOption,
    NoOptions,
    OptionError,
    Reparser,
    deciding_parse,
    implemented_task_types,
    non_negative_int,
    option,
    positive_int,
    with_parse,
)

__all__ = [  # the registry, and the contract re-exported (``from debate_eval.debates.base import Method``)
    "BUILTIN_MODULES",
    "DEFAULT_METHOD",
    "ENTRY_POINT_GROUP",
    "TASK_TYPES",
    "Evaluator",
    "Method",
    "MethodContext",
    "MethodOption",
    "NoOptions",
    "OptionError",
    "Reparser",
    "all_methods",
    "check_option_names",
    "deciding_parse",
    "declared_options",
    "get_method",
    "method_names",
    "method_option_names",
    "method_options",
    "method_source",
    "non_negative_int",
    "option",
    "positive_int",
    "register_method",
    "with_parse",
]

ENTRY_POINT_GROUP = "debate_eval.methods"
TASK_TYPES = ("single", "pairwise")
DEFAULT_METHOD = "debate"  # --protocol's default, and the method of records that predate their "protocol" field
BUILTIN_MODULES = (  # one line per built-in method module
    "debate_eval.debates.debate.method",
    "debate_eval.debates.geval.method",
    "debate_eval.debates.chateval.method",
    "debate_eval.debates.dialevalml.method",
    "debate_eval.debates.fennec.method",
    "debate_eval.debates.self_consistency.method",
)

# ----------------------------------------------------------------------------------------------- registry

_REGISTRY: dict[str, Method[Any]] = {}
_BUILTINS = LazyModules(BUILTIN_MODULES)
_PLUGINS_TRIED: set[str] = set()
_FAILED_PLUGINS: dict[str, str] = {}
_SOURCES: dict[str, str] = {}  # plugin method name -> "plugin <distribution> (<entry point value>)"

M = TypeVar("M")


def register_method(method: M) -> M:
    """Register a ``Method`` instance, or (as a class decorator) an instance of a ``Method`` subclass made
    with no arguments. Returns its argument unchanged."""
    _BUILTINS.load()  # first, so that a built-in's name is refused here (a built-in registering is a no-op)
    instance = method() if isinstance(method, type) else method
    if not isinstance(instance, Method):
        raise TypeError(f"register_method: {method!r} is not a Method")
    if not instance.name or not instance.description:
        raise TypeError(f"register_method: {type(instance).__name__} needs a name and a description")
    implemented = implemented_task_types(type(instance))
    overrides_evaluate = any("evaluate" in vars(cls) for cls in type(instance).__mro__ if cls is not Method)
    if overrides_evaluate or not implemented:
        raise TypeError(
            f"register_method: {instance.name}: implement judge() (single tasks) and/or judge_pair() (pairwise "
            "tasks); the task types follow from which it implements"
        )
    if tuple(instance.task_types) != implemented:
        raise TypeError(
            f"register_method: {instance.name}: task_types {tuple(instance.task_types)} do not match what it "
            f"implements {implemented} (judge: single, judge_pair: pairwise); drop the attribute"
        )
    existing = _REGISTRY.get(instance.name)
    if existing is not None and type(existing) is not type(instance):
        raise ValueError(f"method name {instance.name!r} is registered twice")
    _REGISTRY[instance.name] = instance
    register_replies(*instance.scripted_replies)
    return method


def _entry_points() -> list[metadata.EntryPoint]:
    return list(metadata.entry_points(group=ENTRY_POINT_GROUP))


def _load_plugin(entry: metadata.EntryPoint) -> None:
    """Load one entry point; a failure is one line on stderr (once), and the plugin is skipped."""
    if entry.name in _PLUGINS_TRIED:
        return
    _PLUGINS_TRIED.add(entry.name)
    before = set(_REGISTRY)
    dist = entry.dist.name if getattr(entry, "dist", None) is not None else None
    try:
        if entry.name in _REGISTRY:
            raise ValueError(f"the name {entry.name!r} is taken by a built-in method")
        loaded = entry.load()
        if isinstance(loaded, Method) or (isinstance(loaded, type) and issubclass(loaded, Method)):
            register_method(loaded)
    except Exception as error:  # a broken plugin must not break the command
        line = f"plugin method {entry.name!r} ({dist or entry.value}) not loaded: {type(error).__name__}: {error}"
        _FAILED_PLUGINS[entry.name] = line
        print(f"debate-eval: {line.splitlines()[0]}", file=sys.stderr)
        for name in set(_REGISTRY) - before:  # nothing half-registered
            del _REGISTRY[name]
        return
    for name in set(_REGISTRY) - before:
        _SOURCES[name] = f"plugin {dist or '?'} ({entry.value})"
    if entry.name not in _REGISTRY:
        line = f"plugin method {entry.name!r} ({entry.value}) registered no method of that name"
        _FAILED_PLUGINS[entry.name] = line
        print(f"debate-eval: {line}", file=sys.stderr)


def all_methods() -> dict[str, Method[Any]]:
    """Every registered method by name: the built-ins in the order of ``BUILTIN_MODULES`` (whatever order they
    were imported in), then every installed plugin."""
    _BUILTINS.load()
    for entry in _entry_points():
        _load_plugin(entry)
    return _ordered()


def _ordered() -> dict[str, Method[Any]]:
    def rank(name: str) -> int:  # a stable sort: the order of registration within a module, and for plugins
        module = type(_REGISTRY[name]).__module__
        return BUILTIN_MODULES.index(module) if module in BUILTIN_MODULES else len(BUILTIN_MODULES)

    return {name: _REGISTRY[name] for name in sorted(_REGISTRY, key=rank)}


def get_method(name: str) -> Method[Any]:
    """The method called ``name`` (a built-in, else the plugin of that name); a ``UserError`` lists the
    valid names otherwise."""
    _BUILTINS.load()
    if name not in _REGISTRY:
        for entry in _entry_points():
            if entry.name == name:
                _load_plugin(entry)
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in _FAILED_PLUGINS:
        raise UserError(_FAILED_PLUGINS[name])
    import difflib

    names = list(all_methods())
    close = difflib.get_close_matches(str(name), names, n=1, cutoff=0.5)
    hint = f"did you mean {close[0]}? " if close else ""
    raise UserError(f"unknown method {name!r}; {hint}methods are: {', '.join(names)}")


def method_source(method: Method[Any]) -> str:
    """Where a registered method comes from: ``built-in`` or ``plugin DIST (module)``."""
    return _SOURCES.get(method.name, "built-in")


def method_names() -> list[str]:
    """The names of every registered method."""
    return list(all_methods())


def declared_options(method: Method[Any]) -> dict[str, MethodOption]:
    """The options ``method`` declares (its ``Options``), by name."""
    return method.declared_options()


def method_option_names() -> dict[str, list[str]]:
    """Every registered method's option names, each with the methods that declare it."""
    found: dict[str, list[str]] = {}
    for method in all_methods().values():
        for name in declared_options(method):
            found.setdefault(name, []).append(method.name)
    return found


def check_option_names(names: Iterable[str]) -> None:
    """A ``UserError`` for the first of ``names`` no registered method declares, with the nearest ones. Given a
    mapping of names to values, each value is also checked as the first method declaring it checks it, as the
    command line checks every method's flags whichever method runs."""
    import difflib

    known = method_option_names()
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=3)
            hint = f"; did you mean {' or '.join(close)}?" if close else f"; method options: {', '.join(known)}"
            raise UserError(f"unknown method option {name!r}{hint}")
        if isinstance(names, Mapping):
            declared_options(all_methods()[known[name][0]])[name].check(names[name])


def method_options(method: Method[Any]) -> list[dict[str, Any]]:
    """The method's own options, JSON-ready: name (keyword and TOML key), flags, help, default, choices, and
    the name of its value (``metavar``, when it declares one)."""
    return [
        {
            "name": option.name,
            "flags": [option.flag],
            "help": option.help,
            "default": option.default,
            "choices": list(option.choices) if option.choices else None,
            "takes_value": not option.switch,
            "metavar": option.metavar,
        }
        for option in declared_options(method).values()
    ]
