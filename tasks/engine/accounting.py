"""Token, call and cost accounting for a run."""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from debate_eval.agents.errors import UserError

PRICES_ENV = "DEBATE_EVAL_PRICES"


@dataclass(frozen=True)
class Price:
    """US dollars per million prompt and completion tokens."""

    input_per_million: float
    output_per_million: float


def load_prices(path: Path | None = None) -> dict[str, Price]:
    """The price table: ``path``, else ``$DEBATE_EVAL_PRICES``, else the packaged ``prices.csv``."""
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
    prices: dict[str, Price] = {}
    for number, row in enumerate(csv.DictReader(io.StringIO("\n".join(rows))), start=2):
        try:
            prices[row["model"].strip()] = Price(float(row["input_per_million"]), float(row["output_per_million"]))
        except (KeyError, TypeError, ValueError):
            raise UserError(
                f"{source}: data row {number - 1}: expected columns model,input_per_million,output_per_million"
            ) from None
    return prices


@dataclass
class RoleUsage:
    """Tokens and calls of one role."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    billed_prompt_tokens: int = 0  # tokens of calls that reached the model (not answered from the cache)
    billed_completion_tokens: int = 0

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
            total += usage.billed_prompt_tokens * price.input_per_million / 1e6
            total += usage.billed_completion_tokens * price.output_per_million / 1e6
        return total

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready totals."""
        return {role: vars(usage).copy() for role, usage in sorted(self.roles.items())}


def _call_usage(prompt: int, completion: int, cached: bool) -> dict[str, int]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "calls": 1,
        "cached_calls": int(cached),
        "billed_prompt_tokens": 0 if cached else prompt,
        "billed_completion_tokens": 0 if cached else completion,
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
        totals.setdefault(str(entry["role"]), RoleUsage()).add(_call_usage(prompt, completion, cached))
    return {name: vars(usage).copy() for name, usage in totals.items()}


def calls_usage(calls: Iterable[Any]) -> dict[str, dict[str, int]]:
    """Per-role usage of one item, from its ``CallRecord``s (for an item that failed before its transcript)."""
    totals: dict[str, RoleUsage] = {}
    for call in calls:
        usage = _call_usage(int(call.prompt_tokens or 0), int(call.completion_tokens or 0), bool(call.cached))
        totals.setdefault(str(call.role), RoleUsage()).add(usage)
    return {name: vars(usage).copy() for name, usage in totals.items()}


def usage_calls(usage: Mapping[str, Mapping[str, Any]]) -> tuple[int, int]:
    """Calls that reached a model, and calls answered from the cache, in one item's ``usage``."""
    calls = sum(int(u.get("calls") or 0) for u in usage.values())
    cached = sum(int(u.get("cached_calls") or 0) for u in usage.values())
    return calls - cached, cached
