"""The evaluation-method interface and its registry.

A method is one module: a ``Method`` subclass that declares its name, a one-line description, the task
types it supports, its typed config dataclass, its own command-line options, the model roles it calls, how
it evaluates one item and how ``rescore`` re-parses its transcript; ``@register_method`` (or
``register_method(instance)``) makes it selectable by ``run --protocol NAME``.

Built-in methods live in the modules of ``BUILTIN_MODULES``. Third-party packages add methods through the
entry point group ``debate_eval.methods`` (as pytest and inspect_ai load plugins)::

    [project.entry-points."debate_eval.methods"]
    example-single = "debate_eval_example.method"   # a module that registers on import, or a Method

Plugins are loaded lazily (``get_method`` loads only the entry point it needs; ``all_methods`` loads all);
a plugin that fails to load is reported in one line on stderr and skipped, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, is_dataclass
from importlib import metadata
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.agents.roles import Relay
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange, parse_score
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

if TYPE_CHECKING:  # the registry and the options load without AutoGen (``run --help`` stays fast)
    from debate_eval.agents.models.pool import ClientPool

ENTRY_POINT_GROUP = "debate_eval.methods"
TASK_TYPES = ("single", "pairwise")
DEFAULT_METHOD = "debate"  # --protocol's default, and the method of records that predate their "protocol" field
BUILTIN_MODULES = (  # one line per built-in method module
    "debate_eval.debates.debate.method",
    "debate_eval.debates.geval",
    "debate_eval.debates.chateval.method",
    "debate_eval.debates.dialevalml",
    "debate_eval.debates.fennec.method",
)

ConfigT = TypeVar("ConfigT")
Evaluator = Callable[[EvaluationTask, "ClientPool"], Awaitable[Outcome]]


@dataclass(frozen=True)
class MethodContext:
    """What a method's configuration may depend on besides its own options."""

    dataset: str
    dataset_kind: str = "summarization"  # or "dialogue"
    aspect: str | None = None
    task_type: str = "single"
    swap: bool = False  # pairwise: every item is judged in both orders by the engine (--swap)


@dataclass(frozen=True)
class Reparser:
    """Re-parses the stored answers of one record, exactly as a run parses them (``rescore``)."""

    transcript: list[dict[str, Any]]
    scale: ScoreRange
    aspect: str | None
    material: UntrustedMaterial

    def text(self, text: str) -> ParsedScore:
        """Parse an agent's answer: copies of the texts under evaluation are blanked out first."""
        return parse_score(self.material.neutralize(text), self.scale, self.aspect)

    def entry(self, index: int) -> ParsedScore:
        """Parse the transcript entry at ``index``."""
        return self.text(str(self.transcript[index].get("content", "")))


class Method(Generic[ConfigT]):
    """One evaluation method. Subclass it, set the class attributes, implement ``build_config`` and
    ``evaluate``; override the rest when the defaults do not fit."""

    name: str = ""
    description: str = ""  # one line, shown by `debate-eval methods`
    task_types: tuple[str, ...] = ("single",)
    config_type: type = object  # the config dataclass ``build_config`` returns
    has_critic: ClassVar[bool] = False  # outcomes carry ``agreed``/``rounds`` (a Critic that can say NO ISSUE)
    # the key of its config in a run's result config (default: its name); a built-in's key is also where
    # the versions before the registry wrote it, so their config hashes are still recognised
    config_key: ClassVar[str | None] = None

    def add_options(self, group: Any) -> None:
        """Add the method's own command-line options to ``group`` (an argparse group). Options shared by
        several registered methods are added once, by the first method of its ``options_key``."""

    def options_key(self) -> Any:
        """Methods with equal keys share one set of options (default: the class)."""
        return type(self)

    def build_config(self, args: argparse.Namespace, ctx: MethodContext) -> ConfigT:
        """The method's configuration from the parsed options (a ``UserError`` for bad values)."""
        raise NotImplementedError

    def roles(self, config: ConfigT) -> tuple[str, ...]:
        """The model roles the method calls (each resolved by ``ModelConfig.for_role``)."""
        return ("scorer",)

    async def evaluate(self, task: EvaluationTask, config: ConfigT, pool: ClientPool) -> Outcome:
        """Evaluate one item."""
        raise NotImplementedError

    def config_dict(self, config: ConfigT) -> dict[str, Any]:
        """JSON-ready view of ``config`` (its ``to_dict()`` when it has one)."""
        to_dict = getattr(config, "to_dict", None)
        if callable(to_dict):
            return dict(to_dict())
        if is_dataclass(config) and not isinstance(config, type):
            return asdict(config)
        return {}

    def legacy_config_dict(self, config: ConfigT) -> dict[str, Any] | None:
        """``config`` as versions up to 0afcb53 wrote it (their config hashes are still accepted), or None
        when no such version could have run it (default: None, a method new since)."""
        return None

    def describe(self, config: ConfigT) -> dict[str, Any]:
        """The settings a table shows for a run of this method (e.g. critic, rounds); default none."""
        return {}

    def warnings(self, config: ConfigT, temperature: float) -> list[str]:
        """One-line warnings printed when a run starts (``temperature``: the Scorer's)."""
        return []

    def summary_lines(self, records: Iterable[dict[str, Any]]) -> list[str]:
        """Lines the run summary adds for this method, from the run's records (default: none)."""
        return []

    def record_view(self, record: Mapping[str, Any], full: bool = False) -> str | None:
        """A block ``debate-eval show`` prints before one record's messages (default: none)."""
        return None

    def rescore(self, record: dict[str, Any], reparse: Reparser) -> dict[str, Any]:
        """Re-parse the deciding answer of ``record`` (a copy; every transcript entry's score is already
        re-parsed) and update its ``score`` and parse fields. Default: the deciding agent's last answer, or
        its answer after a re-ask when the first had no score."""
        chosen, _ = deciding_parse(record, reparse)
        if chosen is not None:
            set_parse(record, chosen)
            record["score"] = chosen.value if chosen.ok else None
        return record

    def evaluator(self, config: ConfigT) -> Evaluator:
        """The coroutine function that evaluates one task under ``config``."""
        return lambda task, pool: self.evaluate(task, config, pool)


def legacy_view(
    config: Mapping[str, Any], keys: Iterable[str], defaults: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """``config`` restricted to ``keys`` (the fields an earlier version wrote), or None when a newer field
    holds anything but None or its value in ``defaults`` (then no earlier version ran this configuration)."""
    keys = tuple(keys)
    for key, value in config.items():
        if key not in keys and value is not None and (defaults is None or defaults.get(key, object()) != value):
            return None
    if any(key not in config for key in keys):
        return None
    return {key: config[key] for key in keys}


def positive_int(text: str) -> int:
    """argparse type for an option of a method: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type for an option of a method: an integer >= 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text}")
    return value


def set_parse(record: dict[str, Any], parsed: ParsedScore) -> None:
    """Write ``parsed``'s status, method and reason into ``record``."""
    record.update(parse_status=parsed.status, parse_method=parsed.method, parse_reason=parsed.reason)


def deciding_parse(record: Mapping[str, Any], reparse: Reparser) -> tuple[ParsedScore | None, list[int]]:
    """The deciding agent's parsed answer (after a re-ask, the re-ask's answer when the first had no
    score) and the indexes of all its answers; ``None`` when the transcript has no answer of it."""
    transcript = record.get("transcript") or []
    decider = record.get("decided_by")
    answers = [i for i, e in enumerate(transcript) if e.get("agent") == decider]
    reask_answer = None
    if record.get("reasked") and len(transcript) >= 2 and transcript[-2].get("relay") == Relay.REASK.value:
        reask_answer = len(transcript) - 1
    firsts = [i for i in answers if i != reask_answer]
    if not firsts:
        return None, answers
    chosen = reparse.entry(firsts[-1])
    if not chosen.ok and reask_answer is not None:
        retry = reparse.entry(reask_answer)
        chosen = retry if retry.ok else chosen
    return chosen, answers


# ----------------------------------------------------------------------------------------------- registry

_REGISTRY: dict[str, Method[Any]] = {}
_LOADED_BUILTINS = False
_PLUGINS_TRIED: set[str] = set()
_FAILED_PLUGINS: dict[str, str] = {}
_SOURCES: dict[str, str] = {}  # plugin method name -> "plugin <distribution> (<entry point value>)"

M = TypeVar("M")


def register_method(method: M) -> M:
    """Register a ``Method`` instance, or (as a class decorator) an instance of a ``Method`` subclass made
    with no arguments. Returns its argument unchanged."""
    instance = method() if isinstance(method, type) else method
    if not isinstance(instance, Method):
        raise TypeError(f"register_method: {method!r} is not a Method")
    if not instance.name or not instance.description:
        raise TypeError(f"register_method: {type(instance).__name__} needs a name and a description")
    unknown = set(instance.task_types) - set(TASK_TYPES)
    if unknown or not instance.task_types:
        raise TypeError(f"register_method: {instance.name}: task types must be among {', '.join(TASK_TYPES)}")
    existing = _REGISTRY.get(instance.name)
    if existing is not None and type(existing) is not type(instance):
        raise ValueError(f"method name {instance.name!r} is registered twice")
    _REGISTRY[instance.name] = instance
    return method


def _load_builtins() -> None:
    global _LOADED_BUILTINS
    if not _LOADED_BUILTINS:
        _LOADED_BUILTINS = True
        for module in BUILTIN_MODULES:
            importlib.import_module(module)


def _entry_points() -> list[metadata.EntryPoint]:
    return list(metadata.entry_points(group=ENTRY_POINT_GROUP))


def _load_plugin(entry: metadata.EntryPoint) -> None:
    """Load one entry point; a failure is one line on stderr (once), and the plugin is skipped."""
    if entry.name in _PLUGINS_TRIED:
        return
    _PLUGINS_TRIED.add(entry.name)
    before = set(_REGISTRY)
    try:
        if entry.name in _REGISTRY:
            raise ValueError(f"the name {entry.name!r} is taken by a built-in method")
        loaded = entry.load()
        if isinstance(loaded, Method) or (isinstance(loaded, type) and issubclass(loaded, Method)):
            register_method(loaded)
    except Exception as error:  # a broken plugin must not break the command
        source = entry.dist.name if getattr(entry, "dist", None) is not None else entry.value
        line = f"plugin method {entry.name!r} ({source}) not loaded: {type(error).__name__}: {error}"
        _FAILED_PLUGINS[entry.name] = line
        print(f"debate-eval: {line.splitlines()[0]}", file=sys.stderr)
        for name in set(_REGISTRY) - before:  # nothing half-registered
            del _REGISTRY[name]
        return
    dist = entry.dist.name if getattr(entry, "dist", None) is not None else "?"
    for name in set(_REGISTRY) - before:
        _SOURCES[name] = f"plugin {dist} ({entry.value})"
    if entry.name not in _REGISTRY:
        line = f"plugin method {entry.name!r} ({entry.value}) registered no method of that name"
        _FAILED_PLUGINS[entry.name] = line
        print(f"debate-eval: {line}", file=sys.stderr)


def all_methods() -> dict[str, Method[Any]]:
    """Every registered method by name: the built-ins in the order of ``BUILTIN_MODULES`` (whatever order they
    were imported in), then every installed plugin."""
    _load_builtins()
    for entry in _entry_points():
        _load_plugin(entry)
    return _ordered()


def _ordered() -> dict[str, Method[Any]]:
    def rank(item: tuple[int, str]) -> tuple[int, int]:
        position, name = item
        module = type(_REGISTRY[name]).__module__
        builtin = BUILTIN_MODULES.index(module) if module in BUILTIN_MODULES else len(BUILTIN_MODULES)
        return builtin, position

    names = [name for _, name in sorted(enumerate(_REGISTRY), key=rank)]
    return {name: _REGISTRY[name] for name in names}


def get_method(name: str) -> Method[Any]:
    """The method called ``name`` (a built-in, else the plugin of that name); a ``UserError`` lists the
    valid names otherwise."""
    _load_builtins()
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


@dataclass(frozen=True)
class MethodOption:
    """One option a method declares in ``add_options``, as every entry point sees it: ``name`` is the
    argparse dest, the keyword of ``evaluate(**method_options)`` and the key in a ``--config`` TOML file
    (``--max-rounds`` -> ``max_rounds``)."""

    name: str
    flags: tuple[str, ...]
    default: Any
    help: str
    choices: tuple[Any, ...] | None
    switch: bool  # a flag without a value (store_true): True when given
    convert: Callable[[str], Any] | None  # the argparse ``type`` that checks and converts a value

    @property
    def flag(self) -> str:
        """The long flag, e.g. ``--max-rounds``."""
        return max(self.flags, key=len) if self.flags else self.name

    def check(self, value: Any) -> Any:
        """``value`` checked and converted as the flag's own ``type`` and ``choices`` would; a ``UserError``
        (one line naming the option) otherwise."""
        label = f"{self.flag} ({self.name})"
        if self.switch:
            if not isinstance(value, bool):
                raise UserError(f"{label}: expected true or false, got {value!r}")
            return value
        if value is None:
            return None
        if self.convert is not None and not isinstance(value, (list, tuple, dict)):
            if isinstance(value, bool):
                raise UserError(f"{label}: expected a value, got {value!r}")
            try:
                value = self.convert(value if isinstance(value, str) else str(value))
            except (argparse.ArgumentTypeError, ValueError, TypeError) as error:
                raise UserError(f"{label}: {error}") from None
        if self.choices is not None and value not in self.choices:
            raise UserError(f"{label}: {value!r} is not one of {', '.join(map(str, self.choices))}")
        return value


def declared_options(method: Method[Any]) -> dict[str, MethodOption]:
    """The options ``method.add_options`` declares, by name (read from a parser of its own)."""
    parser = argparse.ArgumentParser(add_help=False)
    group = parser.add_argument_group(method.name)
    method.add_options(group)
    options = {}
    for action in group._group_actions:
        options[action.dest] = MethodOption(
            name=action.dest,
            flags=tuple(action.option_strings),
            default=action.default,
            help=action.help or "",
            choices=tuple(action.choices) if action.choices else None,
            switch=action.nargs == 0,
            convert=action.type if callable(action.type) else None,
        )
    return options


def method_namespace(method: Method[Any], values: Mapping[str, Any]) -> argparse.Namespace:
    """The namespace ``method.build_config`` reads: the method's defaults, with ``values`` (keyword name ->
    value, from flags, a TOML file or ``evaluate(**method_options)``) checked and applied.

    A name no registered method declares is a ``UserError`` (with the nearest names); a name another method
    declares is ignored, as on the command line (``--chateval-roles`` does not change a debate), so one set of
    options can drive several methods (``ablate``'s grid).
    """
    own = declared_options(method)
    unknown = [name for name in values if name not in own]
    if unknown:
        check_option_names(unknown)
    namespace = argparse.Namespace(**{name: option.default for name, option in own.items()})
    for name, value in values.items():
        if name in own:
            setattr(namespace, name, own[name].check(value))
    return namespace


def method_option_names() -> dict[str, list[str]]:
    """Every registered method's option names, each with the methods that declare it."""
    found: dict[str, list[str]] = {}
    for method in all_methods().values():
        for name in declared_options(method):
            found.setdefault(name, []).append(method.name)
    return found


def check_option_names(names: Iterable[str]) -> None:
    """A ``UserError`` for the first of ``names`` no registered method declares, with the nearest ones."""
    import difflib

    known = method_option_names()
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=3)
            hint = f"; did you mean {' or '.join(close)}?" if close else f"; method options: {', '.join(known)}"
            raise UserError(f"unknown method option {name!r}{hint}")


def add_method_options(parser: argparse.ArgumentParser, methods: Iterable[Method[Any]] | None = None) -> set[str]:
    """Add every method's own options, one argument group per set of methods sharing them; returns their
    names (dests). Their defaults are None on this parser (an option not given is absent from the run's
    request; ``method_namespace`` applies the method's own defaults), so flags, a TOML file and keywords
    meet on equal terms."""
    groups: dict[Any, list[Method[Any]]] = {}
    for method in methods if methods is not None else all_methods().values():
        groups.setdefault(method.options_key(), []).append(method)
    names: set[str] = set()
    for members in groups.values():
        title = ", ".join(m.name for m in members)
        group = parser.add_argument_group(f"options of {title}")
        members[0].add_options(group)
        for action in group._group_actions:
            action.default = None
            names.add(action.dest)
        if not group._group_actions:
            parser._action_groups.remove(group)
    return names


def method_options(method: Method[Any]) -> list[dict[str, Any]]:
    """The method's own options, JSON-ready: name (keyword and TOML key), flags, help, default, choices."""
    return [
        {
            "name": option.name,
            "flags": list(option.flags),
            "help": option.help,
            "default": option.default,
            "choices": list(option.choices) if option.choices else None,
            "takes_value": not option.switch,
        }
        for option in declared_options(method).values()
    ]
