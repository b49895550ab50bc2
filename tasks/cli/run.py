"""``debate-eval run``: evaluate one dataset/aspect with one method, writing results and transcripts.

The flags only collect what was given into a ``RunRequest`` (``request_from_args``; a ``--config`` file
under them); ``engine.build`` interprets it, the same way for ``evaluate()`` in Python. The flags are
generated: a run option's from its ``RunRequest`` field (its ``Flag``: section, help, metavar, choices), a
method option's from the method's ``Options``. Every flag's dest is the field's or the option's name, and
defaults to None here: None means "not given".
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.debates.base import (
    Method,
    MethodOption,
    OptionError,
    all_methods,
    method_option_names,
    non_negative_int,
    positive_int,
)
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.data.datasets import get_dataset
from debate_eval.tasks.engine import flags
from debate_eval.tasks.engine.config_file import read_config_file, request_toml
from debate_eval.tasks.engine.flags import Flag
from debate_eval.tasks.engine.option_values import FLOAT, INT, NON_NEGATIVE_INT, POSITIVE_FLOAT, POSITIVE_INT, SWITCH
from debate_eval.tasks.engine.request import FLAGS, RunRequest, field_kind, field_names, flags_of

if TYPE_CHECKING:  # the engine loads when a run starts (``run --help`` stays fast)
    from debate_eval.tasks.engine.record import Record
    from debate_eval.tasks.engine.run_config import RunConfig
    from debate_eval.tasks.engine.runner import RunSummary, Tally

DESCRIPTION = """Evaluate one dataset/aspect with DEBATE (or a baseline) and write results.jsonl, config.json and
summary.json into the run directory. Models: with no API key ($OPENAI_API_KEY) and no base URL (--base-url,
$OPENAI_BASE_URL), every role uses the embedded local model (SmolLM2-135M served by llama.cpp, offline: it tests the
pipeline, it judges at chance); give a key or a base URL to use an OpenAI-compatible endpoint."""


def add_request_flags(parser: argparse.ArgumentParser, *sections: str) -> None:
    """The flags of the ``RunRequest`` fields listed in ``sections`` (one argument group each, in order; the
    fields in field order), generated from each field's ``Flag`` and kind. Every default is None: a flag not
    given is absent from the request."""
    for section in sections:
        group = parser.add_argument_group(section)
        for name, flag in flags_of(section):
            add_request_flag(group, name, flag)


def add_request_flag(group: Any, name: str, flag: Flag) -> None:
    """One request field's flag (and its hidden earlier names)."""
    option = "--" + name.replace("_", "-")
    text = flag.help() if callable(flag.help) else flag.help
    kind = field_kind(name)
    if kind == SWITCH:
        group.add_argument(option, action="store_true", default=None, help=text)
    else:
        spec: dict[str, Any] = {"help": text}
        convert = flag.convert or FLAG_TYPES.get(kind)
        if convert is not None:
            spec["type"] = convert
        if flag.choices is not None:
            spec["choices"] = list(flag.choices())
        if flag.metavar is not None:
            spec["metavar"] = flag.metavar
        if flag.append:
            spec["action"] = "append"
        if flag.const is not None:
            spec.update(nargs="?", const=flag.const)
        group.add_argument(option, **spec)
    for alias in flag.hidden_aliases:
        group.add_argument(alias, dest=name, help=argparse.SUPPRESS)


def flag_type(convert: Callable[[str], Any]) -> Callable[[str], Any]:
    """argparse type of a method option's ``convert``: a refused value (``OptionError``) is argparse's one-line
    error with the option's own message; text that is no value at all reads as ``invalid NAME value``."""

    def parse(text: str) -> Any:
        try:
            return convert(text)
        except OptionError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = getattr(convert, "__name__", "value")
    return parse


# How a flag's text is converted, by the field's kind (a field's own ``Flag.convert`` wins); a refused number
# is named as a method option's is (``expected an integer >= 1, got 0``).
FLAG_TYPES: dict[str, Callable[[str], Any]] = {
    INT: int,
    POSITIVE_INT: flag_type(positive_int),
    NON_NEGATIVE_INT: flag_type(non_negative_int),
    FLOAT: float,
    POSITIVE_FLOAT: float,  # then checked > 0 (``check_value``): the message says what was expected
}


def add_option_flag(group: Any, option: MethodOption) -> None:
    """The flag of one method option; its default is None (an option not given is absent from the request)."""
    if option.switch:
        group.add_argument(option.flag, dest=option.name, action="store_true", default=None, help=option.help)
        return
    group.add_argument(
        option.flag,
        dest=option.name,
        default=None,
        help=option.help,
        metavar=option.metavar,
        choices=list(option.choices) if option.choices is not None else None,
        type=flag_type(option.convert) if option.convert is not None else None,
    )


def add_method_options(parser: argparse.ArgumentParser, methods: Iterable[Method[Any]] | None = None) -> set[str]:
    """Every method's own options (generated from its ``Options``), one argument group per set of methods
    sharing them, each option once (in the group of the first method declaring it); returns their names.
    Their defaults are None here (an option not given is absent from the run's request; the method applies
    its own defaults), so flags, a TOML file and keywords meet on equal terms. An option named as a run option
    (a plugin's ``temperature``) is left out with one line on stderr: the run option owns the name."""
    groups: dict[Any, list[Method[Any]]] = {}
    for method in methods if methods is not None else all_methods().values():
        groups.setdefault(method.options_key(), []).append(method)
    reserved = set(field_names())
    names: set[str] = set()
    for members in groups.values():
        new = [option for option in members[0].declared_options().values() if option.name not in names]
        for option in [option for option in new if option.name in reserved]:
            print(
                f"debate-eval: method {members[0].name!r}: option {option.name!r} left out: it is a run option "
                f"({option.flag}); rename it",
                file=sys.stderr,
            )
        new = [option for option in new if option.name not in reserved]
        if not new:
            continue
        group = parser.add_argument_group(f"options of {', '.join(m.name for m in members)}")
        for option in new:
            add_option_flag(group, option)
            names.add(option.name)
    return names


def add_method_arguments(parser: argparse.ArgumentParser) -> None:
    """How to evaluate: the method (``--method``; ``--protocol``, its earlier name, is a hidden alias) and
    every method's own options."""
    add_request_flags(parser, flags.METHOD_FLAGS)
    add_method_options(parser)


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """Which models (API keys only from the environment / .env) and how they are asked."""
    add_request_flags(parser, flags.MODEL_FLAGS, flags.REQUEST_FLAGS)


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Every flag of ``run``: which data (dataset, aspect, items), how to evaluate, which models, how to execute
    (does not change results: execution, scale-out, batch mode) and the config file."""
    add_request_flags(parser, flags.SELECTION_FLAGS)
    add_method_arguments(parser)
    add_model_arguments(parser)
    add_request_flags(parser, flags.EXECUTION_FLAGS, flags.SCALE_OUT_FLAGS, flags.BATCH_FLAGS)
    add_config_arguments(parser)


def add_subparser(subparsers: Any) -> None:
    """Register ``run`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(
        subparsers,
        "run",
        handle_run,
        DESCRIPTION,
        usage="debate-eval run --dataset NAME|FILE --aspect NAME [--method NAME] [options]",
    )
    add_run_arguments(parser)


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """``--config FILE`` (a TOML file of options; flags win) and ``--dump-config``."""
    group = parser.add_argument_group("config file")
    group.add_argument(
        "--config",
        metavar="FILE",
        help="read the options from a TOML file (one key per option, named as the flag with _ for -, e.g. "
        "max_rounds = 3); flags given here win over the file",
    )
    group.add_argument(
        "--dump-config",
        action="store_true",
        help="print the options of this command as TOML (for --config) and exit without running",
    )


def request_from_args(args: argparse.Namespace, own: Collection[str] = ()) -> RunRequest:
    """The ``RunRequest`` of the flags given (a flag not given is None), over the ``--config`` file's (whose
    keys named in ``own`` are the command's own options, not the run's)."""
    values: dict[str, Any] = {}
    for name in field_names():
        value = getattr(args, name, None)
        if value is not None and value != [] and name != "method_options":
            values[name] = value
    options = {name: getattr(args, name) for name in method_option_names() if getattr(args, name, None) is not None}
    from_flags = RunRequest.from_mapping({**values, "method_options": options}, source=FLAGS)
    config = getattr(args, "config", None)
    return read_config_file(config, own)[0].updated(from_flags) if config else from_flags


def build_run_config(args: argparse.Namespace) -> RunConfig:
    """The flags' ``RunConfig`` (``engine.build.build_run_config`` of ``request_from_args``)."""
    from debate_eval.tasks.engine import build

    return build.build_run_config(request_from_args(args))


def handle_run(args: argparse.Namespace) -> int:
    """Run the evaluation and print its summary (``--dump-config``: print the request as TOML instead)."""
    request = request_from_args(args)
    if getattr(args, "dump_config", False):
        print(request_toml(request), end="")
        return 0
    import asyncio

    from debate_eval.tasks.analysis.end_of_run import compare_systems
    from debate_eval.tasks.engine import build
    from debate_eval.tasks.engine.runner import run

    config, options = build.build_run(request)
    for warning in build.method_warnings(config, request):
        print(f"debate-eval: {warning}", file=sys.stderr)
    summary = asyncio.run(run(config, options, systems=compare_systems))
    print(format_summary(summary, config))
    return 1 if summary.now.failed else 0


def format_summary(summary: RunSummary, config: RunConfig) -> str:
    """The short report printed at the end of a run: this invocation, then the run's totals."""
    from debate_eval.tasks.engine.accounting import cache_and_batch_lines
    from debate_eval.tasks.engine.item_errors import failed_items_note
    from debate_eval.tasks.engine.rundir import RunDir

    now, total = summary.now, summary.total
    transport = summary.transport.to_dict()
    lines = [
        f"{config.dataset}/{config.aspect} [{config.protocol}]: {summary.selected} items selected, "
        f"{summary.already_done} already done",
        f"this invocation: {now.finished} finished, {now.failed} failed in {summary.elapsed_s:.1f} s; "
        f"{now.accounting.llm_calls} model calls, {now.accounting.cached_calls} from the cache, "
        f"{transport['retries']} retries; estimated cost {_dollars(summary.cost_usd)}",
        f"run totals ({total.items} items in results.jsonl): {total.finished} finished, {total.failed} failed",
    ]
    if total.finished:
        line = f"scores: {total.parsed} parsed, {total.unparsed} without a score"
        if get_dataset(config.dataset).task_type == "pairwise":
            line = f"verdicts: {total.parsed} parsed, {total.unparsed} without a verdict"  # a pairwise run
        if config.method.has_critic:
            mean_rounds = total.rounds_total / total.finished
            line += f"; Critic said NO ISSUE in {total.agreed}/{total.finished}; mean rounds {mean_rounds:.2f}"
        lines.append(line)
        if RunDir(summary.out_dir).results_path.is_file():  # the method's own lines (e.g. Fennec's corrections)
            lines.append(distribution_line(total))
            lines += config.method.summary_lines(RunRecords(summary.out_dir, config.config_hash()))
    acc = total.accounting
    tokens = (
        sum(u.prompt_tokens for u in acc.roles.values()),
        sum(u.completion_tokens for u in acc.roles.values()),
    )
    lines.append(
        f"model calls: {acc.llm_calls} to the model, {acc.cached_calls} from the cache; tokens: {tokens[0]:,} "
        f"prompt + {tokens[1]:,} completion"
    )
    for role, usage in sorted(acc.roles.items()):
        lines.append(
            f"  {role:<10} {usage.calls:>5} calls  {usage.prompt_tokens:>10,} prompt  "
            f"{usage.completion_tokens:>9,} completion tokens"
        )
    lines += cache_and_batch_lines(acc, transport)
    if summary.total_cost_usd is not None:
        cost = _dollars(summary.total_cost_usd)
        lines.append(f"estimated cost: {cost} for the run (prices in prices.csv; cached calls are free)")
    else:
        lines.append("estimated cost: unknown (a model has no price in prices.csv; tokens above)")
    if summary.systems:  # per system: mean and paired comparisons, or win rates (summary.json has them all)
        from debate_eval.tasks.analysis.systems import summary_lines

        lines += summary_lines(summary.systems)
    if total.errors:
        lines.append(failed_items_note(total.errors))
    out = summary.out_dir
    results = RunDir(out).results_path
    # meta-eval compares the judge with human ratings: a run without any has nothing for it
    meta_eval = f" | debate-eval meta-eval {results}" if total.rated else ""
    lines.append(f"results: {results}   next: debate-eval show {out}{meta_eval}")
    return "\n".join(lines)


def distribution_line(total: Tally) -> str:
    """How the run's scores fell, one line: ``score distribution: 1: 0, 2: 3, 3: 5 (rounded half up)``, or
    the verdicts' counts of a pairwise run (a failed item has none)."""
    if total.pairwise:
        verdicts = {**total.verdicts, "none": total.verdicts.get("none", 0) + total.failed}
        shown = ", ".join(f"{name} {verdicts.get(name, 0)}" for name in ("first", "second", "tie", "none"))
        return f"verdict distribution: {shown}"
    bins = total.scores
    if not bins:
        return "score distribution: no scores"
    shown = ", ".join(f"{b}: {bins.get(b, 0)}" for b in range(min(bins), max(bins) + 1))
    return f"score distribution: {shown} (scores rounded half up)"


class RunRecords:
    """The records of one configuration in a run directory, read from the file each time they are iterated
    (never held together)."""

    def __init__(self, out_dir: Path, config_hash: str) -> None:
        self.out_dir, self.config_hash = out_dir, config_hash

    def __iter__(self) -> Iterator[Record]:
        from debate_eval.tasks.engine.rundir import RunDir

        for record in RunDir(self.out_dir).iter_records():
            if record.config_hash == self.config_hash:
                yield record


def _dollars(cost: float | None) -> str:
    return "unknown" if cost is None else f"${cost:.4f}"


def main_for_dataset(dataset: str, argv: list[str] | None = None) -> int:
    """Entry point of ``scripts/run_<dataset>.py``: ``run --dataset DATASET`` plus the script's arguments."""
    from debate_eval.tasks.cli.main import main

    return main(["run", "--dataset", dataset, *(sys.argv[1:] if argv is None else argv)], as_program=argv is None)
