"""``debate-eval show``: read a run's transcripts in the terminal.

The records are read one at a time (``rundir.iter_numbered_file``): the table keeps a short row of text per
item, ``--item`` the position of the line it prints, which alone is read again with its messages."""

from __future__ import annotations

import argparse
import contextlib
import textwrap
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.answer_format import describe_answers
from debate_eval.agents.redaction import environment_snapshot
from debate_eval.debates.base import get_method
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.data.printable import escaped
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.resume_index import last_line_of
from debate_eval.tasks.engine.rundir import KEY_SEPARATOR, RunDir, ScanEnd, iter_numbered_file, lines_at, results_file

WIDTH = 100
DESCRIPTION = """Without --item: the run's template and one line per item (human score, score, Critic agreement, rounds,
parse status). With --item: that item's whole transcript, message by message, with the score parsed from each answer and
the rule that found it."""


def add_subparser(subparsers: Any) -> None:
    """Register ``show`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "show", handle_show, DESCRIPTION)
    parser.add_argument("run_dir", help="a run directory (or its results.jsonl)")
    parser.add_argument("--item", help="item id (or a unique prefix / its position in the list, 1-based)")
    parser.add_argument("--full", action="store_true", help="do not shorten long messages")


def handle_show(args: argparse.Namespace) -> int:
    """Print the item table or one transcript (a file of an earlier version may hold a secret: every record
    is read with the configured secrets masked)."""
    path = results_file(args.run_dir)
    if not path.is_file():
        raise UserError(f"{path}: no results file (run `debate-eval run ... --out DIR` first)")
    with environment_snapshot():  # the environment's secrets read once, not at every record
        for line in config_lines(RunDir.of_results(path).config_if_readable() or {}, template=args.item is None):
            print(line)
        if args.item is None:
            records = (record for _, record in iter_numbered_file(path, redact=True, messages=False))
            for line in table_lines(records):
                print(escaped(line, lines=True))
        else:
            print(escaped(format_transcript(find_in_file(path, args.item), full=args.full), lines=True))
    return 0


def config_lines(config: Mapping[str, Any], *, template: bool) -> list[str]:
    """From a run's ``config.json`` (``{}`` when it cannot be read): ``answers: ...`` when some answers were
    constrained (``--answer-format``), then with ``template`` its ``template: SOURCE (scale LO-HI)`` (a
    ``--criteria`` run shows its sentence)."""
    result = config.get("result_config")
    result = result if isinstance(result, dict) else {}
    lines = [f"answers: {describe_answers(result['answers'])}"] if result.get("answers") else []
    used = result.get("template")
    if template and isinstance(used, dict) and used.get("source"):
        lines.append(f"template: {used['source']} (scale {used.get('scale', '?')})")
    return lines


def find_in_file(path: Path, key: str) -> Record:
    """The record of a results file that ``--item KEY`` names: the last whose item id is ``key``, else the one at
    position ``key``, else the one item whose id starts with ``key``. An exact item id is looked up in the resume
    index when it describes the file (one line read, whatever the file's size); anything else scans the records
    without their messages, keeping only where each rule's line starts. The line found is read again whole
    (every configured secret masked)."""
    offset = last_line_of(path, key, separator=KEY_SEPARATOR)
    if offset is not None:
        with contextlib.suppress(ValueError, UserError):  # not a line's start after all: the index is ignored
            record = next((record for _, record in lines_at(path, [offset], redact=True)), None)
            if record is not None and record.item_id == key:
                return record
    position = int(key) if key.isdigit() else None
    exact = at = prefix = None  # where the line each rule found starts
    prefixed: set[str | int] = set()
    end = ScanEnd()
    records = iter_numbered_file(path, end, redact=True, messages=False)
    for count, (_, record) in enumerate(records, start=1):
        if record.item_id == key:
            exact = end.line_start
        if count == position:
            at = end.line_start
        if str(record.item_id).startswith(key):
            prefixed.add(record.item_id)
            prefix = end.line_start if len(prefixed) == 1 else None
    offset = next((found for found in (exact, at, prefix) if found is not None), None)
    if offset is None:
        hint = f"{len(prefixed)} items start with it" if prefixed else "no item has that id"
        raise UserError(f"--item {key!r}: {hint}; run `debate-eval show DIR` to list the items")
    return next(record for _, record in lines_at(path, [offset], redact=True))


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    return escaped(value)  # a field of the data or the record: no control character reaches the terminal


def _row(record: Record) -> tuple[str, str, bool, str, str]:
    """What the table shows of one record, as text (the record itself is not kept): its id, its aspect, whether
    it is pairwise, and the rest of its line in a table of verdicts and in a table of scores."""
    rounds = _fmt(record.rounds)
    status = "error: " + escaped(record.error)[:60] if record.error else _fmt(record.parse_status)
    both = record.verdicts or {}  # the verdicts of both orders (--swap)
    orders = f"{_fmt(both.get('original'))}/{_fmt(both.get('swapped'))}" if both else "-"
    confidence = "-" if record.confidence is None else f"{record.confidence:.2f}"
    consistent = ""
    if record.consistent is not None:
        consistent = "  consistent" if record.consistent else "  inconsistent"
    verdicts = (
        f"{_fmt(record.human_label):>7} {_fmt(record.verdict):>7} {orders:>13} {rounds:>6} "
        f"{confidence:>5}  {status}{consistent}"
    )
    scores = (
        f"{_fmt(record.human_score):>6} {_fmt(record.score):>6} {_fmt(record.agreed):>6} {rounds:>6} "
        f"{confidence:>5}  {status}"
    )
    return _fmt(record.item_id), _fmt(record.aspect), record.pairwise, verdicts, scores


def table_lines(records: Iterable[Record]) -> Iterator[str]:
    """The lines of ``format_table``; each record is read once and only its row is kept."""
    rows = [_row(record) for record in records]
    if rows and all(pairwise for _, _, pairwise, _, _ in rows):
        yield f"{'#':>4}  {'item':<44} {'human':>7} {'verdict':>7} {'orders':>13} {'rounds':>6} {'conf':>5}  status"
        for number, (item, _, _, verdicts, _) in enumerate(rows, start=1):
            yield f"{number:>4}  {item[:44]:<44} {verdicts}"
    else:
        yield f"{'#':>4}  {'item':<58} {'human':>6} {'score':>6} {'agreed':>6} {'rounds':>6} {'conf':>5}  status"
        several_aspects = len({aspect for _, aspect, _, _, _ in rows}) > 1  # a multi-aspect run (--aspect a,b / all)
        for number, (label, aspect, _, _, scores) in enumerate(rows, start=1):
            if several_aspects:  # the aspect stays whole; a long id gives way (SummEval's ids are 52 characters)
                tag = f" [{aspect}]"
                label = label[: max(0, 58 - len(tag))] + tag
            yield f"{number:>4}  {label[:58]:<58} {scores}"
    yield f"{len(rows)} items; `debate-eval show DIR --item N` prints one transcript"


def format_table(records: Iterable[Record]) -> str:
    """One line per item: position, id, human score (or label), score (or verdict), agreement (or both
    orders' verdicts), rounds, confidence, status."""
    return "\n".join(table_lines(records))


def _wrapped(text: str, full: bool) -> str:
    """``text`` wrapped at ``WIDTH``, its middle left out when long (unless ``full``)."""
    if not full and len(text) > 1500:
        text = f"{text[:700]}\n[... {len(text) - 1400} characters not shown; --full shows all ...]\n{text[-700:]}"
    return "\n".join(textwrap.fill(line, WIDTH, replace_whitespace=False) if line else "" for line in text.splitlines())


def _finished(record: Record, value: Any) -> str:
    """A parse or debate field as the line holds it: the engine writes these keys (null too) for a finished
    item only, so an item without them shows ``-``."""
    return str(value) if value is not None or record.ok else "-"


def _pairwise_blocks(record: Record, head: str, full: bool) -> list[str]:
    """The head, then the verdicts and both responses of a pairwise record."""
    if record.verdicts:
        verdicts = record.verdicts
        head += (
            f"\nboth orders (in the original order): original {_fmt(verdicts.get('original'))}, "
            f"swapped {_fmt(verdicts.get('swapped'))}   consistent {_fmt(record.consistent)}"
        )
    if record.parse_reason:
        head += f"\n{record.parse_reason}"
    blocks = [head]
    inputs = record.inputs if isinstance(record.inputs, dict) else {}
    for key, title in (
        ("question", "Question"),
        ("input", "Input"),
        ("output_a", "Response A"),
        ("output_b", "Response B"),
    ):
        text = str(inputs.get(key) or "")
        if text or key != "input":
            blocks.append(f"=== {title} ===\n{_wrapped(text, full)}")
    return blocks


def format_transcript(record: Record, *, full: bool = False) -> str:
    """Every message of one item, with speaker, addressee, usage and parsed scores (pairwise: the question,
    both responses and each order's verdicts first)."""
    if record.pairwise:
        kind, human, answer = ", pairwise", record.human_label, f"verdict {_fmt(record.verdict)}"
    else:
        kind, human, answer = "", record.human_score, f"score {_fmt(record.score)}"
    head = (
        f"item {_fmt(record.item_id)}  [{record.dataset}/{record.aspect}, {record.method}{kind}]\n"
        f"human {_fmt(human)}   {answer} ({record.parse_status}, {_finished(record, record.parse_method)})   "
        f"agreed {_fmt(record.agreed)}   rounds {_fmt(record.rounds)}   stop {_finished(record, record.stop_reason)}"
    )
    if record.confidence is not None:  # and how it was derived
        basis = (record.details or {}).get("confidence_basis")
        head += f"\nconfidence {record.confidence:.2f}" + (f" ({basis})" if basis else "")
    return _format_messages(record, _pairwise_blocks(record, head, full) if record.pairwise else [head], full)


def _format_messages(record: Record, blocks: list[str], full: bool) -> str:
    if record.error:
        blocks.append(f"ERROR: {record.error}")
    try:  # the method's own block (e.g. Fennec's tree), before the messages
        method = get_method(record.method)
    except UserError:  # a plugin's record with the plugin not installed: its messages still show
        method = None
    view = method.record_view(record, full) if method is not None else None
    if view:
        blocks.append(view)
    order = None
    for entry in (message.to_dict() for message in record.transcript):
        if entry.get("order") and entry["order"] != order:
            order = entry["order"]
            shown = "Response A = output_a" if order == "original" else "responses exchanged: Response A = output_b"
            blocks.append(f"=== {order} order ({shown}) ===")
        arrow = f" -> {entry['to']}" if entry.get("to") else ""
        relay = f" ({entry['relay']})" if entry.get("relay") else ""
        usage = entry.get("usage") or {}
        meta = []
        if usage:
            meta.append(f"{usage.get('prompt_tokens', 0)}+{usage.get('completion_tokens', 0)} tokens")
        if entry.get("cached"):
            meta.append("cached")
        answer = entry.get("answer_format")
        if answer:
            meta.append(f"{answer.get('mode')} {answer.get('kind')}, cap {_fmt(answer.get('max_tokens'))}")
        for kind in ("score", "verdict"):  # what the entry's answer was parsed into
            parsed = entry.get(kind)
            if parsed:
                meta.append(f"{kind} {_fmt(parsed.get('value'))} [{parsed.get('status')}/{parsed.get('method')}]")
        if "agreed" in entry:  # a Critic message: whether the debate read it as NO ISSUE
            meta.append("read as NO ISSUE" if entry["agreed"] else "read as an objection")
        title = f"--- [{entry.get('index')}] {entry.get('agent')}{arrow}{relay}"
        if meta:
            title += "  (" + ", ".join(meta) + ")"
        body = _wrapped(str(entry.get("content", "")), full)
        blocks.append(f"{title}\n{body}")
    return "\n\n".join(blocks)
