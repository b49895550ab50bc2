"""``debate-eval repeat``: the paper's due-diligence check (Appendix E.1).

"We randomly sample five observations and repeat the experiment 20 times to ensure that the results do
not vary." The same items are evaluated ``--times`` times with the response cache off, and the command
reports, per item, the distinct final scores, and how many items did not always get the same score.
Every repetition's record (with its transcript) is written to ``DIR/repeat.jsonl``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError
from debate_eval.tasks.cli.main import command_parser
from debate_eval.tasks.cli.run import (
    add_method_arguments,
    add_model_arguments,
    build_run_config,
    positive_int,
)
from debate_eval.tasks.data.datasets import Item, load_items, resolve_data_dir
from debate_eval.tasks.engine.aspects import is_multi
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.results import write_json_atomic
from debate_eval.tasks.engine.run_config import RunConfig
from debate_eval.tasks.engine.runner import build_tasks, default_concurrency
from debate_eval.tasks.engine.session import Session, SessionOptions, evaluate_one

DESCRIPTION = """The DEBATE paper's due-diligence check (Appendix E.1): evaluate a few random items many times with the
response cache off and count the items whose final score changed."""


def add_subparser(subparsers: Any) -> None:
    """Register ``repeat`` (described by :data:`DESCRIPTION`) and its arguments."""
    parser = command_parser(subparsers, "repeat", handle_repeat, DESCRIPTION)
    group = parser.add_argument_group("what to evaluate")
    group.add_argument("--dataset", required=True)
    group.add_argument("--aspect", required=True)
    group.add_argument("--data-dir")
    group.add_argument("--template")
    group.add_argument("--scale")
    group.add_argument("--items", type=positive_int, default=5, help="how many random items (default 5)")
    group.add_argument("--times", type=positive_int, default=20, help="repetitions per item (default 20)")
    group.add_argument("--sample-seed", type=int, default=0, help="seed of the random choice of items")
    add_method_arguments(parser)
    add_model_arguments(parser)
    parser.add_argument("--out", default="runs/repeat", help="where repeat.jsonl and repeat.json go")
    parser.add_argument("--concurrency", type=positive_int)
    parser.add_argument("--no-preflight", action="store_true", default=None, help="skip the one-request endpoint check")


async def repeat_items(
    config: RunConfig,
    items: Sequence[Item],
    times: int,
    out_dir: Path,
    concurrency: int | None = None,
    preflight: bool = True,
) -> list[dict[str, Any]]:
    """Evaluate every item ``times`` times with no cache; returns every record."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = build_tasks(config, items)
    evaluator = config.evaluator()
    limit = asyncio.Semaphore(concurrency or default_concurrency(config))
    records: list[Record] = []
    options = SessionOptions(use_cache=False, preflight=preflight, work_dir=out_dir)
    async with await Session.open(config, options) as session:
        pool = session.pool

        async def one(repetition: int, item: Item, task: Any) -> None:
            async with limit:
                record = await evaluate_one(evaluator, item, task, config, pool)
            records.append(record.replace(repetition=repetition))

        await asyncio.gather(
            *(one(r, item, task) for r in range(times) for item, task in zip(items, tasks, strict=True))
        )
    return records


def repetition_of(record: Record) -> int:
    """Which repetition of its item a record is (0 for the first)."""
    return int(record.extra.get("repetition", 0))


def summarize(records: Sequence[Record]) -> dict[str, Any]:
    """Per item: the final scores (pairwise: verdicts) seen and how often; and the number of items whose score
    varied."""
    per_item: dict[str | int, Counter[str]] = {}
    for record in records:
        final = record.verdict if record.pairwise else record.score  # a pairwise item's final answer is its verdict
        score = "error" if record.error else str(final)
        per_item.setdefault(record.item_id, Counter())[score] += 1
    varied = [item for item, counts in per_item.items() if len(counts) > 1]
    # every final score that is not its item's most common one
    off_mode = sum(sum(counts.values()) - max(counts.values()) for counts in per_item.values())
    return {
        "items": len(per_item),
        "repetitions": max((repetition_of(record) for record in records), default=-1) + 1,
        "items_with_differing_scores": len(varied),
        "scores_differing_from_the_mode": off_mode,
        "scores": {item: dict(counts) for item, counts in per_item.items()},
    }


def handle_repeat(args: argparse.Namespace) -> int:
    """Run the check and print its report."""
    args.limit = args.docs = None
    if is_multi(args.aspect):
        raise UserError(f"repeat checks one aspect at a time; --aspect {args.aspect} names several (run one each)")
    config = build_run_config(args)
    data = load_items(config.dataset, resolve_data_dir(args.data_dir))
    items = random.Random(args.sample_seed).sample(list(data), min(args.items, len(data)))  # reproducibly
    out_dir = Path(args.out)
    records = asyncio.run(repeat_items(config, items, args.times, out_dir, args.concurrency, not args.no_preflight))
    with (out_dir / "repeat.jsonl").open("w", encoding="utf-8") as handle:
        for record in sorted(records, key=lambda record: (record.item_id, repetition_of(record))):
            handle.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
    report = summarize(records)
    write_json_atomic(out_dir / "repeat.json", report)
    print(f"{report['items']} items x {report['repetitions']} repetitions, response cache off")
    for item, counts in report["scores"].items():
        print(f"  {item}: " + ", ".join(f"{score} x{n}" for score, n in sorted(counts.items())))
    print(
        f"items whose final score differed between repetitions: {report['items_with_differing_scores']}; "
        f"final scores that differ from their item's most common one: {report['scores_differing_from_the_mode']} "
        f"of {len(records)}"
    )
    return 0
