"""``debate-eval import FORMAT FILE... --out DIR``: published judge outputs as a run directory.

Formats (one module each in ``tasks/analysis/imports``): ``debate-authors`` (the DEBATE authors' released
SummEval results), ``geval`` (G-Eval's released 20-sample results), ``jsonl`` (any JSONL with an id and a raw
answer, joined to ``--dataset``), ``pandalm`` (PandaLM's released verdicts). The run directory holds
``config.json`` and ``results.jsonl`` as a run writes them, so ``show``, ``rescore`` and ``meta-eval`` accept
it; the project's parser is applied and the raw text kept in each transcript. Rows whose id matches no item
are listed (count and first five). ``alpaca-eval`` reads AlpacaEval's ``annotations.json`` files, one
system each, and prints their win rates against the baseline. ``judgebench`` reads ``PAIRS OUTPUTS``
(JudgeBench's pairs, then one judge's outputs) into one run. Several files of the other formats go into one
run when they share dataset and aspect; for a repeated item the later file wins (and the number of such items
is printed).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.analysis.imports import FORMATS
from debate_eval.tasks.analysis.imports.common import (
    ImportResult,
    check_new_out,
    config_payload,
    unmatched_line,
    write_run,
)
from debate_eval.tasks.analysis.win_rates import baseline_win_rates, win_rate_table
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.data.templates import parse_scale
from debate_eval.tasks.engine.record import Record

DESCRIPTION = """Import a paper's released judge outputs; the project's parser is applied and the raw text kept. Rows
that match no item of the dataset are listed, never skipped silently."""


def add_subparser(subparsers: Any) -> None:
    """Register ``import`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "import", handle_import, DESCRIPTION)
    parser.add_argument("format", choices=list(FORMATS), metavar="FORMAT", help=f"one of {', '.join(FORMATS)}")
    parser.add_argument("files", nargs="+", metavar="FILE", help="released result files")
    parser.add_argument("--out", required=True, help="a new run directory to write")
    parser.add_argument("--aspect", help="the aspect judged (debate-authors, geval: else from the prompt)")
    parser.add_argument(
        "--answer-field",
        help="the field holding the judge's answer (debate-authors; pandalm: gpt_result|pandalm_result)",
    )
    parser.add_argument("--scale", metavar="LO-HI", help="the scale answers are parsed on (else the prompt's)")
    parser.add_argument("--dataset", help="jsonl: the dataset whose item ids the file uses")
    parser.add_argument("--fields", help="jsonl: id=COLUMN,text=COLUMN (default id=id,text=text)")
    parser.add_argument("--method", help="jsonl: the method the answers came from (default geval)")
    parser.add_argument("--data-dir", help="dataset folder (default: $DEBATE_EVAL_DATA_DIR, download folder)")


def _merge(results: list[tuple[str, ImportResult, str]]) -> tuple[list[dict[str, Any]], list[Record], int]:
    """The result lines of all files and their records, checked as every reader checks them (a later file wins
    for a repeated item), and how many items repeated."""
    by_id: dict[str | int, tuple[dict[str, Any], Record]] = {}
    repeated = 0
    for _, result, _ in results:
        for line in result.records:
            record = Record.from_json(line, messages=False)
            repeated += record.item_id in by_id
            by_id[record.item_id] = (line, record)
    return [line for line, _ in by_id.values()], [record for _, record in by_id.values()], repeated


def _counts(records: list[Record]) -> str:
    if any(record.pairwise for record in records):
        verdicts = Counter(str(record.verdict or "no verdict") for record in records)
        return "verdicts: " + ", ".join(f"{name} {verdicts[name]}" for name in ("first", "second", "tie", "no verdict"))
    status = Counter(str(record.parse_status) for record in records)
    return "parse: " + ", ".join(f"{status[name]} {name}" for name in ("parsed", "no_score", "out_of_range"))


def handle_import(args: argparse.Namespace) -> int:
    """Import the files into ``--out`` and print what was imported and what did not match."""
    module = FORMATS[args.format]
    check_new_out(Path(args.out))  # before reading: no 'rows imported' line for an import that cannot be written
    options = {
        "aspect": args.aspect,
        "answer_field": args.answer_field,
        "scale": parse_scale(args.scale) if args.scale else None,
        "dataset": args.dataset,
        "fields": args.fields,
        "method": args.method,
        "data_dir": args.data_dir,
    }
    if hasattr(module, "import_files"):  # one run from several files together (judgebench: PAIRS OUTPUTS)
        result, aspect, scale = module.import_files([Path(name) for name in args.files], options)
        results = [(args.files[-1], result, aspect)]
    else:
        results = []
        for name in args.files:
            result, aspect, scale = module.import_file(Path(name), options)
            results.append((name, result, aspect))
    for name, result, _ in results:
        for note in result.notes:
            print(note)
        line = unmatched_line(result.unmatched, getattr(module, "DATASET", None) or str(args.dataset))
        print(f"{name}: {len(result.records)} rows imported" + (f"; {line}" if line else "; every row matched"))
    aspects = {aspect for _, _, aspect in results}
    if len(aspects) > 1:
        raise UserError(
            f"the files judge different aspects ({', '.join(sorted(aspects))}); import one aspect per --out"
        )
    lines, records, repeated = _merge(results)
    if not records:
        raise UserError("no row matched an item of the dataset; nothing to write (check --dataset / --fields)")
    first = records[0]
    config = config_payload(
        first.dataset,
        first.aspect,
        first.method,
        scale,
        args.format,
        [Path(name) for name, _, _ in results],
        {k: (str(v) if v is not None else None) for k, v in options.items() if k != "data_dir"},
    )
    written = write_run(Path(args.out), config, lines)
    what = f"{first.dataset}/{first.aspect} ({first.method})"
    print(f"{written}: {len(records)} items of {what}; {_counts(records)}")
    if repeated:
        print(f"{repeated} items appeared in more than one file; the later file's row was kept")
    for line in win_rate_table(baseline_win_rates(records)):
        print(line)
    print(f"next: debate-eval meta-eval {args.out}   |   debate-eval show {args.out}")
    return 0
