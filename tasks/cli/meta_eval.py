"""``debate-eval meta-eval``: how a run's scores or verdicts agree with the human ratings.

- ``meta-eval RUN...``: the table (correlations beside the DEBATE paper's Table 1; pairwise accuracy, κ,
  macro-F1, consistency, agreement), with bootstrap 95 % intervals (``--bootstrap N`` resamples, 0 for none).
- ``--json``: the same as JSON, with ``ci95`` per dataset and aspect.
- ``--distribution``: also the score distribution (Appendix B).
- ``--reference``: alone, also print each paper's own table for the datasets present (which paper, table
  and level); with an evaluator name (DEBATE, G-Eval-4, ChatEval, MultiAgent), choose the DEBATE Table 1 column.
- ``meta-eval RUN_A RUN_B --compare``: paired bootstrap of B − A on the items both share: Δ, interval, p.
"""

from __future__ import annotations

import argparse
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import DEFAULT_RESAMPLES
from debate_eval.tasks.analysis.distribution import format_distribution, score_distribution
from debate_eval.tasks.analysis.formatting import (
    comparison_json,
    format_comparison,
    format_json,
    format_published,
    format_table,
)
from debate_eval.tasks.analysis.meta_eval import compare_runs, meta_evaluate
from debate_eval.tasks.analysis.paper_tables import PAPER_TABLE1
from debate_eval.tasks.analysis.records import load_results, results_path

ALL_REFERENCES = "all"


def handle_meta_eval(args: argparse.Namespace) -> int:
    """Print the meta-evaluation (table, JSON, distribution, published tables) or a comparison of two runs."""
    if args.bootstrap < 0:
        raise UserError(f"--bootstrap {args.bootstrap}: give a number of resamples >= 0")
    if args.compare:
        return _compare(args)
    records = load_results([results_path(path) for path in args.results])
    report = meta_evaluate(records, bootstrap=args.bootstrap)
    if args.json:
        print(format_json(report))
        return 0
    column = args.reference if args.reference not in (None, ALL_REFERENCES) else "DEBATE"
    print(format_table(report, reference=column))
    if args.reference == ALL_REFERENCES:
        print()
        print(format_published(list(report)))
    if args.distribution:
        print()
        print(format_distribution(score_distribution(records)))
    return 0


def _compare(args: argparse.Namespace) -> int:
    if len(args.results) != 2:
        raise UserError(f"--compare takes exactly two runs (RUN_A RUN_B), got {len(args.results)}")
    if args.distribution:
        raise UserError("--compare does not combine with --distribution")
    path_a, path_b = (results_path(path) for path in args.results)
    comparisons = compare_runs(load_results([path_a]), load_results([path_b]), n=args.bootstrap)
    if args.json:
        print(comparison_json(comparisons))
    else:
        print(format_comparison(comparisons, str(path_a), str(path_b), args.bootstrap))
    return 0


def add_subparser(subparsers: Any) -> None:
    """Register ``meta-eval``."""
    parser = subparsers.add_parser(
        "meta-eval",
        help="correlate a run's scores (or verdicts) with the human ratings, with bootstrap intervals",
        description="Correlations between predicted and human scores (per group, averaged, for SummEval and "
        "Topical-Chat; per item for FED), beside the DEBATE paper's Table 1 (GPT-4); pairwise runs get "
        "accuracy, Cohen's kappa, macro-F1, and consistency/agreement with --swap. Later files and later lines "
        "win for a repeated item.",
    )
    parser.add_argument("results", nargs="+", metavar="RUN", help="run directories (or their results.jsonl)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the report as JSON instead of the table")
    output.add_argument(
        "--distribution", action="store_true", help="also print the score distribution (Appendix B, Table 2)"
    )
    parser.add_argument(
        "--reference",
        nargs="?",
        const=ALL_REFERENCES,
        default=None,
        choices=[*PAPER_TABLE1, ALL_REFERENCES],
        help="alone: also print each paper's own published table for these datasets; with a name: which "
        "DEBATE Table 1 evaluator (GPT-4) to show beside the measured numbers (default: DEBATE)",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples for the 95%% intervals and --compare (default {DEFAULT_RESAMPLES}; 0: none)",
    )
    parser.add_argument(
        "--compare", action="store_true", help="RUN_A RUN_B: paired bootstrap of B - A on the items both share"
    )
    parser.set_defaults(handler=handle_meta_eval)
