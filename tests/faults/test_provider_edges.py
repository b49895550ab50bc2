"""Provider edges: an Anthropic refusal is no score (its partial "Score: 5" included), and
``--structured-output`` with a model name AutoGen does not know either works or is refused before the first
item, and with a retired model that takes no tools is refused before any request; written config that holds
a secret is masked (``--dump-config``, the served-model fingerprint).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import FAKE_KEY, Outcome

sys.path.insert(0, str(Path(__file__).parents[1] / "agents" / "models"))
from wire_fakes import AnthropicFake  # the Messages API fake of the provider tests

pytest.importorskip("anthropic")
ANTHROPIC_KEY = "sk-ant-fake"


def anthropic_run(fake: AnthropicFake, out: Path, model: str, *extra: str) -> list[str]:
    return [
        "run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--method", "geval",
        "--provider", "anthropic", "--base-url", fake.base_url, "--model", model, "--out", str(out),
        "--no-progress", "--no-cache", "--max-retries", "0", *extra,
    ]  # fmt: skip


def test_an_anthropic_refusal_is_no_score_and_says_why(
    isolated_env: Path, cli: Callable[[list[str]], Outcome], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    refusal = [{"type": "text", "text": "I will not grade this. Score: 5"}]
    with AnthropicFake(stop_reason="refusal", content=refusal) as fake:
        outcome = cli(anthropic_run(fake, isolated_env / "out", "claude-sonnet-4-6"))
    assert "Traceback" not in outcome.output
    records = outcome.records()
    assert len(records) == 2, outcome.output[-2000:]
    for record in records:  # before: scored 5, the transcript's finish reason "unknown"
        assert record["score"] is None
        assert "stop_reason=refusal" in str(record["error"]), record["error"]


def test_structured_output_with_a_model_name_autogen_does_not_know(
    isolated_env: Path, cli: Callable[[list[str]], Outcome], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    with AnthropicFake(served_model="claude-house-judge-7") as fake:
        args = anthropic_run(fake, isolated_env / "out", "claude-house-judge-7", "--structured-output")
        outcome = cli(args)
    assert "Traceback" not in outcome.output and "does not support function calling" not in outcome.output
    records = outcome.records()
    assert outcome.code == 0, outcome.output[-2000:]
    assert [r["error"] for r in records] == [None, None] and all(r["score"] is not None for r in records)
    assert all(seen.body.get("tools") for seen in fake.posts()[1:])  # the answer asked for through the tool


@pytest.mark.parametrize("model", ["claude-2.1", "claude-instant-1.2"])
def test_structured_output_with_a_retired_model_that_takes_no_tools_is_refused_before_any_call(
    isolated_env: Path, cli: Callable[[list[str]], Outcome], monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    with AnthropicFake(served_model=model) as fake:
        outcome = cli(anthropic_run(fake, isolated_env / "out", model, "--structured-output"))
        assert fake.requests == []  # refused before the endpoint check: no request at all
    assert outcome.code == 2, outcome.output[-2000:]
    assert outcome.error_lines() == [
        f"debate-eval: error: --answer-format json (--structured-output) is not available with the scorer's model "
        f"'{model}': the anthropic provider's table of models gives it no answer format; choose another model or "
        "another answer format"
    ]
    assert outcome.records() == []


def test_dump_config_masks_a_key_and_validates_what_it_dumps(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    config = isolated_env / "run.toml"
    config.write_text(
        f'dataset = "summeval"\naspect = "coherence"\nprovider = "scripted"\napi_key = "{FAKE_KEY}"\n',
        encoding="utf-8",
    )
    outcome = cli(["run", "--config", str(config), "--dump-config", "--out", str(isolated_env / "out")])
    assert FAKE_KEY not in outcome.output  # was printed in clear
    assert outcome.code == 2, outcome.output  # as `run` with the same file: api_key is no option of a run
    assert "unknown method option 'api_key'" in outcome.stderr


def test_dump_config_masks_a_key_shaped_value(isolated_env: Path, cli: Callable[[list[str]], Outcome]) -> None:
    config = isolated_env / "run.toml"
    config.write_text(
        f'dataset = "summeval"\naspect = "coherence"\nprovider = "scripted"\ncriteria = "use {FAKE_KEY}"\n',
        encoding="utf-8",
    )
    outcome = cli(["run", "--config", str(config), "--dump-config", "--out", str(isolated_env / "out")])
    assert outcome.code == 0, outcome.output
    assert FAKE_KEY not in outcome.output and "criteria = " in outcome.stdout


def test_dump_config_masks_the_credentials_of_a_base_url(
    isolated_env: Path, cli: Callable[[list[str]], Outcome]
) -> None:
    """A --base-url's user, password and query key are the run's secrets (a run masks them): the dump too."""
    url = "http://bob:hunter2pass@127.0.0.1:9/v1?api-key=querysecret99"
    argv = ["run", "--dataset", "summeval", "--aspect", "coherence", "--model", "m", "--base-url", url]
    outcome = cli([*argv, "--dump-config", "--out", str(isolated_env / "out")])
    assert outcome.code == 0, outcome.output
    assert "hunter2pass" not in outcome.output and "querysecret99" not in outcome.output  # were printed in clear
    assert 'base_url = "http://bob:[redacted]@127.0.0.1:9/v1?api-key=[redacted]"' in outcome.stdout


def test_a_served_model_fingerprint_is_redacted_stripped_and_capped() -> None:
    from debate_eval.agents.models.served_model import MAX_FINGERPRINT_CHARS, from_openai_models

    root = f"/models/{FAKE_KEY}/\x1b]0;owned\x07weights" + "x" * 200_000
    served = from_openai_models({"data": [{"id": "m", "root": root}]}, "m")
    stored: Any = json.dumps(served.to_dict())
    assert FAKE_KEY not in stored and "\x1b" not in stored and "\x07" not in stored
    assert served.fingerprint is not None and len(served.fingerprint) <= MAX_FINGERPRINT_CHARS
    other = from_openai_models({"data": [{"id": "m", "root": root + "y"}]}, "m")
    assert other.fingerprint != served.fingerprint  # capped, two fingerprints still differ
