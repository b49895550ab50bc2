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

**Declared once.** Each field also says how it is given on the command line (its ``Flag``: the ``--help``
section it is listed in, its help text, metavar, choices, how a text is converted), so the ``run`` flags (and
the same flags of ``ablate``, ``robustness``, ``audit``, ``repeat``) are generated from this class
(``tasks/cli/run.py``), as a method's flags are from its ``Options``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.engine.flags import (
    BATCH_FLAGS,
    EXECUTION_FLAGS,
    METHOD_FLAGS,
    MODEL_FLAGS,
    REQUEST_FLAGS,
    SCALE_OUT_FLAGS,
    SELECTION_FLAGS,
    SHARD_HELP,
    Flag,
    answer_format_help,
    answer_formats,
    batch_count,
    batch_seconds,
    dataset_help,
    max_answer_bytes_help,
    method_help,
    progress_modes,
    providers,
    role_flag,
    structured_help,
)
from debate_eval.tasks.engine.option_values import (
    FLOAT,
    INT,
    MAPPING,
    NON_NEGATIVE_INT,
    OPTIONS,
    PATH,
    POSITIVE_FLOAT,
    POSITIVE_INT,
    SCALE,
    SWITCH,
    TEXT,
    checked,
)

DATA, METHOD, MODELS, EXECUTION = "data", "method", "models", "execution"
FLAGS = "flags"  # the ``source`` of a request built from command-line flags: errors name the flag


GROUPS = {  # the group of the fields listed in each section of ``run --help``
    SELECTION_FLAGS: DATA,
    METHOD_FLAGS: METHOD,
    MODEL_FLAGS: MODELS,
    REQUEST_FLAGS: MODELS,
    EXECUTION_FLAGS: EXECUTION,
    BATCH_FLAGS: EXECUTION,
    SCALE_OUT_FLAGS: EXECUTION,
}


def _option(kind: str, section: str, help: str | Callable[[], str], **flag: Any) -> Any:
    """A request field listed in ``section`` of ``run --help`` (``flag``: the rest of its ``Flag``), its value
    checked as ``kind`` (``check_value``); its default is False for a switch, None otherwise."""
    metadata = {"group": GROUPS[section], "kind": kind, "flag": Flag(section, help, **flag)}
    return field(default=False if kind == SWITCH else None, metadata=metadata)


def _mapping(flag: Flag) -> dict[str, Any]:
    """The metadata of a request field of names and values, given by ``flag``."""
    return {"group": GROUPS[flag.section], "kind": MAPPING, "flag": flag}


@dataclass(frozen=True)
class RunRequest:
    """Everything a user can ask of one run (``debate-eval run``, ``--config FILE``, ``evaluate``).

    Field names are the flags' names with ``_`` for ``-``; see the module docstring.
    """

    # ---- what to evaluate
    dataset: str | None = _option(TEXT, SELECTION_FLAGS, dataset_help)  # a name or your own file
    aspect: str | None = _option(
        TEXT,
        SELECTION_FLAGS,
        "required (here or in --config): e.g. coherence (see 'debate-eval datasets'); free text for your own "
        "file; several in one run: a,b,c or all (each item is evaluated once per aspect, results per aspect in "
        "one run directory)",
    )
    data_dir: str | None = _option(
        PATH,
        SELECTION_FLAGS,
        "folder with the datasets (default: $DEBATE_EVAL_DATA_DIR, then ~/.cache/debate-eval/data, then the "
        "copies of SummEval and Topical-Chat inside the package)",
    )
    # your own file's columns {"source": "article", ...}; a pairwise file's label values {"first": "A", ...}
    fields: dict[str, str] = field(
        default_factory=dict,
        metadata=_mapping(
            Flag(
                SELECTION_FLAGS,
                "your own file's columns: source=,output=,human= (required), group= (optional; without it "
                "correlation is item-level), reference=, context=, id=; pairwise: question=,output_a=,output_b=,label= "
                "(and input=)",
                metavar="NAME=COLUMN,...",
            )
        ),
    )
    labels: dict[str, str] = field(
        default_factory=dict,
        metadata=_mapping(
            Flag(
                SELECTION_FLAGS,
                "pairwise own file: which values of the label column mean first / second / tie "
                "(default: the words first, second, tie)",
                metavar="first=A,second=B,tie=T",
            )
        ),
    )
    language: str | None = _option(  # xDial-Eval's language
        TEXT,
        SELECTION_FLAGS,
        "xdial_fed_turn / xdial_fed_dialogue: the language of the text (default english; see 'debate-eval datasets')",
        metavar="NAME",
    )
    limit: int | None = _option(POSITIVE_INT, SELECTION_FLAGS, "only the first N items")
    docs: int | None = _option(POSITIVE_INT, SELECTION_FLAGS, "only the first K documents / contexts (all their items)")
    template: str | None = _option(
        PATH,
        SELECTION_FLAGS,
        "a G-Eval-style prompt file with the dataset's placeholders, e.g. {{Document}}/{{Summary}}, "
        "{{context}}/{{response}}, or for your own file {{source}}/{{output}}/{{reference}}/{{context}} "
        "(default: the built-in template)",
    )
    scale: str | None = _option(  # "1-5"
        SCALE,
        SELECTION_FLAGS,
        "score range of a custom template or your own file, e.g. 1-5 (default: from the template)",
    )
    criteria: str | None = _option(  # one sentence: a template is built from it (data.criteria)
        TEXT,
        SELECTION_FLAGS,
        "instead of --template: one sentence saying what is rated, e.g. 'Is the summary faithful to the "
        "article?'; a G-Eval-style template is built from it, the inputs and --scale (shown in config.json)",
        metavar="TEXT",
    )
    # ---- how to evaluate
    method: str | None = _option(  # None: debates.base.DEFAULT_METHOD
        TEXT, METHOD_FLAGS, method_help, metavar="NAME", hidden_aliases=("--protocol",)
    )
    swap: bool = _option(
        SWITCH,
        METHOD_FLAGS,
        "pairwise datasets: judge every item in both orders (responses exchanged); the verdict is the "
        "agreeing one, a tie when they disagree",
    )
    method_options: dict[str, Any] = field(default_factory=dict, metadata={"group": METHOD, "kind": OPTIONS})
    # ---- models (API keys only from the environment / .env)
    model: str | None = _option(TEXT, MODEL_FLAGS, "model name for every role (default: $DEBATE_EVAL_MODEL)")
    base_url: str | None = _option(
        TEXT, MODEL_FLAGS, "OpenAI-compatible endpoint for every role (default: $OPENAI_BASE_URL)"
    )
    provider: str | None = _option(
        TEXT,
        MODEL_FLAGS,
        "model provider of every role (default: openai with an API key or --base-url, else embedded; "
        "scripted: canned replies, no model, to check a pipeline offline; $DEBATE_EVAL_PROVIDER)",
        choices=providers,
    )
    role_provider: dict[str, str] = field(
        default_factory=dict,
        metadata=_mapping(  # {"critic": "anthropic"}
            role_flag("provider", ", e.g. critic=anthropic (repeatable; $DEBATE_EVAL_<ROLE>_PROVIDER)", "ROLE=NAME")
        ),
    )
    role_model: dict[str, str] = field(
        default_factory=dict,
        metadata=_mapping(  # {"critic": "gpt-4o"}
            role_flag(
                "model",
                ", e.g. critic=gpt-4o (repeatable); G-Eval's evaluator and ChatEval's referees use the scorer's",
                "ROLE=MODEL",
            )
        ),
    )
    role_base_url: dict[str, str] = field(
        default_factory=dict, metadata=_mapping(role_flag("endpoint", " (repeatable)", "ROLE=URL"))
    )
    temperature: float | None = _option(FLOAT, REQUEST_FLAGS, "default 0 (the paper)")
    top_p: float | None = _option(FLOAT, REQUEST_FLAGS, "default 1 (the paper)")
    seed: int | None = _option(
        INT,
        REQUEST_FLAGS,
        "default 453, a project choice (no paper names a seed; the authors' 453 was pyautogen's cache seed, "
        "never sent); --fidelity authors-code sends none unless --seed is given",
    )
    no_seed: bool = _option(SWITCH, REQUEST_FLAGS, "send no seed")
    max_tokens: int | None = _option(POSITIVE_INT, REQUEST_FLAGS, "default: none for APIs, 256 for the embedded model")
    timeout: float | None = _option(
        POSITIVE_FLOAT,
        REQUEST_FLAGS,
        "seconds per request attempt, all of it: connecting, sending, waiting, reading the answer (default 120; "
        "900 for the embedded model)",
    )
    max_retries: int | None = _option(
        NON_NEGATIVE_INT,
        REQUEST_FLAGS,
        "retries of transient errors: 5xx, 429, timeouts, resets, a 200 that is no completion (default 6; "
        "the first waits about $DEBATE_EVAL_RETRY_BACKOFF s, default 1, then doubling; the endpoint check too)",
    )
    gguf: str | None = _option(PATH, MODEL_FLAGS, "serve this GGUF with the embedded server instead of SmolLM2-135M")
    gguf_sha256: str | None = _option(TEXT, MODEL_FLAGS, "the SHA-256 the --gguf file must have")
    embedded_parallel: int | None = _option(POSITIVE_INT, MODEL_FLAGS, "embedded server slots (default 2)")
    answer_format: str | None = _option(  # auto | free | grammar | json (debates/answer_plan.py)
        TEXT, REQUEST_FLAGS, answer_format_help, choices=answer_formats
    )
    structured_output: bool = _option(SWITCH, REQUEST_FLAGS, structured_help)  # = json
    env_file: str | None = _option(PATH, MODEL_FLAGS, "read settings from this .env file (default: ./.env if present)")
    # ---- execution (does not change results)
    out: str | None = _option(
        PATH, EXECUTION_FLAGS, "run directory (default: runs/DATASET_ASPECT_PROTOCOL); a rerun resumes"
    )
    concurrency: int | None = _option(
        POSITIVE_INT,
        EXECUTION_FLAGS,
        "debates in flight, and the most model calls in flight per endpoint and model (default 8 for APIs, "
        "the embedded server's slots otherwise); fewer when the endpoint's rate limits call for it",
    )
    rpm: int | None = _option(  # request budget per minute (agents/models/rate_limit.py)
        POSITIVE_INT,
        EXECUTION_FLAGS,
        "request budget per minute for each endpoint and model (default: learnt from rate-limit headers)",
    )
    tpm: int | None = _option(  # token budget per minute
        POSITIVE_INT,
        EXECUTION_FLAGS,
        "token budget per minute for each endpoint and model (default: learnt from rate-limit headers)",
    )
    no_cache: bool = _option(SWITCH, EXECUTION_FLAGS, "do not use the on-disk response cache")
    reset_cache: bool = _option(
        SWITCH,
        EXECUTION_FLAGS,
        "move the response cache folder aside (never deleted; e.g. a damaged one) and start an empty one",
    )
    cache_dir: str | None = _option(
        PATH,
        EXECUTION_FLAGS,
        "response cache folder (default: $DEBATE_EVAL_CACHE_DIR or ~/.cache/debate-eval/llm-cache)",
    )
    progress: str | None = _option(  # auto | bar | lines | none (engine/progress.py)
        TEXT,
        EXECUTION_FLAGS,
        "what the run shows while it works (on stderr): bar (tqdm), lines (one plain line per finished item, "
        "at most every 10 s, and one per retry: for logs, tee, nohup, CI), none; default auto: a bar on a "
        "terminal, lines otherwise",
        choices=progress_modes,
    )
    quiet: bool = _option(  # = progress "none"
        SWITCH, EXECUTION_FLAGS, "show nothing while the run works, not even retries"
    )
    no_progress: bool = _option(  # = progress "none" (the older spelling)
        SWITCH, EXECUTION_FLAGS, "= --progress none"
    )
    no_preflight: bool = _option(SWITCH, EXECUTION_FLAGS, "skip the one-request endpoint check")
    max_answer_bytes: int | None = _option(  # None: http_client.DEFAULT_MAX_ANSWER_BYTES
        POSITIVE_INT, EXECUTION_FLAGS, max_answer_bytes_help
    )
    fast_path: bool = _option(  # the opt-in private fast path (agents/models/fast_path.py)
        SWITCH,
        EXECUTION_FLAGS,
        "opt in to a faster event loop that patches private internals of AutoGen and the openai SDK "
        "(only with the versions it was tested with; see benchmarks/throughput.md)",
    )
    batch: bool = _option(
        SWITCH,
        BATCH_FLAGS,
        "queue every model call and send the queue as one batch when every item waits on a call "
        "(about 2n+1 batches for DEBATE with n rounds; batch prices; a rerun polls batches already submitted)",
    )
    batch_max_requests: int | None = _option(
        POSITIVE_INT, BATCH_FLAGS, "most requests per batch (default 50000)", convert=batch_count
    )
    batch_wait: float | None = _option(
        POSITIVE_FLOAT,
        BATCH_FLAGS,
        "send the queue this many seconds after it starts",
        convert=batch_seconds,
    )
    batch_poll: float | None = _option(
        POSITIVE_FLOAT, BATCH_FLAGS, "seconds between status polls (default 30)", convert=batch_seconds
    )
    allow_endpoint_change: bool = _option(  # resume at another server (engine.endpoints)
        SWITCH,
        EXECUTION_FLAGS,
        "resume a run directory at another server than its results were made at (same provider and model "
        "name; noted in config.json); the same server under another name or port resumes without it",
    )
    shard: str | None = _option(  # "K/N": only shard K of N of the items (engine.backends.shards)
        TEXT, SCALE_OUT_FLAGS, SHARD_HELP, metavar="K/N"
    )
    workers: int | None = _option(  # processes on this machine (engine.backends.workers)
        POSITIVE_INT,
        SCALE_OUT_FLAGS,
        "processes on this machine, each an async runner over its share of the items (shard k/N), writing "
        "into one run directory; --rpm/--tpm are divided among them (default 1); with --ray: the number of "
        "shards (default: one per CPU of the cluster)",
    )
    ray: str | None = _option(  # the shards as Ray tasks: "local", "auto" or an address
        TEXT,
        SCALE_OUT_FLAGS,
        "run the shards as Ray tasks, their results streamed back and appended here: no ADDRESS (or local) "
        "starts Ray on this machine, auto or ray://HOST:10001 joins a cluster (needs the ray extra)",
        metavar="ADDRESS",
        const="local",
    )
    trace_content: bool = _option(  # judged texts and answers on spans (agents.telemetry)
        SWITCH,
        EXECUTION_FLAGS,
        "with OpenTelemetry tracing on (OTEL_* variables, the [otel] extra), also put the judged texts and "
        "the models' answers on the spans (secrets masked); off by default",
    )

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


def flags_of(section: str) -> list[tuple[str, Flag]]:
    """The request fields listed in ``section`` of ``run --help``, with their flags, in field order."""
    found = []
    for spec in fields(RunRequest):
        flag = spec.metadata.get("flag")
        if flag is not None and flag.section == section:
            found.append((spec.name, flag))
    return found


def field_names() -> tuple[str, ...]:
    """The request's option names, in order."""
    return tuple(spec.name for spec in fields(RunRequest))


def field_kind(name: str) -> str:
    """How the value of option ``name`` is checked."""
    return next(spec.metadata["kind"] for spec in fields(RunRequest) if spec.name == name)


def check_value(name: str, value: Any, source: str = "options") -> Any:
    """``value`` for option ``name`` checked and normalised (``option_values.checked``); a one-line
    ``UserError`` naming ``source`` and the option otherwise."""
    return checked(field_kind(name), value, option_label(name, source))


def option_label(name: str, source: str) -> str:
    """How a message names option ``name``: ``--max-tokens`` for flags, ``run.toml: max_tokens`` otherwise."""
    return f"--{name.replace('_', '-')}" if source == FLAGS else f"{source}: {name}"
