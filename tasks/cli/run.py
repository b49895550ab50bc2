"""``debate-eval run``: evaluate one dataset/aspect with one method, writing results and transcripts.

The flags only collect what was given into a ``RunRequest`` (``request_from_args``; a ``--config`` file
under them); ``engine.build`` interprets it, the same way for ``evaluate()`` in Python. Every flag's dest is
the name of a ``RunRequest`` field or of a method option (generated from the method's ``Options``), and
defaults to None here: None means "not given".
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debate_eval.agents.models.http_defaults import DEFAULT_MAX_ANSWER_BYTES
from debate_eval.agents.models.providers import all_providers
from debate_eval.agents.models.settings import ROLES
from debate_eval.debates.answer_plan import ANSWER_FORMAT_HELP, STRUCTURED_HELP
from debate_eval.debates.answer_plan import REQUESTS as ANSWER_REQUESTS
from debate_eval.debates.base import (
    DEFAULT_METHOD,
    Method,
    MethodOption,
    OptionError,
    all_methods,
    method_option_names,
    non_negative_int,
    positive_int,
)
from debate_eval.tasks.cli.batch_args import add_batch_arguments
from debate_eval.tasks.cli.dataset_args import add_dataset_arguments
from debate_eval.tasks.data.datasets import DATASETS, get_dataset
from debate_eval.tasks.engine.config_file import read_request_file, request_toml
from debate_eval.tasks.engine.progress import MODES as PROGRESS_MODES
from debate_eval.tasks.engine.request import FLAGS, RunRequest, field_names

if TYPE_CHECKING:  # the engine loads when a run starts (``run --help`` stays fast)
    from debate_eval.tasks.engine.record import Record
    from debate_eval.tasks.engine.run_config import RunConfig, RunOptions
    from debate_eval.tasks.engine.runner import RunSummary, Tally


SHARD_HELP = (
    "K/N: run only shard K of N (counted from 0: 0/4 .. 3/4, as a Slurm array --array=0-3 or Kubernetes' "
    "JOB_COMPLETION_INDEX); an item's shard is a SHA-256 hash of its id, so the N shards of one command "
    "split its items with none lost or repeated; give each shard its own --out and join them with "
    "debate-eval merge"
)


def role_value(text: str) -> tuple[str, str]:
    """argparse type: ``ROLE=VALUE``."""
    role, sep, value = text.partition("=")
    if not sep or role not in ROLES or not value:
        raise argparse.ArgumentTypeError(f"expected ROLE=VALUE with ROLE one of {', '.join(ROLES)}; got {text!r}")
    return role, value


def add_selection_arguments(parser: argparse.ArgumentParser) -> None:
    """Which data: dataset, aspect, items."""
    group = parser.add_argument_group("what to evaluate")
    group.add_argument(
        "--dataset",
        help=f"required (here or in --config): one of {', '.join(DATASETS)} (see 'debate-eval datasets'), or "
        "your own .jsonl/.csv/.json file",
    )
    group.add_argument(
        "--aspect",
        help="required (here or in --config): e.g. coherence (see 'debate-eval datasets'); free text for your own "
        "file; several in one run: a,b,c or all (each item is evaluated once per aspect, results per aspect in "
        "one run directory)",
    )
    group.add_argument(
        "--data-dir",
        help="folder with the datasets (default: $DEBATE_EVAL_DATA_DIR, then ~/.cache/debate-eval/data, then the "
        "copies of SummEval and Topical-Chat inside the package)",
    )
    add_dataset_arguments(group)
    group.add_argument("--limit", type=positive_int, help="only the first N items")
    group.add_argument("--docs", type=positive_int, help="only the first K documents / contexts (all their items)")
    group.add_argument(
        "--template",
        help="a G-Eval-style prompt file with the dataset's placeholders, e.g. {{Document}}/{{Summary}}, "
        "{{context}}/{{response}}, or for your own file {{source}}/{{output}}/{{reference}}/{{context}} "
        "(default: the built-in template)",
    )
    group.add_argument(
        "--scale", help="score range of a custom template or your own file, e.g. 1-5 (default: from the template)"
    )
    group.add_argument(
        "--criteria",
        metavar="TEXT",
        help="instead of --template: one sentence saying what is rated, e.g. 'Is the summary faithful to the "
        "article?'; a G-Eval-style template is built from it, the inputs and --scale (shown in config.json)",
    )


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
    its own defaults), so flags, a TOML file and keywords meet on equal terms."""
    groups: dict[Any, list[Method[Any]]] = {}
    for method in methods if methods is not None else all_methods().values():
        groups.setdefault(method.options_key(), []).append(method)
    names: set[str] = set()
    for members in groups.values():
        new = [option for option in members[0].declared_options().values() if option.name not in names]
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
    group = parser.add_argument_group("method")
    group.add_argument(
        "--method",
        metavar="NAME",
        help=f"the evaluation method (default: {DEFAULT_METHOD}): "
        + " | ".join(f"{name} = {method.description}" for name, method in all_methods().items())
        + " (details: 'debate-eval methods')",
    )
    group.add_argument("--protocol", dest="method", help=argparse.SUPPRESS)  # the earlier name of --method
    group.add_argument(
        "--swap",
        action="store_true",
        default=None,
        help="pairwise datasets: judge every item in both orders (responses exchanged); the verdict is the "
        "agreeing one, a tie when they disagree",
    )
    add_method_options(parser)


def add_model_arguments(parser: argparse.ArgumentParser) -> None:
    """Which models (API keys only from the environment / .env)."""
    group = parser.add_argument_group("models (API keys are read from the environment or .env only)")
    group.add_argument("--model", help="model name for every role (default: $DEBATE_EVAL_MODEL)")
    group.add_argument("--base-url", help="OpenAI-compatible endpoint for every role (default: $OPENAI_BASE_URL)")
    group.add_argument(
        "--provider",
        choices=list(all_providers()),
        help="model provider of every role (default: openai with an API key or --base-url, else embedded; "
        "scripted: canned replies, no model, to check a pipeline offline; $DEBATE_EVAL_PROVIDER)",
    )
    group.add_argument(
        "--role-provider",
        action="append",
        type=role_value,
        metavar="ROLE=NAME",
        help=f"provider of one role, ROLE one of {', '.join(ROLES)}, e.g. critic=anthropic (repeatable; "
        "$DEBATE_EVAL_<ROLE>_PROVIDER)",
    )
    group.add_argument(
        "--role-model",
        action="append",
        type=role_value,
        metavar="ROLE=MODEL",
        help=f"model of one role, ROLE one of {', '.join(ROLES)}, e.g. critic=gpt-4o (repeatable); G-Eval's "
        "evaluator and ChatEval's referees use the scorer's",
    )
    group.add_argument(
        "--role-base-url",
        action="append",
        type=role_value,
        metavar="ROLE=URL",
        help=f"endpoint of one role, ROLE one of {', '.join(ROLES)} (repeatable)",
    )
    group.add_argument("--gguf", help="serve this GGUF with the embedded server instead of SmolLM2-135M")
    group.add_argument("--gguf-sha256", help="the SHA-256 the --gguf file must have")
    group.add_argument("--embedded-parallel", type=positive_int, help="embedded server slots (default 2)")
    group.add_argument("--env-file", help="read settings from this .env file (default: ./.env if present)")
    group = parser.add_argument_group("model requests (sampling, answer length and format, time limits)")
    group.add_argument("--temperature", type=float, help="default 0 (the paper)")
    group.add_argument("--top-p", type=float, help="default 1 (the paper)")
    group.add_argument(
        "--seed",
        type=int,
        help="default 453, a project choice (no paper names a seed; the authors' 453 was pyautogen's cache seed, "
        "never sent); --fidelity authors-code sends none unless --seed is given",
    )
    group.add_argument("--no-seed", action="store_true", default=None, help="send no seed")
    group.add_argument("--max-tokens", type=positive_int, help="default: none for APIs, 256 for the embedded model")
    group.add_argument(
        "--timeout",
        type=float,
        help="seconds per request attempt, all of it: connecting, sending, waiting, reading the answer (default 120; "
        "900 for the embedded model)",
    )
    group.add_argument(
        "--max-retries",
        type=non_negative_int,
        help="retries of transient errors: 5xx, 429, timeouts, resets, a 200 that is no completion (default 6; "
        "the first waits about $DEBATE_EVAL_RETRY_BACKOFF s, default 1, then doubling; the endpoint check too)",
    )
    group.add_argument("--answer-format", choices=list(ANSWER_REQUESTS), default=None, help=ANSWER_FORMAT_HELP)
    group.add_argument("--structured-output", action="store_true", default=None, help=STRUCTURED_HELP)


def add_execution_arguments(parser: argparse.ArgumentParser) -> None:
    """How to execute (does not change results)."""
    group = parser.add_argument_group("execution")
    group.add_argument("--out", help="run directory (default: runs/DATASET_ASPECT_PROTOCOL); a rerun resumes")
    group.add_argument(
        "--concurrency",
        type=positive_int,
        help="debates in flight, and the most model calls in flight per endpoint and model (default 8 for APIs, "
        "the embedded server's slots otherwise); fewer when the endpoint's rate limits call for it",
    )
    group.add_argument(
        "--rpm",
        type=positive_int,
        default=None,
        help="request budget per minute for each endpoint and model (default: learnt from rate-limit headers)",
    )
    group.add_argument(
        "--tpm",
        type=positive_int,
        default=None,
        help="token budget per minute for each endpoint and model (default: learnt from rate-limit headers)",
    )
    group.add_argument("--no-cache", action="store_true", default=None, help="do not use the on-disk response cache")
    group.add_argument(
        "--reset-cache",
        action="store_true",
        default=None,
        help="move the response cache folder aside (never deleted; e.g. a damaged one) and start an empty one",
    )
    group.add_argument(
        "--cache-dir",
        help="response cache folder (default: $DEBATE_EVAL_CACHE_DIR or ~/.cache/debate-eval/llm-cache)",
    )
    group.add_argument(
        "--progress",
        choices=list(PROGRESS_MODES),
        default=None,
        help="what the run shows while it works (on stderr): bar (tqdm), lines (one plain line per finished item, "
        "at most every 10 s, and one per retry: for logs, tee, nohup, CI), none; default auto: a bar on a "
        "terminal, lines otherwise",
    )
    group.add_argument(
        "--quiet", action="store_true", default=None, help="show nothing while the run works, not even retries"
    )
    group.add_argument("--no-progress", action="store_true", default=None, help="= --progress none")
    group.add_argument("--no-preflight", action="store_true", default=None, help="skip the one-request endpoint check")
    group.add_argument(
        "--max-answer-bytes",
        type=positive_int,
        help=f"read at most this many bytes per model answer; a longer one fails its item (default "
        f"{DEFAULT_MAX_ANSWER_BYTES:,})",
    )
    group.add_argument(
        "--fast-path",
        action="store_true",
        default=None,
        help="opt in to a faster event loop that patches private internals of AutoGen and the openai SDK "
        "(only with the versions it was tested with; see benchmarks/throughput.md)",
    )
    group.add_argument(
        "--allow-endpoint-change",
        action="store_true",
        default=None,
        help="resume a run directory at another server than its results were made at (same provider and model "
        "name; noted in config.json); the same server under another name or port resumes without it",
    )
    group.add_argument(
        "--trace-content",
        action="store_true",
        default=None,
        help="with OpenTelemetry tracing on (OTEL_* variables, the [otel] extra), also put the judged texts and "
        "the models' answers on the spans (secrets masked); off by default",
    )

    group = parser.add_argument_group("scale-out (several processes or machines; see docs/scale.md)")
    group.add_argument("--shard", metavar="K/N", help=SHARD_HELP)
    group.add_argument(
        "--workers",
        type=positive_int,
        help="processes on this machine, each an async runner over its share of the items (shard k/N), writing "
        "into one run directory; --rpm/--tpm are divided among them (default 1); with --ray: the number of "
        "shards (default: one per CPU of the cluster)",
    )
    group.add_argument(
        "--ray",
        nargs="?",
        const="local",
        metavar="ADDRESS",
        help="run the shards as Ray tasks, their results streamed back and appended here: no ADDRESS (or local) "
        "starts Ray on this machine, auto or ray://HOST:10001 joins a cluster (needs the ray extra)",
    )

    add_batch_arguments(parser)


def add_subparser(subparsers: Any) -> None:
    """Register ``run``."""
    parser = subparsers.add_parser(
        "run",
        usage="debate-eval run --dataset NAME|FILE --aspect NAME [--method NAME] [options]",
        help="evaluate one dataset/aspect",
        description="Evaluate one dataset/aspect with DEBATE (or a baseline) and write results.jsonl, "
        "config.json and summary.json into the run directory. Models: with no API key ($OPENAI_API_KEY) and no "
        "base URL (--base-url, $OPENAI_BASE_URL), every role uses the embedded local model (SmolLM2-135M served "
        "by llama.cpp, offline: it tests the pipeline, it judges at chance); give a key or a base URL to use an "
        "OpenAI-compatible endpoint.",
    )
    add_selection_arguments(parser)
    add_method_arguments(parser)
    add_model_arguments(parser)
    add_execution_arguments(parser)
    add_config_arguments(parser)
    parser.set_defaults(handler=handle_run)


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


def request_from_args(args: argparse.Namespace) -> RunRequest:
    """The ``RunRequest`` of the flags given (a flag not given is None), over the ``--config`` file's."""
    values: dict[str, Any] = {}
    for name in field_names():
        value = getattr(args, name, None)
        if value is not None and value != [] and name != "method_options":
            values[name] = value
    options = {name: getattr(args, name) for name in method_option_names() if getattr(args, name, None) is not None}
    flags = RunRequest.from_mapping({**values, "method_options": options}, source=FLAGS)
    config = getattr(args, "config", None)
    return read_request_file(config).updated(flags) if config else flags


def build_run_config(args: argparse.Namespace) -> RunConfig:
    """The flags' ``RunConfig`` (``engine.build.build_run_config`` of ``request_from_args``)."""
    from debate_eval.tasks.engine import build

    return build.build_run_config(request_from_args(args))


def build_run_options(args: argparse.Namespace, config: RunConfig) -> RunOptions:
    """The flags' ``RunOptions`` (``engine.build.build_run_options``)."""
    from debate_eval.tasks.engine import build

    return build.build_run_options(request_from_args(args), config)


def handle_run(args: argparse.Namespace) -> int:
    """Run the evaluation and print its summary (``--dump-config``: print the request as TOML instead)."""
    request = request_from_args(args)
    if getattr(args, "dump_config", False):
        print(request_toml(request), end="")
        return 0
    import asyncio

    from debate_eval.tasks.engine import build
    from debate_eval.tasks.engine.runner import run

    config, options = build.build_run(request)
    for warning in build.method_warnings(config):
        print(f"debate-eval: {warning}", file=sys.stderr)
    summary = asyncio.run(run(config, options))
    print(format_summary(summary, config))
    return 1 if summary.now.failed else 0


def format_summary(summary: RunSummary, config: RunConfig) -> str:
    """The short report printed at the end of a run: this invocation, then the run's totals."""
    from debate_eval.tasks.engine.accounting import cache_and_batch_lines
    from debate_eval.tasks.engine.item_errors import failed_items_note
    from debate_eval.tasks.engine.rundir import RESULTS_FILE

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
        if (summary.out_dir / RESULTS_FILE).is_file():  # the method's own lines (e.g. Fennec's corrections)
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
    # meta-eval compares the judge with human ratings: a run without any has nothing for it
    meta_eval = f" | debate-eval meta-eval {out / 'results.jsonl'}" if total.rated else ""
    lines.append(f"results: {out / 'results.jsonl'}   next: debate-eval show {out}{meta_eval}")
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
