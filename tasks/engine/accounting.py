"""Token, call and cost accounting for a run."""

from __future__ import annotations

import csv
import io
import os
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError

PRICES_ENV = "DEBATE_EVAL_PRICES"


@dataclass(frozen=True)
class Price:
    """US dollars per million prompt and completion tokens; cached prompt tokens at their own rate; calls
    through the Batch API at ``batch`` times the price (OpenAI: 0.5)."""

    input_per_million: float
    output_per_million: float
    cached_input_per_million: float | None = None  # None: the provider gives no discount (input price)
    batch: float = 1.0

    def cost(self, prompt: int, cached_prompt: int, completion: int, *, batch: bool = False) -> float:
        """Dollars for ``prompt`` tokens (``cached_prompt`` of them from the provider's cache) and
        ``completion`` tokens."""
        cached_rate = self.input_per_million if self.cached_input_per_million is None else self.cached_input_per_million
        dollars = (prompt - cached_prompt) * self.input_per_million + cached_prompt * cached_rate
        dollars += completion * self.output_per_million
        return dollars / 1e6 * (self.batch if batch else 1.0)


class PriceTable(dict[str, Price]):
    """The price table's rows by model name; a model not in it gets LiteLLM's price (its ``model_cost`` map)
    once LiteLLM is loaded in the process (the ``litellm`` provider loads it: importing it only to price a
    model would cost seconds), else none. The table's rows override LiteLLM's map."""

    def get(self, model: str, default: Price | None = None) -> Price | None:  # type: ignore[override]
        """The table's price of ``model``, else LiteLLM's, else ``default``."""
        if model in self:
            return self[model]
        found = litellm_price(model)
        return default if found is None else found


def litellm_price(model: str) -> Price | None:
    """``model``'s price in LiteLLM's ``model_cost`` map (its name, or the name after a ``provider/``
    prefix; per million tokens, cached input and the batch factor where the map has them), None when LiteLLM
    is not loaded or has no price for it."""
    litellm = sys.modules.get("litellm")
    costs = getattr(litellm, "model_cost", None)
    if not model or not isinstance(costs, Mapping):
        return None
    for name in (model, model.split("/", 1)[-1]):
        entry = costs.get(name)
        if isinstance(entry, Mapping) and entry.get("input_cost_per_token") is not None:
            prompt = float(entry["input_cost_per_token"])
            cached = entry.get("cache_read_input_token_cost")
            batch = entry.get("input_cost_per_token_batches")
            return Price(
                prompt * 1e6,
                float(entry.get("output_cost_per_token") or 0.0) * 1e6,
                float(cached) * 1e6 if cached is not None else None,
                float(batch) / prompt if batch is not None and prompt > 0 and 0 < float(batch) <= prompt else 1.0,
            )
    return None


def load_prices(path: Path | None = None) -> PriceTable:
    """The price table: ``path``, else ``$DEBATE_EVAL_PRICES``, else the packaged ``prices.csv``; models not
    in it priced by LiteLLM when it is installed (``PriceTable``)."""
    if path is None and os.environ.get(PRICES_ENV):
        path = Path(os.environ[PRICES_ENV])
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"{path}: cannot read the price table: {exc.strerror}") from None
        source = str(path)
    else:
        text = (resources.files("debate_eval.tasks.engine") / "prices.csv").read_text(encoding="utf-8")
        source = "prices.csv"
    rows = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    prices = PriceTable()
    for number, row in enumerate(csv.DictReader(io.StringIO("\n".join(rows))), start=1):
        prices[(row.get("model") or "").strip()] = _price(row, source, number)
    return prices


def _price(row: Mapping[str, str | None], source: str, number: int) -> Price:
    """One row (``number`` counted from 1 after the header); the cached and batch columns are optional."""
    columns = "model,input_per_million,output_per_million[,cached_input_per_million,batch]"
    try:
        cached = (row.get("cached_input_per_million") or "").strip()
        batch = (row.get("batch") or "").strip()
        price = Price(
            float(row["input_per_million"] or ""),
            float(row["output_per_million"] or ""),
            float(cached) if cached else None,
            float(batch) if batch else 1.0,
        )
    except (KeyError, TypeError, ValueError):
        raise UserError(f"{source}: data row {number} (counted from 1): expected columns {columns}") from None
    if not (row.get("model") or "").strip() or min(price.input_per_million, price.output_per_million) < 0:
        raise UserError(f"{source}: data row {number} (counted from 1): a model name and prices >= 0 are needed")
    if not 0 < price.batch <= 1 or (price.cached_input_per_million or 0) < 0:
        raise UserError(
            f"{source}: data row {number} (counted from 1): field batch must be in (0, 1], "
            "cached_input_per_million >= 0"
        )
    return price


@dataclass
class RoleUsage:
    """Tokens and calls of one role."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    # prompt tokens of calls that reached the model (not answered from the cache): every token of the prompt,
    # cached ones included (OpenAI's prompt_tokens; Anthropic's input_tokens + cache reads + cache writes, see
    # agents/models/providers/anthropic/messages_response.py)
    billed_prompt_tokens: int = 0
    billed_completion_tokens: int = 0
    billed_cached_prompt_tokens: int = 0  # of the billed prompt tokens, those the provider's prefix cache served
    batch_calls: int = 0  # billed calls made through the Batch API (priced at the batch rate)
    batch_prompt_tokens: int = 0
    batch_cached_prompt_tokens: int = 0
    batch_completion_tokens: int = 0

    def add(self, usage: Mapping[str, Any]) -> None:
        """Add one item's usage of this role."""
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + int(usage.get(name) or 0))


@dataclass
class Accounting:
    """Usage summed over items, per role, with the model each role used."""

    roles: dict[str, RoleUsage] = field(default_factory=dict)

    def add_item(self, usage_by_role: Mapping[str, Mapping[str, Any]]) -> None:
        """Add one item's ``usage`` field."""
        for role, usage in usage_by_role.items():
            self.roles.setdefault(role, RoleUsage()).add(usage)

    @property
    def llm_calls(self) -> int:
        """Calls that reached a model."""
        return sum(u.calls - u.cached_calls for u in self.roles.values())

    @property
    def cached_calls(self) -> int:
        """Calls answered from the response cache."""
        return sum(u.cached_calls for u in self.roles.values())

    def cost(self, model_of_role: Mapping[str, str], prices: Mapping[str, Price]) -> float | None:
        """Estimated dollars for the billed tokens; None if some role's model has no price."""
        total = 0.0
        for role, usage in self.roles.items():
            price = prices.get(model_of_role.get(role, ""))
            if price is None:
                return None
            total += price.cost(
                usage.billed_prompt_tokens - usage.batch_prompt_tokens,
                usage.billed_cached_prompt_tokens - usage.batch_cached_prompt_tokens,
                usage.billed_completion_tokens - usage.batch_completion_tokens,
            )
            total += price.cost(
                usage.batch_prompt_tokens, usage.batch_cached_prompt_tokens, usage.batch_completion_tokens, batch=True
            )
        return total

    @property
    def billed_prompt_tokens(self) -> int:
        """Prompt tokens of the calls that reached a model."""
        return sum(u.billed_prompt_tokens for u in self.roles.values())

    @property
    def cached_prompt_tokens(self) -> int:
        """Of those, the tokens the provider served from its prompt cache."""
        return sum(u.billed_cached_prompt_tokens for u in self.roles.values())

    @property
    def batch_calls(self) -> int:
        """Calls answered through the Batch API."""
        return sum(u.batch_calls for u in self.roles.values())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready totals."""
        return {role: vars(usage).copy() for role, usage in sorted(self.roles.items())}


def _call_usage(
    prompt: int, completion: int, cached: bool, cached_prompt: int = 0, batch: bool = False
) -> dict[str, int]:
    billed = not cached
    cached_prompt = min(cached_prompt, prompt) if billed else 0
    in_batch = billed and batch
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "calls": 1,
        "cached_calls": int(cached),
        "billed_prompt_tokens": prompt if billed else 0,
        "billed_completion_tokens": completion if billed else 0,
        "billed_cached_prompt_tokens": cached_prompt,
        "batch_calls": int(in_batch),
        "batch_prompt_tokens": prompt if in_batch else 0,
        "batch_cached_prompt_tokens": cached_prompt if in_batch else 0,
        "batch_completion_tokens": completion if in_batch else 0,
    }


def item_usage(transcript: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Per-role usage of one item, from its transcript entries."""
    totals: dict[str, RoleUsage] = {}
    for entry in transcript:
        usage = entry.get("usage")
        if not usage:
            continue
        prompt = int(usage.get("prompt_tokens") or 0)
        completion = int(usage.get("completion_tokens") or 0)
        cached = bool(entry.get("cached"))
        call = _call_usage(
            prompt, completion, cached, int(usage.get("cached_prompt_tokens") or 0), bool(entry.get("batch"))
        )
        totals.setdefault(str(entry["role"]), RoleUsage()).add(call)
    return {name: vars(usage).copy() for name, usage in totals.items()}


def calls_usage(calls: Iterable[Any]) -> dict[str, dict[str, int]]:
    """Per-role usage of one item, from its ``CallRecord``s (for an item that failed before its transcript)."""
    totals: dict[str, RoleUsage] = {}
    for call in calls:
        usage = _call_usage(
            int(call.prompt_tokens or 0),
            int(call.completion_tokens or 0),
            bool(call.cached),
            int(getattr(call, "cached_prompt_tokens", 0) or 0),
            bool(getattr(call, "batch", False)),
        )
        totals.setdefault(str(call.role), RoleUsage()).add(usage)
    return {name: vars(usage).copy() for name, usage in totals.items()}


def usage_calls(usage: Mapping[str, Mapping[str, Any]]) -> tuple[int, int]:
    """Calls that reached a model, and calls answered from the cache, in one item's ``usage``."""
    calls = sum(int(u.get("calls") or 0) for u in usage.values())
    cached = sum(int(u.get("cached_calls") or 0) for u in usage.values())
    return calls - cached, cached


def cache_and_batch_lines(accounting: Accounting, transport: Mapping[str, Any]) -> list[str]:
    """Summary lines: the share of billed prompt tokens served by the provider's prompt cache, and the batches
    (``transport``: ``TransportStats.to_dict()`` of this invocation)."""
    lines = []
    billed, cached = accounting.billed_prompt_tokens, accounting.cached_prompt_tokens
    if billed and cached:
        lines.append(
            f"prompt cache: {cached:,} of {billed:,} billed prompt tokens ({100 * cached / billed:.1f}%) served from "
            "the provider's cache (usage.prompt_tokens_details.cached_tokens; Anthropic: cache_read_input_tokens), "
            "priced at cached_input_per_million"
        )
    elif billed:
        lines.append(
            "prompt cache: the endpoint reported no cached prompt tokens (usage.prompt_tokens_details; "
            "Anthropic: cache_read_input_tokens)"
        )
    batch = transport.get("batch")
    if batch or accounting.batch_calls:
        batch = batch or {}
        lines.append(
            f"batch: {accounting.batch_calls} calls priced at the batch rate; this invocation "
            f"{batch.get('batches', 0)} batches submitted ({batch.get('requests', 0)} requests), "
            f"{batch.get('resumed', 0)} resumed from an earlier invocation, {batch.get('failed_lines', 0)} failed "
            "lines (retried in a later batch)"
        )
    return lines
