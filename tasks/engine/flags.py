"""How a run option is given on the command line: each ``RunRequest`` field's ``Flag`` (the ``--help`` section
it is listed in, its help text, metavar, choices and conversion), and the help texts, choices and conversions
that read a registry (datasets, roles, providers, methods), loaded when the parser is built."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# The sections of ``run --help`` the flags are listed in, in order (a method's options follow METHOD_FLAGS).
SELECTION_FLAGS = "what to evaluate"
METHOD_FLAGS = "method"
MODEL_FLAGS = "models (API keys are read from the environment or .env only)"
REQUEST_FLAGS = "model requests (sampling, answer length and format, time limits)"
EXECUTION_FLAGS = "execution"
SCALE_OUT_FLAGS = "scale-out (several processes or machines; see docs/scale.md)"
BATCH_FLAGS = "batch mode (OpenAI Batch API routes: /v1/files, /v1/batches)"


@dataclass(frozen=True)
class Flag:
    """How a request field is given on the command line: the ``--help`` section it is listed in, its help
    text, and what argparse needs besides the field's kind (a callable help or choices is read when the parser
    is built, so registries load then). A field's flag is ``--`` and its name with ``-`` for ``_``."""

    section: str
    help: str | Callable[[], str]
    metavar: str | None = None
    choices: Callable[[], Iterable[str]] | None = None
    convert: Callable[[str], Any] | None = None  # argparse type (default: from the field's kind)
    append: bool = False  # repeatable: each value appended (ROLE=VALUE)
    const: str | None = None  # the value of the flag given with no value (an optional value)
    hidden_aliases: tuple[str, ...] = ()  # earlier names, accepted and not listed


# The batch flags' types; their names are in argparse's message for a text that is no number at all
# ("invalid _positive_float value: 'x'"), so they keep them.
def _positive_float(text: str) -> float:
    """argparse type of the batch flags' seconds: a number > 0."""
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    """argparse type of ``--batch-max-requests``: an integer >= 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {text}")
    return value


def _model_roles() -> tuple[str, ...]:
    from debate_eval.agents.models.settings import ROLES

    return ROLES


def role_value(text: str) -> tuple[str, str]:
    """argparse type: ``ROLE=VALUE``."""
    role, sep, value = text.partition("=")
    roles = _model_roles()
    if not sep or role not in roles or not value:
        raise argparse.ArgumentTypeError(f"expected ROLE=VALUE with ROLE one of {', '.join(roles)}; got {text!r}")
    return role, value


def dataset_help() -> str:
    from debate_eval.tasks.data.datasets import DATASETS

    return (
        f"required (here or in --config): one of {', '.join(DATASETS)} (see 'debate-eval datasets'), or "
        "your own .jsonl/.csv/.json file"
    )


def method_help() -> str:
    from debate_eval.debates.base import DEFAULT_METHOD, all_methods

    return (
        f"the evaluation method (default: {DEFAULT_METHOD}): "
        + " | ".join(f"{name} = {method.description}" for name, method in all_methods().items())
        + " (details: 'debate-eval methods')"
    )


def role_flag(what: str, example: str, metavar: str) -> Flag:
    """The flag of a per-role mapping (``--role-model ROLE=MODEL``, repeatable): ``what`` of one role."""
    return Flag(
        MODEL_FLAGS,
        lambda: f"{what} of one role, ROLE one of {', '.join(_model_roles())}{example}",
        metavar=metavar,
        convert=role_value,
        append=True,
    )


def providers() -> Iterable[str]:
    from debate_eval.agents.models.providers import all_providers

    return all_providers()


def answer_formats() -> Iterable[str]:
    from debate_eval.debates.answer_plan import REQUESTS

    return REQUESTS


def answer_format_help() -> str:
    from debate_eval.debates.answer_plan import ANSWER_FORMAT_HELP

    return ANSWER_FORMAT_HELP


def structured_help() -> str:
    from debate_eval.debates.answer_plan import STRUCTURED_HELP

    return STRUCTURED_HELP


def progress_modes() -> Iterable[str]:
    from debate_eval.tasks.engine.progress import MODES

    return MODES


def max_answer_bytes_help() -> str:
    from debate_eval.agents.models.http_defaults import DEFAULT_MAX_ANSWER_BYTES

    return (
        f"read at most this many bytes per model answer; a longer one fails its item (default "
        f"{DEFAULT_MAX_ANSWER_BYTES:,})"
    )


SHARD_HELP = (
    "K/N: run only shard K of N (counted from 0: 0/4 .. 3/4, as a Slurm array --array=0-3 or Kubernetes' "
    "JOB_COMPLETION_INDEX); an item's shard is a SHA-256 hash of its id, so the N shards of one command "
    "split its items with none lost or repeated; give each shard its own --out and join them with "
    "debate-eval merge"
)


batch_seconds = _positive_float  # argparse type of --batch-wait, --batch-poll: seconds > 0
batch_count = _positive_int  # argparse type of --batch-max-requests: an integer >= 1
