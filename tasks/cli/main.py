"""The ``debate-eval`` command: one entry point, one subcommand per job.

Errors caused by input or environment (``UserError``) are printed on one line, with secrets masked, and
give exit status 2; an interrupted run (Ctrl-C, exit status 130; SIGTERM, exit status 143: what ``kill``,
Slurm and Kubernetes send) saves what finished and says how to resume.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.redaction import redact
from debate_eval.tasks.engine.environment import prepare_environment

# Every command: the module that registers it (``add_subparser(subparsers)``, through :func:`command_parser`)
# and its one line of --help. Only the module of the command given is imported (``--help`` alone imports none),
# so the command line starts fast; tests/tasks/cli/test_help.py checks the lines listed against the commands'.
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("debate_eval.tasks.cli.run", "evaluate one dataset/aspect"),
    "datasets": (
        "debate_eval.tasks.cli.datasets",
        "list the datasets: aspects and scales, task type, level, where each is read from",
    ),
    "show": ("debate_eval.tasks.cli.show", "print a run's items, or one item's transcript"),
    "meta-eval": (
        "debate_eval.tasks.cli.meta_eval",
        "correlate a run's scores (or verdicts) with the human ratings, with bootstrap intervals",
    ),
    "parse": (
        "debate_eval.tasks.cli.parse",
        "parse one raw answer: the score (or verdict) and the rule that produced it",
    ),
    "import": (
        "debate_eval.tasks.cli.import_",
        "turn published judge outputs into a run directory (show, rescore and meta-eval accept it)",
    ),
    "methods": (
        "debate_eval.tasks.cli.methods",
        "list the evaluation methods (built-in and installed plugins) with their task types and options",
    ),
    "rescore": (
        "debate_eval.tasks.cli.rescore",
        "re-parse every item's deciding answer from its transcript (no model calls)",
    ),
    "data": (
        "debate_eval.tasks.data.download",
        "download or check the meta-evaluation datasets (SummEval and Topical-Chat also ship inside)",
    ),
    "ablate": (
        "debate_eval.tasks.cli.ablate",
        "run a grid of methods / personas / rounds on the same items; write ablation.csv and .png",
    ),
    "repeat": (
        "debate_eval.tasks.cli.repeat",
        "rerun the same items several times without the cache and count differing final scores",
    ),
    "report": (
        "debate_eval.tasks.cli.report",
        "write one self-contained HTML page (overview, plots, items, transcripts) for one or several runs",
    ),
    "ensemble": (
        "debate_eval.tasks.cli.ensemble",
        "combine runs of the same items (submetrics) into a per-aspect weighted ensemble (DialEvalML)",
    ),
    "robustness": (
        "debate_eval.tasks.cli.robustness",
        "the same items in several languages, or with paraphrased responses: correlation and score drift",
    ),
    "audit": (
        "debate_eval.tasks.cli.audit",
        "the judge card: agreement, stability, position and verbosity bias, scale use, robustness, injection",
    ),
    "plan-labels": (
        "debate_eval.tasks.cli.plan_labels",
        "from a pilot's labelled items, the human labels a target interval width needs, with and without the judge",
    ),
    "personas": ("debate_eval.tasks.cli.personas", "list the built-in personas with their text"),
    "merge": (
        "debate_eval.tasks.cli.merge",
        "join the shard directories of one run (run --shard K/N) into one run directory",
    ),
    "label": (
        "debate_eval.tasks.cli.label",
        "write a self-contained page to label chosen items of a run (downloads labels.jsonl for --labels)",
    ),
    "calibrate": (
        "debate_eval.tasks.cli.calibrate",
        "map a judge's scores onto the human scale from labelled items: error before/after, transfer by system",
    ),
    "cascade": (
        "debate_eval.tasks.cli.cascade",
        "escalate with a guarantee: judge 1 when sure, else judge 2, else a person (thresholds from labels)",
    ),
    "select": (
        "debate_eval.tasks.cli.select",
        "choose a judge from labels: the best candidate run on a dev split, confirmed on a held-out split",
    ),
    "jury": (
        "debate_eval.tasks.cli.jury",
        "combine several judges' runs of the same items (one per model/provider) into a jury's run",
    ),
    "export": (
        "debate_eval.tasks.cli.export",
        "write a run in another tool's format (an inspect_ai eval log, for inspect view)",
    ),
}
HIDDEN = {"aspects": "datasets"}  # earlier command names, still accepted, not listed
ALL = "*"


def command_parser(
    subparsers: Any, name: str, handler: Callable[[argparse.Namespace], int], description: str | None, **options: Any
) -> argparse.ArgumentParser:
    """Register command ``name``: its line of --help from :data:`COMMANDS`, ``description`` at the top of its own
    --help (the module's ``DESCRIPTION``, a string of its own: ``python -OO`` drops docstrings), ``handler`` run on
    its parsed arguments (``options``: more of ``add_parser``'s, such as ``usage``)."""
    parser = subparsers.add_parser(name, help=COMMANDS[name][1], description=description, **options)
    parser.set_defaults(handler=handler)
    return parser


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for (``importlib.metadata`` is slow)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from debate_eval import __version__

        print(f"debate-eval {__version__}")
        parser.exit()


def build_parser(command: str | None = ALL) -> argparse.ArgumentParser:
    """The argument parser: every command in full (``command`` ``ALL``), or only ``command`` in full and the
    others as one-line entries (what ``--help`` lists), importing only that command's module."""
    parser = argparse.ArgumentParser(
        prog="debate-eval",
        description="DEBATE: multi-agent NLG evaluation (Scorer vs Devil's-Advocate Critic) on AutoGen.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module_name, help_line) in COMMANDS.items():
        if command not in (ALL, name):
            subparsers.add_parser(name, help=help_line, add_help=False)
            continue
        module: Any = importlib.import_module(module_name)
        module.add_subparser(subparsers)
    return parser


def command_of(argv: list[str]) -> str | None:
    """The command ``argv`` names (its first word that is a command), or None."""
    for word in argv:
        if word in COMMANDS:
            return word
        if word in HIDDEN:
            return HIDDEN[word]
        if not word.startswith("-"):
            return None
    return None


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is when Ctrl-C's own path cannot take it (SIGINT ignored)."""


@contextlib.contextmanager
def terminating_as_interrupt() -> Iterator[list[bool]]:
    """While open, SIGTERM stops the command as Ctrl-C does (the run saves what finished, the workers are
    stopped); the list it gives holds True once SIGTERM came. The previous handler is put back on the way
    out (the command may run inside another program, such as a test session)."""
    received: list[bool] = []
    if not hasattr(signal, "SIGTERM") or threading.current_thread() is not threading.main_thread():
        yield received
        return

    def on_term(signum: int, frame: Any) -> None:
        received.append(True)
        interrupt = signal.getsignal(signal.SIGINT)
        if callable(interrupt):  # Python's KeyboardInterrupt, or asyncio's (which cancels the running task)
            interrupt(signal.SIGINT, frame)
        else:
            raise Terminated

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield received
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None, *, as_program: bool | None = None) -> int:
    """Run the command line; returns the exit status. ``as_program`` (default: whether ``argv`` is None, the
    program's own arguments): an interrupt (Ctrl-C, SIGTERM) ends in exit status 130 or 143 after its line;
    called with arguments from another program (a script, a test session), the interrupt goes on to it after
    the line, so that program stops too."""
    words = sys.argv[1:] if argv is None else list(argv)
    args = build_parser(command_of(words)).parse_args(words)
    args.words = words  # the command as given (an audit records it), not the calling process's sys.argv
    interrupted: list[bool] = []
    with terminating_as_interrupt() as terminated:
        code = _main(args, terminated, interrupted)
    if interrupted and not (argv is None if as_program is None else as_program):
        raise KeyboardInterrupt
    return code


def _main(args: argparse.Namespace, terminated: list[bool], interrupted: list[bool]) -> int:
    try:
        prepare_environment(getattr(args, "env_file", None))  # before anything reads a setting (DEBATE_EVAL_DEBUG)
        if any(name.startswith("OTEL_") for name in os.environ):  # OpenTelemetry asked for by its environment
            from debate_eval.agents.telemetry import configure_from_environment

            configure_from_environment()
        if os.environ.get("TRACEPARENT"):  # started by a traced process: its trace goes on (W3C trace context)
            from debate_eval.agents.telemetry import continued_trace, environment_carrier

            with continued_trace(environment_carrier()):
                return int(args.handler(args))
        return int(args.handler(args))
    except UserError as error:
        print(f"debate-eval: error: {redact(str(error))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the output was piped into a command that stopped reading (| head)
        sys.stderr.close()
        return 141
    except OSError as error:  # a file or folder the command could not read or write (disk full, read-only)
        where = f"{error.filename}: " if error.filename else ""
        print(f"debate-eval: error: {redact(where + (error.strerror or str(error)))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        interrupted.append(True)
        out = getattr(args, "out", None) or "the run directory"
        start = "\n" if sys.stderr.isatty() else ""  # after the terminal's ^C (and a progress bar)
        how = "terminated" if terminated else "interrupted"
        print(
            f"{start}debate-eval: {how}; finished items are saved in {out}; rerun the same command to resume",
            file=sys.stderr,
        )
        return 143 if terminated else 130


if __name__ == "__main__":
    sys.exit(main())
