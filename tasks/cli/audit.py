"""``debate-eval audit``: the judge card, how far to trust a judge configuration on your data.

The flags are ``run``'s (data, method and its options, models, execution; ``--method a,b`` audits several
methods side by side) plus the audit's own; ``audit.run.run_audit`` does the work. The audit folder
(``--out``) keeps one run directory per judge and sub-run, so rerunning the command resumes it, and auditing
another model into the same folder adds a judge to the card.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import fields
from typing import Any

from debate_eval.agents.redaction import redact_words
from debate_eval.tasks.analysis.audit.alt_test import DEFAULT_EPSILON
from debate_eval.tasks.analysis.audit.card import FACETS, card_table
from debate_eval.tasks.analysis.bootstrap import CI_METHODS, DEFAULT_CI_METHOD, DEFAULT_RESAMPLES, MAX_RESAMPLES
from debate_eval.tasks.audit.plan import (
    DEFAULT_PARAPHRASES,
    DEFAULT_REPEATS,
    OWN_OPTIONS,
    AuditRequest,
    audit_request_over_file,
    split_names,
)
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.cli.run import (
    add_run_arguments,
    request_from_args,
)
from debate_eval.tasks.engine.config_file import request_toml

DESCRIPTION = """Audit a judge configuration on your data: its agreement with the human ratings, its stability when
asked again, position and verbosity bias, scale use, robustness to paraphrase and susceptibility to instructions planted
in the judged text, each with a bootstrap interval and its n. Writes OUT/card.json, OUT/card.md and OUT/report.html;
every sub-run is an ordinary run directory under OUT (show, meta-eval, report read it) and a rerun resumes. The calls
each facet needs are printed before anything runs."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def add_subparser(subparsers: Any) -> None:
    """Register ``audit`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "audit", handle_audit, DESCRIPTION)
    add_run_arguments(parser)
    for action in parser._actions:
        if action.dest == "method":
            action.help = "the method to audit, or several side by side: debate,geval (default: debate)"
        elif action.dest == "swap":
            action.help = argparse.SUPPRESS  # the position facet judges both orders itself
        elif action.dest == "out":
            action.help = "the audit folder (default: runs/audit_DATASET_ASPECT); a rerun resumes; another model "
            "audited into the same folder is set beside the first"
    group = parser.add_argument_group("audit")
    group.add_argument(
        "--facets",
        type=split_names,
        help=f"which facets, comma-separated (default all: {', '.join(FACETS)})",
    )
    group.add_argument(
        "--repeats",
        type=_positive,
        help=f"stability: runs of the same items, the first being the base run (default {DEFAULT_REPEATS})",
    )
    group.add_argument(
        "--paraphrases",
        type=_positive,
        help=f"robustness: rewrites of each judged text (default {DEFAULT_PARAPHRASES})",
    )
    group.add_argument("--paraphrase-model", help="robustness: the model that rewrites (default: the judge's model)")
    group.add_argument(
        "--injections", type=split_names, help="injection: corpus variants to use, comma-separated (default all)"
    )
    group.add_argument(
        "--budget-usd",
        type=float,
        help="stop before a sub-run whose estimated cost would take the audit past this many dollars (prices: "
        "tasks/engine/prices.csv or $DEBATE_EVAL_PRICES)",
    )
    group.add_argument(
        "--bootstrap",
        type=int,
        help=f"resamples per interval (default {DEFAULT_RESAMPLES}; at most {MAX_RESAMPLES:,})",
    )
    group.add_argument("--ci-method", choices=CI_METHODS, help=f"interval method (default {DEFAULT_CI_METHOD})")
    group.add_argument("--label", help="the judge's name on the card and its folder (default: METHOD[_MODEL])")
    group.add_argument(
        "--alt-epsilon",
        type=float,
        help=f"alt-test: the judge's cost-benefit allowance epsilon (default {DEFAULT_EPSILON:g}; the paper suggests "
        "0.2 for expert annotators, 0.15 skilled, 0.1 crowd workers); the annotators come from --fields "
        "annotators=A|B|C",
    )
    group.add_argument(
        "--system-families",
        help="self-preference: each judged system's model family, system=family pairs (gpt-4o=openai,llama-3=meta) "
        "or a JSON/CSV file (columns system, family); a judge model named there gets that family",
    )
    group.add_argument("--judge-family", help="self-preference: the judge's model family (default: from the map)")


def audit_request(args: argparse.Namespace) -> AuditRequest:
    """The ``AuditRequest`` of the flags (the run options through ``request_from_args``) over the ``--config``
    file's, recording the command given to ``main`` (else the program's own arguments)."""
    command = "debate-eval " + shlex.join(redact_words(getattr(args, "words", sys.argv[1:])))
    given = {name: getattr(args, name, None) for name in OWN_OPTIONS}
    return audit_request_over_file(request_from_args(args, OWN_OPTIONS), given, getattr(args, "config", None), command)


def own_options(request: AuditRequest) -> dict[str, Any]:
    """The audit's options ``request`` sets off their defaults (what ``--dump-config`` prints after the run's)."""
    defaults = {spec.name: spec.default for spec in fields(AuditRequest)}
    found = {name: getattr(request, name) for name in OWN_OPTIONS if getattr(request, name) != defaults[name]}
    if "system_families" in found:
        found["system_families"] = dict(found["system_families"])
    return found


def handle_audit(args: argparse.Namespace) -> int:
    """Run the audit and print the card in short."""
    from debate_eval.tasks.audit.run import run_audit

    request = audit_request(args)
    if getattr(args, "dump_config", False):
        print(request_toml(request.run, own_options(request)), end="")
        return 0
    result = run_audit(request)
    print(format_card(result.card))
    for name, path in result.files.items():
        print(f"{name}: {path}")
    return 1 if result.failed else 0


def format_card(card: Any) -> str:
    """The card as a short table on screen: one row per figure, one column per judge."""
    judges = [judge.label for judge in card.judges]
    rows = card_table(card.judges)
    width = max([len(f"{title}: {label}") for title, label, _ in rows] + [10])
    lines = [f"judge card: {card.dataset}/{card.aspect}, {card.items} items" + (" (SCRIPTED judges, not models)"
             if card.scripted else "")]  # fmt: skip
    lines.append(f"{'':<{width}}  " + "  ".join(f"{label:<34}" for label in judges))
    for title, label, cells in rows:
        name = f"{title}: {label}" if label else title
        lines.append(f"{name:<{width}}  " + "  ".join(f"{cell:<34}" for cell in cells))
    return "\n".join(lines)
