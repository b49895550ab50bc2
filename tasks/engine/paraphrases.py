"""Paraphrases of judged responses for ``debate-eval robustness --paraphrases N`` (DialEvalML's robust task).

A chosen model (``--paraphrase-model``) is asked once per item for N meaning-preserving rewrites of the judged
text (``tasks/engine/prompts/paraphrase.txt``, method-agnostic); the answer's numbered lines are the rewrites. Every
answer is stored in ``paraphrases.jsonl`` in the robustness folder (item, model, N, the original, the
rewrites, the exchange): a rerun reuses what is stored and asks only for the items missing, so the
paraphrases are cached in the run (and, like every call, in the response cache).

The paraphrased items form a dataset of their own, ``DATASET-paraphrased`` (registered in this process from
that file): item ``ID~pK`` is item ``ID`` with its judged text replaced by rewrite K, with the same human
scores; its built-in templates are the original set's.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseChatMessage, TextMessage

from debate_eval.agents.errors import UserError
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.settings import ModelConfig
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import EVALUATOR, USER
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.tasks.data.registry import Item
from debate_eval.tasks.engine.accounting import item_usage
from debate_eval.tasks.engine.variants import register_variant_items

PARAPHRASES_FILE = "paraphrases.jsonl"
SUFFIX = "paraphrased"
SEPARATOR = "~p"
JUDGED_FIELDS = ("response", "output")  # the judged text of a turn-level item (case-insensitive)
_NUMBERED = re.compile(r"^\s*(\d+)\s*[.)]\s*(.+?)\s*$")
PROMPT_FILE = Path(__file__).parent / "prompts" / "paraphrase.txt"


@cache
def paraphrase_prompt() -> str:
    """The paraphrase request (``prompts/paraphrase.txt``, slots ``{n}`` and ``{text}``), without its final newline."""
    return PROMPT_FILE.read_text(encoding="utf-8").rstrip("\n")


def judged_field(inputs: Mapping[str, str]) -> str:
    """The input that holds the judged response (``response``/``Response``/``output``); a ``UserError`` for a
    dialogue-level item, which has no single response to rewrite."""
    for key in inputs:
        if key.lower() in JUDGED_FIELDS:
            return key
    raise UserError(
        f"--paraphrases: the items have no response to rewrite (inputs: {', '.join(inputs)}); use a turn-level "
        "set (fed_turn, xdial_fed_turn, topical_chat) or your own file with an output column"
    )


def parse_rewrites(answer: str, n: int) -> list[str]:
    """The rewrites in a model's answer: its numbered lines (``1. ...``), else its non-empty lines; at most ``n``."""
    lines = [line for line in answer.splitlines() if line.strip()]
    numbered = [m.group(2) for m in (_NUMBERED.match(line) for line in lines) if m]
    chosen = numbered or [line.strip() for line in lines]
    return [text for text in chosen if text][:n]


def read_stored(path: Path) -> dict[str, dict[str, Any]]:
    """The stored paraphrases by item id (the last line of an item wins); a bad line is one ``UserError``."""
    stored: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return stored
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            stored[str(entry["item_id"])] = entry
        except (json.JSONDecodeError, KeyError, TypeError):
            raise UserError(f"{path}: line {number} (counted from 1) is not a stored paraphrase; remove it") from None
    return stored


async def _paraphrase_one(pool: ClientPool, item: Item, field: str, n: int) -> dict[str, Any]:
    """Ask the model (through the Scorer's settings) for ``n`` rewrites of ``item``'s ``field``; the stored record."""
    calls: list[CallRecord] = []
    client = pool.for_debate("scorer", calls)
    agent = AssistantAgent(EVALUATOR, model_client=client, system_message=None)
    question = paraphrase_prompt().format(n=n, text=item.inputs[field])
    result = await agent.run(task=TextMessage(source=USER, content=question))
    messages = [m for m in result.messages if isinstance(m, BaseChatMessage)]
    for call in calls:  # the agent's calls are made through the Scorer's settings
        call.role = "evaluator"
    transcript = build_transcript(messages, calls, lambda m: None)
    return {
        "item_id": item.item_id,
        "field": field,
        "original": item.inputs[field],
        "paraphrases": parse_rewrites(messages[-1].to_text(), n),
        "usage": item_usage(transcript),
        "transcript": transcript,
    }


async def make_paraphrases(
    items: Sequence[Item],
    n: int,
    models: ModelConfig,
    out_dir: Path,
    *,
    use_cache: bool = True,
    cache_dir: Path | None = None,
    concurrency: int = 8,
    preflight: bool = True,
    field: str | None = None,
) -> dict[str, dict[str, Any]]:
    """The paraphrases of every item (stored ones reused when made by the same model with the same N).

    ``field``: the input to rewrite (default: the item's response or output, ``judged_field``)."""
    from debate_eval.tasks.engine.session import Session, SessionOptions

    path = out_dir / PARAPHRASES_FILE
    model = models.for_role("scorer").model
    stored = read_stored(path)
    fresh = {k: v for k, v in stored.items() if v.get("model") == model and v.get("n") == n}
    missing = [item for item in items if item.item_id not in fresh]
    if missing:
        field = field or judged_field(missing[0].inputs)
        limit = asyncio.Semaphore(concurrency)
        owner = SimpleNamespace(models=models, roles=lambda: ["scorer"])
        out_dir.mkdir(parents=True, exist_ok=True)
        options = SessionOptions(use_cache=use_cache, cache_dir=cache_dir, preflight=preflight, work_dir=out_dir)
        async with await Session.open(owner, options) as session:  # type: ignore[arg-type]
            pool = session.pool

            async def one(item: Item) -> None:
                async with limit:
                    record = {**await _paraphrase_one(pool, item, field, n), "model": model, "n": n}
                with path.open("a", encoding="utf-8") as handle:  # stored as each arrives
                    handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                fresh[item.item_id] = record

            await asyncio.gather(*(one(item) for item in missing))
    return {item.item_id: fresh[item.item_id] for item in items}


def paraphrased_items(items: Sequence[Item], stored: Mapping[str, Mapping[str, Any]], dataset: str) -> list[Item]:
    """Item ``ID~pK`` per rewrite K of item ``ID`` (its group: ``ID``, so the spread per item is a group)."""
    out: list[Item] = []
    for item in items:
        entry = stored.get(item.item_id)
        if not entry:
            continue
        field = str(entry["field"])
        for k, text in enumerate(entry.get("paraphrases") or [], start=1):
            out.append(
                replace(
                    item,
                    item_id=f"{item.item_id}{SEPARATOR}{k}",
                    dataset=dataset,
                    group_id=item.item_id,
                    inputs={**item.inputs, field: str(text)},
                )
            )
    return out


def register_paraphrased(dataset: str, items: Sequence[Item], out_dir: Path) -> str:
    """Write the paraphrased items to ``out_dir/paraphrased_items.jsonl`` and register them (in this process)
    as ``DATASET-paraphrased``; returns that name (``engine.variants``)."""
    return register_variant_items(dataset, items, out_dir, SUFFIX, "paraphrased_items.jsonl", "paraphrased responses")
