"""The typed method contract: a method's ``Options``, its configuration, judging and rescoring.

A method is a ``Method`` subclass that declares its name, a one-line description, its ``Options`` (a dataclass
whose fields are made with ``option(...)``) and the model roles it calls, and implements how it judges:

- ``judge(task, config, pool) -> Outcome`` for a single task (score one text), and, if it has a pairwise
  form, ``judge_pair(task, config, pool) -> Outcome`` for a pairwise one (which of two outputs is better);
- ``rescore`` / ``rescore_pairwise`` re-read its stored transcript of each task type with no model call
  (``reparser``: how its run read a message, when not by the score parser on the run's scale).

The task types it supports follow from which of ``judge`` and ``judge_pair`` it implements (``task_types``);
``evaluator(config)`` is the one place that picks between them, from the task's type, and is what the engine,
``Judge`` and ``repeat`` call. Under ``--swap`` the engine calls ``judge_pair`` once per order and combines the
two (``debates.pairwise.swap``); a method never sees both orders at once.

``Outcome`` (``debates.evaluation``) is the method-level result: score or verdict, how it was parsed, the
transcript and the model calls. It is not what users read: the engine turns it into one ``results.jsonl``
line, the typed ``Record`` (``tasks.engine.record``: the item's identity, usage and cost from the calls,
config hash, timing), and the Python API turns that record into a ``debate_eval.Judgment`` (single) or
``debate_eval.PairJudgment`` (pairwise).

Its options are declared once, as data::

    @dataclass(frozen=True)
    class Options:
        rounds: int = option(2, help="the most rounds (default 2)", convert=positive_int)
        plain: bool = option(False, help="use the plain prompt")

and everything else is generated from them: the command-line flags (``--rounds``, ``--plain``: a ``False``
default makes a switch), the keys of a ``--config`` TOML file and the keywords of ``evaluate()`` and
``Judge`` (``rounds``, ``plain``), the listing of ``debate-eval methods``. A field's name is all three names;
``convert`` turns a text into the value and checks it (``OptionError`` for a refused value, its message
shown as is), ``choices`` lists the allowed values. ``build_config`` gets the parsed ``Options``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import MISSING, asdict, dataclass, field, fields, is_dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.providers.scripted_server import ScriptedReplies
from debate_eval.agents.roles import Relay
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.kit.confidence import Confidence
from debate_eval.debates.kit.reask import standing
from debate_eval.debates.record import R, ResultRecord, entries
from debate_eval.debates.scoring.scores import ParsedScore, ScoreRange, parse_score
from debate_eval.debates.scoring.untrusted import UntrustedMaterial

if TYPE_CHECKING:  # the contract and the options load without AutoGen (``run --help`` stays fast)
    from debate_eval.agents.models.pool import ClientPool

ConfigT = TypeVar("ConfigT")
Evaluator = Callable[[EvaluationTask, "ClientPool"], Awaitable[Outcome]]
OPTION_KEY = "debate_eval.option"  # where ``option`` keeps a field's declaration in its metadata


class OptionError(ValueError):
    """A value an option refuses; the message says what was expected (``expected an integer >= 1, got 0``)."""


def positive_int(text: str) -> int:
    """An option's ``convert``: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise OptionError(f"expected an integer >= 1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """An option's ``convert``: an integer >= 0."""
    value = int(text)
    if value < 0:
        raise OptionError(f"expected an integer >= 0, got {text}")
    return value


def option(
    default: Any = None,
    *,
    help: str,
    choices: Iterable[Any] | None = None,
    convert: Callable[[str], Any] | None = None,
    metavar: str | None = None,
) -> Any:
    """A field of a method's ``Options``: its default, help text, allowed ``choices`` and ``convert`` (text to
    value, raising ``OptionError`` or ``ValueError`` for a refused one). A ``False`` default without
    ``convert`` makes a switch (a flag without a value)."""
    declared = {
        "help": help,
        "choices": tuple(choices) if choices is not None else None,
        "convert": convert,
        "metavar": metavar,
        "switch": default is False and convert is None,
    }
    return field(default=default, metadata={OPTION_KEY: declared})


@dataclass(frozen=True)
class NoOptions:
    """The ``Options`` of a method without options of its own."""


@dataclass(frozen=True)
class MethodOption:
    """One option of a method, as every entry point sees it: ``name`` is the field of its ``Options``, the
    keyword of ``evaluate(**method_options)`` and the key in a ``--config`` TOML file; ``flag`` is the
    command-line flag (``max_rounds`` -> ``--max-rounds``)."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None
    switch: bool  # a flag without a value: True when given
    convert: Callable[[str], Any] | None  # checks and converts a value given as text
    metavar: str | None = None

    @property
    def flag(self) -> str:
        """The flag, e.g. ``--max-rounds``."""
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any) -> Any:
        """``value`` checked and converted as the flag would be; a ``UserError`` (one line naming the option)
        otherwise."""
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
            except (ValueError, TypeError) as error:
                raise UserError(f"{label}: {error}") from None
        if self.choices is not None and value not in self.choices:
            raise UserError(f"{label}: {value!r} is not one of {', '.join(map(str, self.choices))}")
        return value


def options_of(options_type: type) -> dict[str, MethodOption]:
    """The options an ``Options`` dataclass declares, by name, in field order."""
    found: dict[str, MethodOption] = {}
    for spec in fields(options_type):
        declared = spec.metadata.get(OPTION_KEY)
        if declared is None:
            raise TypeError(f"{options_type.__name__}.{spec.name}: declare it with option(...)")
        default = spec.default if spec.default is not MISSING else None
        found[spec.name] = MethodOption(name=spec.name, default=default, **declared)
    return found


@dataclass(frozen=True)
class MethodContext:
    """What a method's configuration may depend on besides its own options."""

    dataset: str
    dataset_kind: str = "summarization"  # or "dialogue"
    aspect: str | None = None
    task_type: str = "single"
    swap: bool = False  # pairwise: every item is judged in both orders by the engine (--swap)
    # every method option given for the run, by name (a method built on another reads the other's here)
    options: Mapping[str, Any] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True)
class Reparser:
    """Re-parses the stored answers of one record, exactly as a run parses them (``rescore``).

    By default an entry is read as ``text`` reads its content (the project's score parser on ``scale``); a
    method whose run read its messages otherwise sets ``read_entry`` (``Method.reparser``) to that reading.
    """

    transcript: list[dict[str, Any]]
    scale: ScoreRange
    aspect: str | None
    material: UntrustedMaterial
    # the method's own reading of one transcript entry (this reparser, the entry); None: ``text`` of its content
    read_entry: Callable[[Reparser, dict[str, Any]], ParsedScore] | None = None

    def text(self, text: str) -> ParsedScore:
        """Parse an agent's answer: copies of the texts under evaluation are blanked out first."""
        return parse_score(self.material.neutralize(text), self.scale, self.aspect)

    def read(self, entry: dict[str, Any]) -> ParsedScore:
        """Parse one transcript entry as the run parsed it."""
        if self.read_entry is not None:
            return self.read_entry(self, entry)
        return self.text(str(entry.get("content", "")))

    def entry(self, index: int) -> ParsedScore:
        """Parse the transcript entry at ``index``."""
        return self.read(self.transcript[index])


class Method(Generic[ConfigT]):
    """One evaluation method. Subclass it, set the class attributes and ``Options``, implement
    ``build_config`` and ``judge`` and/or ``judge_pair``; override the rest when the defaults do not fit."""

    name: str = ""
    description: str = ""  # one line, shown by `debate-eval methods`
    config_type: type = object  # the config dataclass ``build_config`` returns
    Options: ClassVar[type] = NoOptions  # the method's options (fields made with ``option``)
    has_critic: ClassVar[bool] = False  # outcomes carry ``agreed``/``rounds`` (a Critic that can say NO ISSUE)
    # the key of its config in a run's result config (default: its name); a built-in's key is also where
    # the versions before the registry wrote it, so their config hashes are still recognised
    config_key: ClassVar[str | None] = None
    # its canned replies for the scripted server (``debates/<method>/scripted.py``), registered with it
    scripted_replies: ClassVar[tuple[ScriptedReplies, ...]] = ()

    def options_key(self) -> Any:
        """Methods with equal keys share one set of options (default: the class)."""
        return type(self)

    def declared_options(self) -> dict[str, MethodOption]:
        """The method's options, by name (from ``Options``)."""
        return options_of(self.Options)

    def parse_options(self, values: Mapping[str, Any]) -> Any:
        """The method's ``Options`` from ``values`` (option name -> value, from flags, a TOML file or
        ``evaluate(**method_options)``), each checked; the others at their defaults.

        A name no registered method declares is a ``UserError`` (with the nearest names); a name another method
        declares is checked as that method checks it and otherwise ignored, as on the command line (``--chateval-roles``
        does not change a debate), so one set of options can drive several methods (``ablate``'s grid).
        """
        own = self.declared_options()
        others = {name: value for name, value in values.items() if name not in own}
        if others:
            from debate_eval.debates.base import check_option_names  # the registry, which imports this module

            check_option_names(others)
        return self.Options(**{name: own[name].check(value) for name, value in values.items() if name in own})

    def configure(self, values: Mapping[str, Any], ctx: MethodContext) -> ConfigT:
        """The method's configuration from the run's method options ``values`` (``build_config`` of the
        parsed ``Options``; ``ctx.options`` holds every value given)."""
        return self.build_config(self.parse_options(values), replace(ctx, options=dict(values)))

    def build_config(self, options: Any, ctx: MethodContext) -> ConfigT:
        """The method's configuration from its parsed ``Options`` (a ``UserError`` for bad values)."""
        raise NotImplementedError

    def roles(self, config: ConfigT) -> tuple[str, ...]:
        """The model roles the method calls (each resolved by ``ModelConfig.for_role``)."""
        return ("scorer",)

    async def judge(self, task: EvaluationTask, config: ConfigT, pool: ClientPool) -> Outcome:
        """Judge one single task: score its one text. A method with a single form implements it."""
        raise NotImplementedError(f"method {self.name!r} has no single form")

    async def judge_pair(self, task: EvaluationTask, config: ConfigT, pool: ClientPool) -> Outcome:
        """Judge one pairwise task (one order of it): its verdict ``first`` / ``second`` / ``tie`` between
        ``output_a`` and ``output_b``. A method with a pairwise form implements it."""
        raise NotImplementedError(f"method {self.name!r} has no pairwise form")

    @property
    def task_types(self) -> tuple[str, ...]:
        """The task types it supports: ``single`` when it implements ``judge``, ``pairwise`` when it
        implements ``judge_pair``."""
        return implemented_task_types(type(self))

    def config_dict(self, config: ConfigT) -> dict[str, Any]:
        """JSON-ready view of ``config`` (its ``to_dict()`` when it has one)."""
        to_dict = getattr(config, "to_dict", None)
        if callable(to_dict):
            return dict(to_dict())
        if is_dataclass(config) and not isinstance(config, type):
            return asdict(config)
        return {}

    def describe(self, config: ConfigT) -> dict[str, Any]:
        """The settings a table shows for a run of this method (e.g. critic, rounds); default none."""
        return {}

    def warnings(self, config: ConfigT, temperature: float) -> list[str]:
        """One-line warnings printed when a run starts (``temperature``: the Scorer's)."""
        return []

    def sampled_method(self, values: Mapping[str, Any]) -> str | None:
        """The method whose judge this one runs, given the options ``values`` (self-consistency's base); its
        request format and fidelity are the run's. Default: none (the method judges by itself)."""
        return None

    def authors_prompt_file(self, dataset: str, aspect: str) -> str | None:
        """The prompt file the authors' released code read for ``dataset``/``aspect`` in ``--fidelity
        authors-code``, when it read one (a run without ``--template`` sends this project's wording instead,
        and says so naming this file). Default: none."""
        return None

    def summary_lines(self, records: Iterable[ResultRecord]) -> list[str]:
        """Lines the run summary adds for this method, from the run's records (default: none)."""
        return []

    def confidence(self, record: ResultRecord) -> Confidence | None:
        """How sure ``record``'s score or verdict is, in [0, 1], from what the run already has (samples'
        agreement, a debate's course, answer probabilities), and how it was derived; ``None`` when the method
        has nothing to say (default). ``--swap``'s order check is added by the engine
        (``debates.kit.confidence.record_confidence``)."""
        return None

    def record_view(self, record: ResultRecord, full: bool = False) -> str | None:
        """A block ``debate-eval show`` prints before one record's messages (default: none)."""
        return None

    def reparser(self, record: ResultRecord, reparse: Reparser) -> Reparser:
        """How a run of this method read ``record``'s answers, for re-reading them (``rescore``): every
        transcript entry's score and the ``reparse`` that ``rescore`` gets. Default: ``reparse`` as it is (the
        score parser on the run's scale); a method whose run parsed otherwise (another scale, its own reading of
        a message) returns a copy that does (``dataclasses.replace(reparse, scale=..., read_entry=...)``)."""
        return reparse

    def rescore(self, record: R, reparse: Reparser) -> R:
        """``record`` (its transcript entries' scores already parsed again, the same as ``reparse`` reads)
        with its deciding answer parsed again: a copy with its ``score`` and parse fields updated. Default:
        the deciding agent's last answer, or its answer after a re-ask when the first had no score."""
        chosen, _ = deciding_parse(record, reparse)
        if chosen is None:
            return record
        return with_parse(record, chosen, score=chosen.value if chosen.ok else None)

    def answer_value(self, record: ResultRecord, reparse: Reparser) -> float | None:
        """The value ``record``'s answer parsed to, before any weighting: what a vote counts (self-consistency's
        ``majority``), re-read as ``reparse`` reads (``rescore`` already applied). The run's ``Outcome.parse``
        holds the same value. Default: its score when it was parsed; a method whose score is not its parsed
        answer (G-Eval's probability-weighted score) returns the parsed answer."""
        return record.score if record.parse_status == "parsed" else None

    def rescore_pairwise(self, record: R, texts: list[str]) -> R:
        """A copy of the pairwise ``record`` with its verdicts parsed again from its transcript (``texts``: the
        item's judged texts; ``debates.kit.reread``). Default: per order, the deciding agent's last answer
        before a re-ask, or the re-ask's answer when that one had no verdict."""
        from debate_eval.debates.kit.reread import deciding_verdict, reread_pairwise

        return reread_pairwise(record, texts, deciding_verdict)

    def evaluator(self, config: ConfigT) -> Evaluator:
        """The coroutine function that judges one task under ``config``: ``judge_pair`` for a pairwise task,
        ``judge`` for a single one (the one place that dispatches on the task type)."""

        async def run(task: EvaluationTask, pool: ClientPool) -> Outcome:
            if task.pairwise:
                return await self.judge_pair(task, config, pool)
            return await self.judge(task, config, pool)

        return run


def implemented_task_types(method_type: type) -> tuple[str, ...]:
    """The task types a ``Method`` subclass implements: ``single`` for ``judge``, ``pairwise`` for
    ``judge_pair`` (each counted when the class, or a base below ``Method``, overrides it)."""
    found = []
    if getattr(method_type, "judge", Method.judge) is not Method.judge:
        found.append("single")
    if getattr(method_type, "judge_pair", Method.judge_pair) is not Method.judge_pair:
        found.append("pairwise")
    return tuple(found)


def with_parse(record: R, parsed: ParsedScore, **changes: Any) -> R:
    """A copy of ``record`` with ``parsed``'s status, method and reason (and ``changes``, e.g. ``score``)."""
    return record.replace(parse_status=parsed.status, parse_method=parsed.method, parse_reason=parsed.reason, **changes)


def deciding_parse(record: ResultRecord, reparse: Reparser) -> tuple[ParsedScore | None, list[int]]:
    """The deciding agent's parsed answer (after a re-ask, the re-ask's answer when the first had no
    score) and the indexes of all its answers; ``None`` when the transcript has no answer of it."""
    transcript = entries(record)
    decider = record.decided_by
    answers = [i for i, e in enumerate(transcript) if e.get("agent") == decider]
    reask_answer = None
    if record.reasked and len(transcript) >= 2 and transcript[-2].get("relay") == Relay.REASK.value:
        reask_answer = len(transcript) - 1
    firsts = [i for i in answers if i != reask_answer]
    if not firsts:
        return None, answers
    retry = (lambda: reparse.entry(reask_answer)) if reask_answer is not None else None
    return standing(reparse.entry(firsts[-1]), retry), answers
