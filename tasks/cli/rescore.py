"""``debate-eval rescore``: re-parse stored answers with the current parser, with no model call.

For each item, every transcript entry's score is parsed again, then the run's method (``Method.rescore``)
recomputes the item's score: by default the deciding answer read back from the transcript (the Scorer's
last answer, the Tie-breaker's verdict, or the G-Eval answer; after a re-ask, the re-ask's answer when the
first had no score). Parsing is exactly as a run does: what the agent copied from the texts under evaluation is
blanked out first, so the dataset is loaded to know those texts (a ``Judge``'s folder has none: each judgment's
texts are read back out of its prompt, ``judge_inputs``). ``score``, ``parse_status``,
``parse_method`` and ``parse_reason`` are rewritten, and every transcript entry's parsed score too, and each
re-read record names the current ``parser_version`` (``tasks/engine/reread.py`` holds the re-reading, shared
with a resumed run). The old file is kept as ``results.jsonl.bak-<time>`` (``-2``, ``-3``... when that name is taken:
a backup is never overwritten).

G-Eval probability-weighted scores (``details.method == "logprob_weighted"``) keep their value: the
log-probabilities are not stored; only their parse fields are refreshed. G-Eval sample means and ChatEval's
mean of the referees' final scores are recomputed. Pairwise records: every verdict is parsed again and the
item's verdict recomputed as its method decided it (``Method.rescore_pairwise``), both orders of a --swap run
included.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.debates.base import get_method
from debate_eval.debates.pairwise.prompts import NO_INPUT
from debate_eval.tasks.analysis.imports import FORMATS
from debate_eval.tasks.analysis.jury import METHOD as JURY
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.data.datasets import load_items, resolve_data_dir
from debate_eval.tasks.data.own_file import restore_dataset
from debate_eval.tasks.data.own_rows import PAIRWISE_INPUT_ORDER
from debate_eval.tasks.data.placeholders import PLACEHOLDER_RE
from debate_eval.tasks.data.templates import parse_scale
from debate_eval.tasks.engine.config_checksum import edit_note
from debate_eval.tasks.engine.lock import RunLock
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.reread import reread_line
from debate_eval.tasks.engine.rundir import RunDir, iter_json_lines, results_file

DESCRIPTION = """Read every stored answer of a run again with the current score parser, exactly as a run reads it, and
write the re-parsed records; no model is called."""


def reserve_backup(results: Path) -> Path:
    """A new file for the copy of ``results`` made before it is rewritten: ``<name>.bak-<time>``, or with ``-2``,
    ``-3``... when a backup of that second exists (created exclusively, so two rescores in one second never write
    over the other's backup, the only copy of the file as it was)."""
    stem = f"{results.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}"
    for number in range(1, 10_000):
        candidate = results.with_name(stem if number == 1 else f"{stem}-{number}")
        try:
            with candidate.open("x"):
                return candidate
        except FileExistsError:
            continue
    raise UserError(f"{results.parent}: too many backups named {stem}; remove some and rescore again")


def add_subparser(subparsers: Any) -> None:
    """Register ``rescore`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "rescore", handle_rescore, DESCRIPTION)
    parser.add_argument("results", help="a results.jsonl (its config.json must be beside it)")
    parser.add_argument("--data-dir", help="dataset folder (to know the texts under evaluation)")
    parser.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")


def _load_config(results: Path) -> dict[str, Any]:
    run_dir = RunDir.of_results(results)
    path = run_dir.config_path
    if not path.is_file():
        raise UserError(f"{path}: not found; rescore needs the run's config.json beside {results.name}")
    config = run_dir.config_if_readable() or {}
    edited = edit_note(path, config)
    if edited:
        raise UserError(
            f"{edited}; rescore reads the run's settings from it: rerun the run's own command to restore it"
        )
    result_config = config.get("result_config")
    if isinstance(result_config, dict) and result_config.get("protocol") == JURY:
        jurors = ", ".join(str(juror) for juror in result_config.get("jurors") or [])
        raise UserError(
            f"{results}: a jury's verdicts are combined from its jurors' runs ({jurors}), not read from a judge's "
            "text: rescore each juror's run, then run `debate-eval jury` again"
        )
    try:
        return {
            "dataset": result_config["dataset"],
            "aspect": result_config["aspect"],
            "scale": parse_scale(result_config["template"]["scale"]) if result_config["template"]["scale"] else None,
            "protocol": result_config.get("protocol"),
            "dataset_options": result_config.get("dataset_options"),  # an own file's columns
            "import_format": (result_config.get("import") or {}).get("format"),  # debate-eval import's format
            # a multi-aspect run (--aspect a,b / all): each aspect's own scale
            "scales": {
                aspect: parse_scale(part["template"]["scale"])
                for aspect, part in (result_config.get("aspects") or {}).items()
                if part["template"]["scale"]
            },
            # the prompt templates, to read a Judge's texts back out of its prompts (judge_inputs)
            "templates": {
                aspect: part["template"].get("text") or ""
                for aspect, part in {
                    result_config["aspect"]: result_config,
                    **(result_config.get("aspects") or {}),
                }.items()
            },
        }
    except (KeyError, TypeError):
        raise UserError(f"{path}: not a debate-eval config.json (missing result_config)") from None


@functools.cache
def _rendered_pattern(template: str) -> re.Pattern[str] | None:
    """A pattern matching ``template`` rendered, each placeholder a named group (a repeated one must repeat its
    text); None for a template without placeholders. Built once per template, not once per record."""
    names = PLACEHOLDER_RE.findall(template)
    if not names:
        return None
    parts = PLACEHOLDER_RE.split(template)[::2]  # the text around the placeholders (split keeps their names)
    pattern = re.escape(parts[0])
    for number, (name, text) in enumerate(zip(names, parts[1:], strict=True)):
        pattern += (f"(?P={name})" if name in names[:number] else f"(?P<{name}>.*?)") + re.escape(text)
    return re.compile(pattern, re.DOTALL)


def judge_inputs(record: Record, template: str) -> dict[str, str] | None:
    """The texts a ``Judge`` judged for ``record``, read back out of the first message holding the prompt
    ``template`` rendered (a Judge's folder holds no items, only the digest of each judgment's inputs), or
    None when no reading gives that digest back (an input the template does not show)."""
    from debate_eval._judge_inputs import judgment_digest

    pattern = _rendered_pattern(template)
    digest = (record.details or {}).get("judge_inputs_sha256")
    for message in record.transcript if pattern is not None else ():
        found = pattern.search(message.content)
        shown = found.groupdict() if found else {}
        # a pairwise judgment's inputs: all four, one not given shown as "(none)" and the others as ""
        given = {key: "" if text == NO_INPUT else text for key, text in shown.items()}
        pair = dict.fromkeys(PAIRWISE_INPUT_ORDER, "") | given
        for texts in (shown, pair) if found else ():
            if judgment_digest(texts, record.system_id or None) == digest:
                return texts
    return None


def handle_rescore(args: argparse.Namespace) -> int:
    """Rescore a results file in place (keeping a backup)."""
    results = results_file(args.results)
    if not results.is_file():
        raise UserError(f"{results}: no such results file")
    config = _load_config(results)
    module = FORMATS.get(str(config["import_format"]))
    if module is not None and not getattr(module, "REREADABLE", True):
        raise UserError(
            f"{results}: imported from {config['import_format']} files, whose verdicts are the release's own "
            "decisions (codes or preferences), not a judge's text: there is nothing to read again"
        )
    restore_dataset(config)  # a run on the user's own file: register it again from config.json
    # every line as a Record (a line that is none: one line naming it, exit 2)
    records = [Record.from_json(obj, path=results, line=number) for number, obj in iter_json_lines(results)]
    from debate_eval._judge import DATASET as JUDGE

    if config["dataset"] == JUDGE:  # a Judge's folder: each judgment's texts read back out of its prompt
        read = ((record, judge_inputs(record, config["templates"][record.aspect])) for record in records)
        inputs = {record.item_id: texts for record, texts in read if texts is not None}
    else:
        inputs = {item.item_id: item.inputs for item in load_items(config["dataset"], resolve_data_dir(args.data_dir))}
    size_read = results.stat().st_size
    rescored: list[Record] = []
    changed = pairwise = 0
    unmatched: list[str] = []
    for record in records:
        missing = record.item_id not in inputs
        if record.error or missing:  # kept as it is
            unmatched += [record.key] if missing and not record.error else []
            new = record
        else:
            method = get_method(str(config["protocol"] or record.method))
            texts = list(inputs[record.item_id].values())
            if record.pairwise:  # verdicts, re-parsed as the run parsed them (by its method)
                new = reread_line(record, method, None, texts)
                pairwise += new.verdict != record.verdict
            else:
                new = reread_line(record, method, config["scales"].get(record.aspect, config["scale"]), texts)
                changed += new.score != record.score
        rescored.append(new)
    before, after = (Counter(str(record.parse_status) for record in lines) for lines in (records, rescored))
    print(f"{results}: {len(records)} items; {changed} scores changed")
    print(f"parse status before: {dict(before)}; after: {dict(after)}")
    if unmatched:
        shown = ", ".join(unmatched[:5])
        dataset = config["dataset"]
        why = (
            "have texts their prompts do not show in full (an input the template leaves out)"
            if dataset == JUDGE
            else f"match no item of {dataset}"
        )
        print(f"{len(unmatched)} items {why} and were left as they are (first five: {shown})")
    if pairwise:
        print(f"{pairwise} pairwise verdicts changed")
    if args.dry_run:
        print("dry run: nothing written")
        return 0
    with RunLock(results.parent):  # never under a running run: its new lines would be lost
        if results.stat().st_size != size_read:
            raise UserError(f"{results} changed while it was rescored (a run wrote to it); rescore again")
        backup = reserve_backup(results)
        shutil.copy2(results, backup)
        tmp = results.with_suffix(".jsonl.tmp")
        with tmp.open("w", encoding="utf-8") as handle:
            for record in rescored:
                handle.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
        tmp.replace(results)
    print(f"rewritten; the old file is {backup}")
    return 0
