"""Anthropic Messages API answers read by the run's HTTP client (``messages_response.py``): prompt-cache usage
(``cache_read_input_tokens``, ``cache_creation_input_tokens``) and empty answers, against the local Anthropic
wire fake (``wire_fakes.AnthropicFake``), through the provider's client and through the command line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
import pytest
from autogen_core.models import SystemMessage, UserMessage
from wire_fakes import AnthropicFake

from debate_eval.agents.models.http_usage import CallMeta, observing_call
from debate_eval.agents.models.pool import build_client, provider_http_client
from debate_eval.agents.models.providers import get_provider
from debate_eval.agents.models.providers.anthropic.messages_response import is_empty_answer
from debate_eval.agents.models.responses import EmptyAnswerError
from debate_eval.agents.models.settings import ModelOverrides, resolve_model_config
from debate_eval.tasks.cli.main import main

KEY = {"ANTHROPIC_API_KEY": "sk-ant-fake"}
MESSAGES = [SystemMessage(content="You are a careful judge."), UserMessage(content="Rate this text.", source="user")]
FAKE_PROMPT_TOKENS = 8  # the fake counts the words of the system and user messages above
PRICES = "model,input_per_million,output_per_million,cached_input_per_million\nclaude-sonnet-4-6,3.00,15.00,0.30\n"


def ask(fake: AnthropicFake) -> tuple[Any, CallMeta]:
    """One call through the provider's client as a run builds it (over the run's HTTP client), inside an
    observed call as ``ObservedClient`` opens one; the result and the call's meta."""
    overrides = ModelOverrides(provider="anthropic", base_url=fake.base_url, model="claude-sonnet-4-6")
    config = resolve_model_config(overrides, KEY)
    settings = config.for_role("scorer")
    url = get_provider("anthropic").base_url(settings, None)

    async def go() -> tuple[Any, CallMeta]:
        client = build_client(settings, url, provider_http_client())
        try:
            with observing_call() as meta:
                return await client.create(MESSAGES), meta
        finally:
            await client.close()

    return asyncio.run(go())


@pytest.fixture
def anthropic_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-fake")


@pytest.mark.parametrize(
    ("content", "empty"),
    [
        ([], True),
        ([{"type": "text", "text": ""}], True),
        ([{"type": "text", "text": " \n"}, {"type": "text", "text": ""}], True),
        ([{"type": "thinking", "thinking": "hm", "signature": "s"}], True),
        ([{"type": "text", "text": "Score: 3"}], False),
        ([{"type": "text", "text": ""}, {"type": "tool_use", "id": "t", "name": "answer", "input": {}}], False),
    ],
)
def test_what_counts_as_an_empty_answer(content: list[dict[str, Any]], empty: bool) -> None:
    assert is_empty_answer({"type": "message", "content": content}) is empty


def test_cache_reads_and_writes_count_as_prompt_tokens_and_reads_as_cached(anthropic_key: None) -> None:
    with AnthropicFake(cache_read=120, cache_creation=30) as fake:
        result, meta = ask(fake)
    # input_tokens (8) leaves the cache out: the prompt is 8 + 30 written + 120 read
    assert result.usage.prompt_tokens == FAKE_PROMPT_TOKENS + 30 + 120
    assert meta.cached_prompt_tokens == 120 and meta.uncounted_prompt_tokens == 0  # taken by the provider
    with AnthropicFake(cache_read=0, cache_creation=0) as fake:
        result, meta = ask(fake)
    assert result.usage.prompt_tokens == FAKE_PROMPT_TOKENS and meta.cached_prompt_tokens == 0
    with AnthropicFake() as fake:  # an answer without the cache fields (as before the API had them)
        result, meta = ask(fake)
    assert result.usage.prompt_tokens == FAKE_PROMPT_TOKENS and meta.cached_prompt_tokens == 0


@pytest.mark.parametrize(
    ("content", "stop", "finish", "hint"),
    [
        ([], "end_turn", "end_turn", "a rerun asks again"),
        ([{"type": "text", "text": "  "}], "max_tokens", "length", "raise --max-tokens"),
    ],
)
def test_an_empty_claude_answer_is_an_empty_answer_error(
    anthropic_key: None, content: list[dict[str, Any]], stop: str, finish: str, hint: str
) -> None:
    with AnthropicFake(content=content, stop_reason=stop) as fake, pytest.raises(EmptyAnswerError) as caught:
        ask(fake)
    error = caught.value
    assert not isinstance(error, openai.APIConnectionError)  # final, as for chat completions: not retried
    assert error.finish_reason == finish and hint in error.message and f"stop_reason={stop}" in error.message
    assert "sk-ant-fake" not in error.message and error.message.startswith("the model at http://127.0.0.1:")
    assert len(fake.posts()) == 1


def _run(fake: AnthropicFake, out: Path, *extra: str) -> int:
    return main(
        ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--max-rounds", "1",
         "--provider", "anthropic", "--base-url", fake.base_url, "--model", "claude-sonnet-4-6",
         "--no-progress", "--no-preflight", "--out", str(out), *extra]
    )  # fmt: skip


def test_summary_and_cost_see_claudes_cached_tokens(
    anthropic_key: None, isolated_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (isolated_env / "prices.csv").write_text(PRICES, encoding="utf-8")
    monkeypatch.setenv("DEBATE_EVAL_PRICES", str(isolated_env / "prices.csv"))
    out = isolated_env / "run"
    with AnthropicFake(cache_read=100, cache_creation=10) as fake:
        assert _run(fake, out, "--no-cache") == 0
    prompt = cached = completion = calls = 0
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        for entry in json.loads(line)["transcript"]:
            if entry.get("usage"):
                calls += 1
                assert entry["usage"]["cached_prompt_tokens"] == 100
                assert entry["usage"]["prompt_tokens"] > 110  # input_tokens + 10 written + 100 read
                prompt += entry["usage"]["prompt_tokens"]
                cached += entry["usage"]["cached_prompt_tokens"]
                completion += entry["usage"]["completion_tokens"]
    assert calls == 6 and cached == 600
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    expected = ((prompt - cached) * 3.00 + cached * 0.30 + completion * 15.00) / 1e6
    assert summary["estimated_cost_usd"] == pytest.approx(expected)
    printed = capsys.readouterr().out
    assert f"prompt cache: {cached:,} of {prompt:,} billed prompt tokens" in printed
    assert "Anthropic: cache_read_input_tokens" in printed


def test_an_empty_claude_answer_fails_its_item_is_not_cached_and_a_rerun_asks_again(
    anthropic_key: None, isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    with AnthropicFake(content=[]) as fake:  # the response cache is on
        assert _run(fake, out) == 1
        asked = len(fake.posts())
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(records) == 2 and asked == 2  # one call per item: not retried
    assert all(r["error"].startswith("EmptyAnswerError: the model at http://127.0.0.1:") for r in records)
    assert "Traceback" not in capsys.readouterr().err
    with AnthropicFake() as fake:
        assert _run(fake, out) == 0
        assert len(fake.posts()) == 6  # asked again: the empty answers were not cached
    records = [json.loads(line) for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["item_id"]: r["score"] for r in records if r["error"] is None}.keys() == {r["item_id"] for r in records}
