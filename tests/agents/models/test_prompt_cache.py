"""Prompt-cache accounting (usage.prompt_tokens_details.cached_tokens) and byte-stable message prefixes."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from pathlib import Path

import pytest
from support.batch_server import ScriptedBatchServer

from debate_eval.agents.models.http_usage import cached_tokens
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.accounting import Accounting, Price, item_usage, load_prices

PRICES = "model,input_per_million,output_per_million,cached_input_per_million,batch\nscripted,2.00,8.00,0.50,0.5\n"


def run(base_url: str, out: Path, *extra: str) -> int:
    return main(
        ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--max-rounds", "2",
         "--model", "scripted", "--base-url", base_url, "--no-cache", "--no-progress", "--no-preflight",
         "--out", str(out), *extra]
    )  # fmt: skip


def test_cached_prompt_tokens_are_read_priced_and_shown(
    isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_env / "prices.csv").write_text(PRICES)
    monkeypatch.setenv("DEBATE_EVAL_PRICES", str(isolated_env / "prices.csv"))
    with ScriptedBatchServer(prompt_cache=True, lifetime_s=600) as server:
        assert run(server.base_url, isolated_env / "run") == 0
    records = [json.loads(line) for line in (isolated_env / "run" / "results.jsonl").read_text().splitlines()]
    prompt = cached = completion = 0
    for record in records:
        calls = [entry for entry in record["transcript"] if entry.get("usage")]
        first = calls[0]["usage"].get("cached_prompt_tokens", 0)  # at most the system message, seen before
        assert first < calls[0]["usage"]["prompt_tokens"] / 10
        assert any(entry["usage"].get("cached_prompt_tokens", 0) > 0 for entry in calls[1:])
        for entry in calls:
            prompt += entry["usage"]["prompt_tokens"]
            cached += entry["usage"].get("cached_prompt_tokens", 0)
            completion += entry["usage"]["completion_tokens"]
    summary = json.loads((isolated_env / "run" / "summary.json").read_text())
    expected = ((prompt - cached) * 2.00 + cached * 0.50 + completion * 8.00) / 1e6
    assert summary["estimated_cost_usd"] == pytest.approx(expected)
    assert f"prompt cache: {cached:,} of {prompt:,} billed prompt tokens" in capsys.readouterr().out


def test_each_agents_messages_grow_by_appending_only(isolated_env: Path) -> None:
    """Byte-stable prefixes: every request of an agent starts with the exact messages of its previous request
    (system message first, then the task, then the history), so providers' prefix caches apply."""
    with ScriptedBatchServer(lifetime_s=600) as server:
        assert run(server.base_url, isolated_env / "run") == 0
        requests = list(server.requests)
    by_agent: dict[str, list[list[str]]] = defaultdict(list)
    for request in requests:
        messages = [json.dumps(m, sort_keys=True, ensure_ascii=False) for m in request["messages"]]
        assert request["messages"][0]["role"] == "system"
        first_user = request["messages"][1]["content"]
        by_agent[request["messages"][0]["content"] + first_user].append(messages)
    assert len(by_agent) == 4  # Scorer and Critic of each of the 2 items
    for calls in by_agent.values():
        assert len(calls) >= 2
        for before, after in itertools.pairwise(calls):
            assert after[: len(before)] == before
            assert len(after) > len(before)


def test_price_rates_and_old_price_files(tmp_path: Path) -> None:
    price = Price(2.0, 8.0, 0.5, 0.5)
    assert price.cost(1000, 400, 100) == pytest.approx((600 * 2 + 400 * 0.5 + 100 * 8) / 1e6)
    assert price.cost(1000, 400, 100, batch=True) == pytest.approx(price.cost(1000, 400, 100) / 2)
    old = tmp_path / "old.csv"
    old.write_text("model,input_per_million,output_per_million\nm,1,2\n")
    assert load_prices(old)["m"] == Price(1.0, 2.0, None, 1.0)  # no discount assumed
    bad = tmp_path / "bad.csv"
    bad.write_text("model,input_per_million,output_per_million,cached_input_per_million,batch\nm,1,2,,1.5\n")
    with pytest.raises(Exception, match=r"bad.csv: data row 1 \(counted from 1\): field batch"):
        load_prices(bad)


def test_usage_splits_batch_and_cached_tokens() -> None:
    transcript = [
        {"role": "scorer", "usage": {"prompt_tokens": 100, "completion_tokens": 10, "cached_prompt_tokens": 60},
         "cached": False, "batch": True},
        {"role": "scorer", "usage": {"prompt_tokens": 50, "completion_tokens": 5}, "cached": True},
    ]  # fmt: skip
    accounting = Accounting()
    accounting.add_item(item_usage(transcript))
    assert (accounting.billed_prompt_tokens, accounting.cached_prompt_tokens, accounting.batch_calls) == (100, 60, 1)
    cost = accounting.cost({"scorer": "m"}, {"m": Price(2.0, 8.0, 0.5, 0.5)})
    assert cost == pytest.approx((40 * 2 + 60 * 0.5 + 10 * 8) / 1e6 * 0.5)
    assert cached_tokens({"prompt_tokens_details": {"cached_tokens": 7}}) == 7
    assert cached_tokens({"prompt_tokens_details": None}) == 0
