"""``debate-eval meta-eval``: how a run's scores or verdicts agree with the human ratings (:data:`DESCRIPTION`;
each flag's help says what it adds; docs/meta-evaluation.md is the manual). What the code below decides:

- below 10 groups/items an interval is "too few groups (n=…)" rather than numbers; ``--compare`` prints the
  paired bootstrap's p, at group level the paired t-test's on per-group differences (then the reported p), and
  the reported p Holm-adjusted over every p the command prints;
- ``--fail-under`` exits 1 with one line when a figure is below its bar or stands on too little (see
  :mod:`tasks.analysis.gates`); a bar that is not a finite number in range, a statistic given twice or an empty
  ``--fail-under`` is an error (exit 2);
- a pairwise run against one baseline (``import alpaca-eval``, or records naming the same ``system_a``) also
  gets the systems' win rates (``tasks.analysis.win_rates``); without human ratings that is all it prints;
- any other run without human ratings has nothing to meta-evaluate: one line, exit 2 (with ``--fail-under`` too:
  nothing computed is not a pass); records without a rating beside rated ones are counted as unrated, left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.bootstrap import (
    CI_METHODS,
    DEFAULT_CI_METHOD,
    DEFAULT_RESAMPLES,
    MAX_RESAMPLES,
    check_resamples,
)
from debate_eval.tasks.analysis.compare import DEFAULT_MISSING, MISSING_POLICIES
from debate_eval.tasks.analysis.distribution import format_distribution, score_distribution
from debate_eval.tasks.analysis.formatting import (
    comparison_json,
    format_comparison,
    format_json,
    format_published,
    format_table,
)
from debate_eval.tasks.analysis.gates import (
    DEFAULT_MIN_COVERAGE,
    check_bars,
    check_min_coverage,
    failure_line,
    parse_bars,
)
from debate_eval.tasks.analysis.labels import labelled_run_rows
from debate_eval.tasks.analysis.meta_eval import compare_runs, meta_evaluate
from debate_eval.tasks.analysis.records import iter_checked, load_results, require_human_ratings, results_path
from debate_eval.tasks.analysis.references import REFERENCE_NAMES
from debate_eval.tasks.analysis.win_rates import baseline_win_rates, has_baseline, read_difficulty, win_rate_table
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.engine.reread import mixed_versions_warning

ALL_REFERENCES = "all"
DESCRIPTION = """Correlations between predicted and human scores (per group, averaged, for SummEval and Topical-Chat,
and pooled for Topical-Chat; per item for FED), beside the published row for the run's method and dataset; pairwise runs
get accuracy, Cohen's kappa, macro-F1, and consistency/agreement with --swap. Later files and later lines win for a
repeated item."""


def handle_meta_eval(args: argparse.Namespace) -> int:
    """Print the meta-evaluation (table, JSON, distribution, published tables) or a comparison of two runs;
    with ``--fail-under``, return 1 when a figure is below its bar."""
    check_resamples(args.bootstrap)
    bars = parse_bars(args.fail_under) if args.fail_under is not None else {}
    min_coverage = check_min_coverage(args.min_coverage)
    if args.fail_under_ci and not bars:
        raise UserError("--fail-under-ci needs --fail-under STATISTIC=NUMBER")
    if args.fail_under_ci and args.bootstrap == 0:
        raise UserError("--fail-under-ci needs intervals: give --bootstrap N > 0")
    if args.compare:
        if args.labels:
            raise UserError("--labels applies to one meta-evaluation, not to --compare")
        if bars:
            raise UserError("--fail-under applies to one meta-evaluation, not to --compare")
        return _compare(args)
    records = load_results([results_path(path) for path in args.results])
    if args.labels:
        if len(args.results) != 1:
            raise UserError("--labels reads the labels of one run; give one RUN")
        records = labelled_run_rows(records, args.labels, args.results[0])
    block = _win_rates(args) if has_baseline(records) else None
    if args.difficulty and block is None:
        raise UserError(
            f"--difficulty {args.difficulty}: applies to pairwise runs against a baseline (AlpacaEval's); "
            f"{', '.join(args.results)} has none"
        )
    if block is not None and not any(row.human_label or row.human_score is not None for row in records):
        print(json.dumps(block, indent=2) if args.json else "\n".join(win_rate_table(block)))
        return 0
    require_human_ratings(records, ", ".join(args.results))
    _warn_parsers(records, ", ".join(args.results))
    report = meta_evaluate(records, bootstrap=args.bootstrap, ci_method=args.ci_method)
    column = args.reference if args.reference != ALL_REFERENCES else None
    if args.json:
        payload = json.loads(format_json(report, reference=column))
        if block is not None:  # the text's win-rate table, here as in the run without human labels
            payload["win_rates"] = block
        print(json.dumps(payload, indent=2))
    else:
        print(format_table(report, reference=column))
        if args.reference == ALL_REFERENCES:
            print()
            print(format_published(list(report)))
        if args.distribution:
            print()
            print(format_distribution(score_distribution(records)))
        if block is not None:
            print()
            print("\n".join(win_rate_table(block)))
    if bars:
        failures = check_bars(report, bars, lower_ci=args.fail_under_ci, min_coverage=min_coverage)
        if failures:
            print(failure_line(failures, args.fail_under_ci), file=sys.stderr)
            return 1
    return 0


def _win_rates(args: argparse.Namespace) -> dict[str, Any] | None:
    """The runs' win rates against their baseline (``win_rates``), None when they have no baseline."""
    records = [record for path in args.results for record in iter_checked(results_path(path))]
    difficulty = read_difficulty(Path(args.difficulty)) if args.difficulty else None
    if difficulty is not None:
        asked = sorted({str((r.inputs or {}).get("question") or "") for r in records if r.task_type == "pairwise"})
        missing = [instruction for instruction in asked if instruction not in difficulty]
        if missing:
            raise UserError(
                f"{args.difficulty}: {len(missing)} of the run's {len(asked)} instructions have no difficulty "
                f"(first: {missing[0][:60]!r}); give every instruction, as its text, in the instruction column"
            )
    return baseline_win_rates(records, difficulty)


def _compare(args: argparse.Namespace) -> int:
    if len(args.results) != 2:
        raise UserError(f"--compare takes exactly two runs (RUN_A RUN_B), got {len(args.results)}")
    if args.distribution:
        raise UserError("--compare does not combine with --distribution")
    path_a, path_b = (results_path(path) for path in args.results)
    records_a, records_b = load_results([path_a]), load_results([path_b])
    require_human_ratings(records_a, str(args.results[0]))
    require_human_ratings(records_b, str(args.results[1]))
    _warn_parsers(records_a, args.results[0])
    _warn_parsers(records_b, args.results[1])
    comparisons = compare_runs(records_a, records_b, n=args.bootstrap, missing=args.missing, ci_method=args.ci_method)
    if args.json:
        print(comparison_json(comparisons))
    else:
        print(format_comparison(comparisons, str(path_a), str(path_b), args.bootstrap))
    return 0


def _warn_parsers(records: Any, where: str) -> None:
    """One line on stderr when the records were read by more than one parser version (``engine/reread.py``)."""
    warning = mixed_versions_warning(records, where)
    if warning:
        print(warning, file=sys.stderr)


def add_subparser(subparsers: Any) -> None:
    """Register ``meta-eval`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "meta-eval", handle_meta_eval, DESCRIPTION)
    parser.add_argument("results", nargs="+", metavar="RUN", help="run directories (or their results.jsonl)")
    parser.add_argument(
        "--labels",
        metavar="FILE",
        help="human labels of the run's items (labels.jsonl, as the label command's page downloads it): they are the "
        "human ratings, in place of any the dataset holds; the systems' PPI means use them with the judge's "
        "scores of the unlabelled items",
    )
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
        choices=[*REFERENCE_NAMES, ALL_REFERENCES],
        help="alone: also print each paper's own published tables for these datasets, by definition; with a "
        "name: the row beside the measured numbers (a method name as if the run were that method, a DEBATE "
        "Table 1 row, DEBATE-Sophisticated for Table 3, or none). Default: the run's method's own paper row; "
        "none for imported runs",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=DEFAULT_RESAMPLES,
        metavar="N",
        help=f"bootstrap resamples for the 95%% intervals and --compare (default {DEFAULT_RESAMPLES}; 0: none; at "
        f"most {MAX_RESAMPLES:,})",
    )
    parser.add_argument(
        "--ci-method",
        choices=CI_METHODS,
        default=DEFAULT_CI_METHOD,
        help="bootstrap interval: percentile (default) or bca (scipy's bias-corrected and accelerated)",
    )
    parser.add_argument(
        "--compare",
        action="store_true",
        help="RUN_A RUN_B: paired comparison of B - A on the items/groups both runs scored",
    )
    parser.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default=DEFAULT_MISSING,
        help=f"--compare, pairwise: a missing verdict counts as wrong, or the item is dropped from both runs "
        f"(default {DEFAULT_MISSING})",
    )
    parser.add_argument(
        "--fail-under",
        metavar="STAT=X[,STAT=Y]",
        help="exit 1 with one line when a figure is below its bar, e.g. spearman=0.40,kappa=0.3 or "
        "system_kendall=0.5 (the system-level figure, from 5 systems on) (for CI)",
    )
    parser.add_argument(
        "--min-coverage",
        type=float,
        default=DEFAULT_MIN_COVERAGE,
        metavar="SHARE",
        help=f"with --fail-under: a figure also fails when fewer than this share of the rated items have a "
        f"score/verdict, or of the groups a defined correlation, or when it stands on fewer than 10 units "
        f"(default {DEFAULT_MIN_COVERAGE}; 0: no coverage requirement)",
    )
    parser.add_argument(
        "--difficulty",
        metavar="CSV",
        help="pairwise runs against a baseline: each instruction's difficulty (a CSV of instruction,difficulty "
        "with a header row) for the length-controlled win rate",
    )
    parser.add_argument(
        "--fail-under-ci",
        action="store_true",
        help="with --fail-under: compare the lower 95%% CI bound instead of the figure (too few units fail)",
    )
