"""What a judging costs, before and after the first run of a judge.

- **Before** (no base run yet): one item is judged against the scripted test server in this process (every
  answer parses, no Critic ever agrees: the usual path at its longest), which gives the calls of one judging
  and their prompt tokens (counted as the model's tokenizer counts them, ``agents.models.token_estimate``),
  for any method, plugins included, with no model call. Completions are assumed ``ASSUMED_ANSWER_TOKENS``
  tokens each (or ``--max-tokens``, when lower), so the dollar estimate is rough.
- **After**: the base run's own records: calls and tokens per judging as they were (cached calls counted as
  if paid), priced with the run's price table (``tasks/engine/prices.csv`` or ``$DEBATE_EVAL_PRICES``).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.settings import ROLES
from debate_eval.agents.models.token_estimate import count_prompt_tokens
from debate_eval.tasks.data.registry import Item
from debate_eval.tasks.engine.accounting import Price, load_prices
from debate_eval.tasks.engine.build import build_run_config
from debate_eval.tasks.engine.record import Record
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.run_config import RunConfig
from debate_eval.tasks.engine.runner import build_tasks
from debate_eval.tasks.engine.session import Session, SessionOptions

ASSUMED_ANSWER_TOKENS = 300


@dataclass(frozen=True)
class JudgingCost:
    """Calls, tokens and dollars of one judging of one item (``usd`` None: a model without a price)."""

    calls: float
    prompt_tokens: float
    completion_tokens: float
    usd: float | None
    measured: bool  # from the base run's records (else from the scripted dry run)

    def describe(self) -> str:
        """How the figures were obtained."""
        if self.measured:
            return "measured on the base run (cached calls counted as paid)"
        return (
            "a dry run of one item on the scripted server (every answer parses, the longest usual path); "
            f"answers assumed {ASSUMED_ANSWER_TOKENS} tokens: rough"
        )


def role_models(config: RunConfig, usage_roles: Sequence[str] = ()) -> dict[str, str]:
    """The model of each role a run calls (a role outside the model roles uses the Scorer's)."""
    roles = {*config.roles(), "evaluator", *usage_roles}
    return {role: config.models.for_role(role).model for role in roles}


def unpriced(models: Mapping[str, str], prices: Mapping[str, Price]) -> list[str]:
    """The models without a price (sorted, once each)."""
    return sorted({model for model in models.values() if model not in prices})


def measured_cost(records: Iterable[Record], config: RunConfig) -> JudgingCost | None:
    """The mean judging of the base run's finished records (None when it has none)."""
    finished = [record for record in records if record.ok and isinstance(record.usage, Mapping)]
    if not finished:
        return None
    prices = load_prices()
    models = role_models(config, [role for record in finished for role in record.usage])
    calls = prompt = completion = 0.0
    usd: float | None = 0.0
    for record in finished:
        for role, usage in record.usage.items():
            p, c = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
            calls += int(usage.get("calls") or 0)
            prompt, completion = prompt + p, completion + c
            price = prices.get(models.get(role) or models.get("scorer", ""))
            usd = None if usd is None or price is None else usd + price.cost(p, 0, c)
    n = len(finished)
    return JudgingCost(calls / n, prompt / n, completion / n, None if usd is None else usd / n, measured=True)


def dry_run_cost(request: RunRequest, item: Item) -> JudgingCost:
    """Judge ``item`` once against a scripted server in this process (no model call) and price it."""
    config = build_run_config(request)
    with ScriptedOpenAIServer() as server:
        models = {role: config.models.for_role(role).model for role in config.roles() if role in ROLES}
        dry = request.with_options(
            provider="openai",  # every role to the scripted server over the OpenAI wire, with its resolved model
            base_url=server.base_url,
            model=config.models.for_role("scorer").model,
            role_model={role: model for role, model in models.items() if role != "scorer"},
            role_base_url={},
            role_provider={},
            batch=False,
        )
        dry_config = build_run_config(dry)
        task = build_tasks(dry_config, [item])[0]

        async def judge() -> None:
            with tempfile.TemporaryDirectory(prefix="debate-eval-dry-") as folder:
                options = SessionOptions(use_cache=False, preflight=False, work_dir=Path(folder))
                async with await Session.open(dry_config, options) as session:
                    await session.judge(task, item)

        asyncio.run(judge())
        requests = list(server.requests)
    max_tokens = config.models.for_role("scorer").sampling.max_tokens
    answer = min(ASSUMED_ANSWER_TOKENS, max_tokens) if max_tokens else ASSUMED_ANSWER_TOKENS
    model = config.models.for_role("scorer").model
    prompt = float(sum(count_prompt_tokens(r.get("messages") or [], model) for r in requests))
    completion = float(answer * len(requests))
    prices = load_prices()
    price = prices.get(model)
    models = role_models(config)
    usd = None
    if not unpriced(models, prices) and price is not None:
        usd = price.cost(int(prompt), 0, int(completion))
    return JudgingCost(float(len(requests)), prompt, completion, usd, measured=False)
