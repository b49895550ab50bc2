"""``debate-eval robustness``: does a method judge the same dialogue the same way in another language, or a
paraphrased response the same way? (DialEvalML's multilingual and robust tasks.)

- ``--languages english,chinese,...`` (xdial_fed_turn / xdial_fed_dialogue): one run per language on the same
  items, in ``OUT/LANGUAGE``; English is always run, as the reference.
- ``--paraphrases N --paraphrase-model M``: the items as given (``OUT/original``); N rewrites of each judged
  response by M (stored in ``OUT/paraphrases.jsonl``, reused on a rerun); the rewrites judged
  (``OUT/paraphrased``).

Every run takes the run options (method and its options, model, endpoint, data folder, ``--limit``, cache,
concurrency) and resumes like ``run``. Output in OUT: the table on screen, ``robustness.csv``,
``robustness.json`` and ``robustness.png`` (see ``tasks/analysis/robustness.py`` for the rows).
"""

from __future__ import annotations

import argparse
import asyncio
from dataclasses import replace
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError, require
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.tasks.analysis.end_of_run import compare_systems
from debate_eval.tasks.analysis.records import ScoreRow, load_results
from debate_eval.tasks.analysis.robustness import (
    REFERENCE_LANGUAGE,
    format_rows,
    language_rows,
    paraphrase_rows,
    plot,
    write_csv,
)
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.cli.run import (
    add_run_arguments,
    positive_int,
    request_from_args,
)
from debate_eval.tasks.data.datasets import get_dataset, load_items, select_items
from debate_eval.tasks.data.registry import looks_like_own_file
from debate_eval.tasks.engine.build import build_run, build_run_options, dataset_slug, model_overrides
from debate_eval.tasks.engine.config_file import request_toml
from debate_eval.tasks.engine.paraphrases import make_paraphrases, paraphrased_items, register_paraphrased
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.results import write_json_atomic
from debate_eval.tasks.engine.rundir import RunDir
from debate_eval.tasks.engine.runner import run

DESCRIPTION = """Run a method per language (--languages, xDial-Eval) or on N paraphrases of each judged response
(--paraphrases) and report per variant the correlation with the humans and how far the scores move; writes
OUT/robustness.csv, robustness.json and robustness.png. Reruns resume."""


def add_subparser(subparsers: Any) -> None:
    """Register ``robustness`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "robustness", handle_robustness, DESCRIPTION)
    add_run_arguments(parser)
    for action in parser._actions:  # --aspect: the dataset's only aspect when not given (xDial-Eval: overall)
        if "--aspect" in action.option_strings:
            action.required = False
    group = parser.add_argument_group("robustness")
    group.add_argument("--languages", help="comma-separated xDial-Eval languages, e.g. english,chinese,german")
    group.add_argument("--paraphrases", type=positive_int, help="rewrites of each judged response to judge")
    group.add_argument("--paraphrase-model", help="the model that writes the paraphrases (default: --model)")
    parser.set_defaults(method="dialevalml")


def _run(request: RunRequest, out: Path) -> tuple[Any, list[ScoreRow]]:
    """One run of ``request`` into ``out`` (resumed when it exists); its config and records."""
    config, options = build_run(replace(request, out=str(out)))
    summary = asyncio.run(run(config, options, systems=compare_systems))
    print(
        f"{out}: {summary.selected} evaluations, {summary.already_done} already done, {summary.now.finished} "
        f"finished now, {summary.now.failed} failed"
    )
    path = RunDir(out).results_path
    records = load_results([path]) if path.is_file() else []
    return config, [row for row in records if row.config_hash == config.config_hash()]


def languages_check(
    request: RunRequest, args: argparse.Namespace, out: Path
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One run per language (English first, the reference)."""
    languages = [name.strip() for name in args.languages.split(",") if name.strip()]
    if not languages:
        raise UserError("--languages: give at least one language, e.g. english,chinese")
    if request.language:
        raise UserError("--languages and --language do not go together (--languages runs each language)")
    languages = [REFERENCE_LANGUAGE, *(name for name in languages if name != REFERENCE_LANGUAGE)]
    dataset = str(request.dataset)
    if not looks_like_own_file(dataset):  # every language checked before the first run pays for a call
        spec = get_dataset(dataset)
        unknown = [name for name in languages if spec.variant_option == "language" and name not in spec.variants]
        if unknown:
            raise UserError(f"unknown --languages {', '.join(unknown)}; valid: {', '.join(spec.variants)}")
    by_language = {}
    for language in languages:
        _, by_language[language] = _run(replace(request, language=language), out / language)
    return language_rows(by_language), {"languages": languages}


def paraphrases_check(
    request: RunRequest, args: argparse.Namespace, out: Path
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The items as given, then N rewrites of each judged response, judged."""
    config, original = _run(request, out / "original")
    items = select_items(
        load_items(config.dataset, build_run_options(request, config).data_dir), limit=request.limit, docs=request.docs
    )
    overrides = model_overrides(request)
    if args.paraphrase_model:
        overrides = replace(overrides, model=args.paraphrase_model, role_models={})
    models = resolve_model_config(overrides)
    stored = asyncio.run(
        make_paraphrases(
            items,
            args.paraphrases,
            models,
            out,
            use_cache=not request.no_cache,
            cache_dir=Path(request.cache_dir) if request.cache_dir else None,
            concurrency=request.concurrency or 8,
            preflight=not request.no_preflight,
        )
    )
    variants = paraphrased_items(items, stored, config.dataset)
    if not variants:
        raise UserError(f"the paraphrase model gave no rewrites (see {out / 'paraphrases.jsonl'})")
    paraphrased = replace(
        request,
        dataset=register_paraphrased(config.dataset, variants, out),
        language=None,
        fields={},
        labels={},
        limit=None,
        docs=None,
    )
    _, records = _run(paraphrased, out / "paraphrased")
    rows, per_item = paraphrase_rows(original, records)
    model = models.for_role("scorer").model
    return rows, {"paraphrases": args.paraphrases, "paraphrase_model": model, "per_item": per_item}


def handle_robustness(args: argparse.Namespace) -> int:
    """Run the check, write the table, CSV, JSON and plot."""
    request = request_from_args(args)
    if getattr(args, "dump_config", False):
        print(request_toml(request), end="")
        return 0
    require("matplotlib", "plots", "robustness's figure (robustness.png)")  # before any run pays for a call
    if bool(args.languages) == bool(args.paraphrases):
        raise UserError("robustness: give either --languages L1,L2,... or --paraphrases N")
    if args.paraphrase_model and not args.paraphrases:
        raise UserError("--paraphrase-model goes with --paraphrases N")
    if not request.dataset:
        raise UserError("give the data to evaluate: --dataset NAME|FILE (dataset = in a --config file)")
    if not request.aspect:
        aspects = [] if looks_like_own_file(request.dataset) else list(get_dataset(request.dataset).aspects)
        if len(aspects) != 1:
            valid = f" (one of: {', '.join(aspects)})" if aspects else ""
            raise UserError(f"robustness: give --aspect{valid}")
        request = replace(request, aspect=aspects[0])
    mode = "languages" if args.languages else "paraphrases"
    out = Path(request.out) if request.out else Path("runs") / f"robustness_{dataset_slug(request.dataset)}_{mode}"
    check = languages_check if args.languages else paraphrases_check
    rows, extra = check(request, args, out)
    if not rows:
        raise UserError("robustness: no results to compare (every evaluation failed?)")
    out.mkdir(parents=True, exist_ok=True)
    write_csv(rows, out / "robustness.csv")
    method = request.method or "dialevalml"
    document = {"mode": mode, "dataset": request.dataset, "protocol": method, "rows": rows, **extra}
    write_json_atomic(out / "robustness.json", document)
    plot(rows, out / "robustness.png", f"{request.dataset} [{method}]: {mode}")
    print(format_rows(rows))
    print(f"written: {out / 'robustness.csv'}, {out / 'robustness.json'}, {out / 'robustness.png'}")
    return 0
