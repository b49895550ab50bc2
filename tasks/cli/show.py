"""``debate-eval show``: read a run's transcripts in the terminal."""

from __future__ import annotations

import argparse
import json
import textwrap
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.answer_format import describe_answers
from debate_eval.agents.redaction import redact_record
from debate_eval.debates.base import get_method
from debate_eval.tasks.data.printable import escaped
from debate_eval.tasks.engine.compat import method_of
from debate_eval.tasks.engine.results import CONFIG_FILE, RESULTS_FILE, read_jsonl

WIDTH = 100


def add_subparser(subparsers: Any) -> None:
    """Register ``show``."""
    parser = subparsers.add_parser(
        "show",
        help="print a run's items, or one item's transcript",
        description="Without --item: the run's template and one line per item (human score, score, Critic "
        "agreement, rounds, parse status). With --item: that item's whole transcript, message by message, with "
        "the score parsed from each answer and the rule that found it.",
    )
    parser.add_argument("run_dir", help="a run directory (or its results.jsonl)")
    parser.add_argument("--item", help="item id (or a unique prefix / its position in the list, 1-based)")
    parser.add_argument("--full", action="store_true", help="do not shorten long messages")
    parser.set_defaults(handler=handle_show)


def _results_path(run_dir: str) -> Path:
    path = Path(run_dir)
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.is_file():
        raise UserError(f"{path}: no results file (run `debate-eval run ... --out DIR` first)")
    return path


def handle_show(args: argparse.Namespace) -> int:
    """Print the item table or one transcript."""
    path = _results_path(args.run_dir)
    records, _ = redact_record(read_jsonl(path))  # a file of an earlier version may hold one
    answers = answers_line(path.parent / CONFIG_FILE)
    if answers:
        print(answers)
    if args.item is None:
        header = template_line(path.parent / "config.json")
        if header:
            print(header)
        print(escaped(format_table(records), lines=True))
    else:
        print(escaped(format_transcript(find_record(records, args.item), full=args.full), lines=True))
    return 0


def template_line(config_file: Path) -> str | None:
    """``template: SOURCE (scale LO-HI)`` from a run's ``config.json`` (a ``--criteria`` run shows its
    sentence); None without one."""
    try:
        template = json.loads(config_file.read_text(encoding="utf-8"))["result_config"]["template"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(template, dict) or not template.get("source"):
        return None
    return f"template: {template['source']} (scale {template.get('scale', '?')})"


def answers_line(config_path: Path) -> str | None:
    """``answers: ...`` when the run's config.json says some answers were constrained (``--answer-format``),
    else None (free answers, or no readable config.json)."""
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    answers = (config.get("result_config") or {}).get("answers") if isinstance(config, dict) else None
    return f"answers: {describe_answers(answers)}" if answers else None


def find_record(records: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The record whose item id is ``key``, starts with it uniquely, or sits at position ``key``."""
    exact = [r for r in records if r.get("item_id") == key]
    if exact:
        return exact[-1]
    if key.isdigit() and 1 <= int(key) <= len(records):
        return records[int(key) - 1]
    prefixed = {r["item_id"]: r for r in records if str(r.get("item_id", "")).startswith(key)}
    if len(prefixed) == 1:
        return next(iter(prefixed.values()))
    hint = f"{len(prefixed)} items start with it" if prefixed else "no item has that id"
    raise UserError(f"--item {key!r}: {hint}; run `debate-eval show DIR` to list the items")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    return escaped(value)  # a field of the data or the record: no control character reaches the terminal


def _status(record: dict[str, Any]) -> str:
    return "error: " + escaped(record["error"])[:60] if record.get("error") else _fmt(record.get("parse_status", ""))


def _is_pairwise(record: dict[str, Any]) -> bool:
    return record.get("task_type") == "pairwise"


def _orders(record: dict[str, Any]) -> str:
    verdicts = record.get("verdicts") or {}
    if not verdicts:
        return "-"
    return f"{_fmt(verdicts.get('original'))}/{_fmt(verdicts.get('swapped'))}"


def format_pairwise_table(records: list[dict[str, Any]]) -> str:
    """One line per pairwise item: position, id, human label, verdict, both orders' verdicts, rounds, status."""
    lines = [f"{'#':>4}  {'item':<44} {'human':>7} {'verdict':>7} {'orders':>13} {'rounds':>6}  status"]
    for number, record in enumerate(records, start=1):
        status = _status(record)
        if record.get("consistent") is not None:
            status += "  consistent" if record["consistent"] else "  inconsistent"
        lines.append(
            f"{number:>4}  {_fmt(record.get('item_id'))[:44]:<44} {_fmt(record.get('human_label')):>7} "
            f"{_fmt(record.get('verdict')):>7} {_orders(record):>13} {_fmt(record.get('rounds')):>6}  {status}"
        )
    lines.append(f"{len(records)} items; `debate-eval show DIR --item N` prints one transcript")
    return "\n".join(lines)


def format_table(records: list[dict[str, Any]]) -> str:
    """One line per item: position, id, human score, machine score, agreement, rounds, status."""
    if records and all(_is_pairwise(r) for r in records):
        return format_pairwise_table(records)
    lines = [f"{'#':>4}  {'item':<58} {'human':>6} {'score':>6} {'agreed':>6} {'rounds':>6}  status"]
    several_aspects = len({r.get("aspect") for r in records}) > 1  # a multi-aspect run (--aspect a,b / all)
    for number, record in enumerate(records, start=1):
        status = _status(record)
        label = _fmt(record.get("item_id"))
        if several_aspects:  # the aspect stays whole; a long id gives way (SummEval's ids are 52 characters)
            tag = f" [{_fmt(record.get('aspect'))}]"
            label = label[: max(0, 58 - len(tag))] + tag
        lines.append(
            f"{number:>4}  {label[:58]:<58} {_fmt(record.get('human_score')):>6} "
            f"{_fmt(record.get('score')):>6} {_fmt(record.get('agreed')):>6} {_fmt(record.get('rounds')):>6}  {status}"
        )
    lines.append(f"{len(records)} items; `debate-eval show DIR --item N` prints one transcript")
    return "\n".join(lines)


def _shorten(text: str, full: bool) -> str:
    if full or len(text) <= 1500:
        return text
    return f"{text[:700]}\n[... {len(text) - 1400} characters not shown; --full shows all ...]\n{text[-700:]}"


def _pairwise_head(record: dict[str, Any], full: bool) -> list[str]:
    """The verdicts and both responses of a pairwise record."""
    head = (
        f"item {_fmt(record.get('item_id'))}  [{record.get('dataset')}/{record.get('aspect')}, "
        f"{method_of(record)}, pairwise]\nhuman {_fmt(record.get('human_label'))}   "
        f"verdict {_fmt(record.get('verdict'))} "
        f"({record.get('parse_status')}, {record.get('parse_method', '-')})   agreed {_fmt(record.get('agreed'))}   "
        f"rounds {_fmt(record.get('rounds'))}   stop {record.get('stop_reason', '-')}"
    )
    if record.get("verdicts"):
        verdicts = record["verdicts"]
        head += (
            f"\nboth orders (in the original order): original {_fmt(verdicts.get('original'))}, "
            f"swapped {_fmt(verdicts.get('swapped'))}   consistent {_fmt(record.get('consistent'))}"
        )
    if record.get("parse_reason"):
        head += f"\n{record['parse_reason']}"
    blocks = [head]
    inputs = record.get("inputs") or {}
    for key, title in (
        ("question", "Question"),
        ("input", "Input"),
        ("output_a", "Response A"),
        ("output_b", "Response B"),
    ):
        text = str(inputs.get(key) or "")
        if text or key != "input":
            body = "\n".join(
                textwrap.fill(line, WIDTH, replace_whitespace=False) if line else ""
                for line in _shorten(text, full).splitlines()
            )
            blocks.append(f"=== {title} ===\n{body}")
    return blocks


def format_transcript(record: dict[str, Any], *, full: bool = False) -> str:
    """Every message of one item, with speaker, addressee, usage and parsed scores (pairwise: the question,
    both responses and each order's verdicts first)."""
    if _is_pairwise(record):
        return _format_messages(record, _pairwise_head(record, full), full)
    head = (
        f"item {_fmt(record.get('item_id'))}  [{record.get('dataset')}/{record.get('aspect')}, "
        f"{method_of(record)}]\n"
        f"human {_fmt(record.get('human_score'))}   score {_fmt(record.get('score'))} "
        f"({record.get('parse_status')}, {record.get('parse_method', '-')})   agreed {_fmt(record.get('agreed'))}   "
        f"rounds {_fmt(record.get('rounds'))}   stop {record.get('stop_reason', '-')}"
    )
    return _format_messages(record, [head], full)


def _method_view(record: dict[str, Any], full: bool) -> str | None:
    try:
        method = get_method(method_of(record))
    except UserError:  # a plugin's record with the plugin not installed: its messages still show
        return None
    return method.record_view(record, full)


def _format_messages(record: dict[str, Any], blocks: list[str], full: bool) -> str:
    if record.get("error"):
        blocks.append(f"ERROR: {record['error']}")
    view = _method_view(record, full)  # the method's own block (e.g. Fennec's tree), before the messages
    if view:
        blocks.append(view)
    order = None
    for entry in record.get("transcript") or []:
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
        score = entry.get("score")
        if score:
            meta.append(f"score {_fmt(score.get('value'))} [{score.get('status')}/{score.get('method')}]")
        verdict = entry.get("verdict")
        if verdict:
            meta.append(f"verdict {_fmt(verdict.get('value'))} [{verdict.get('status')}/{verdict.get('method')}]")
        title = f"--- [{entry.get('index')}] {entry.get('agent')}{arrow}{relay}"
        if meta:
            title += "  (" + ", ".join(meta) + ")"
        body = "\n".join(
            textwrap.fill(line, WIDTH, replace_whitespace=False) if line else ""
            for line in _shorten(str(entry.get("content", "")), full).splitlines()
        )
        blocks.append(f"{title}\n{body}")
    return "\n\n".join(blocks)
