"""Odd 200 answers against the real command line: a key echoed inside an answer,
an answer that is a tool call with no text, and the finish reasons content_filter and length.

Every case checks the exit code, the one-line message, that no traceback is printed, the number of results
and that no secret appears in any output or file (the run directory, the response cache, the report).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import FAKE_KEY, ITEMS, Action, Outcome, assert_clean, role, run_args

# Other configured secrets: keys of other providers and of one role, in the environment of every case here.
OTHER_SECRETS = {
    "ANTHROPIC_API_KEY": "ant-FAULTSUITE-other-provider-key-0001",
    "GEMINI_API_KEY": "gem-FAULTSUITE-other-provider-key-0002",
    "DEBATE_EVAL_TIEBREAKER_API_KEY": "role-FAULTSUITE-tiebreaker-key-0003",
}
BEARER = "Bearer eyJhbGciOiJIUzI1NiJ9.FAULTSUITE-token"
SECRETS = [FAKE_KEY, *OTHER_SECRETS.values(), BEARER.split()[1]]


@pytest.fixture
def secrets_env(fault_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in OTHER_SECRETS.items():
        monkeypatch.setenv(name, value)
    return fault_env


def body(request: dict[str, Any], message: dict[str, Any], finish_reason: str, completion_tokens: int = 7) -> bytes:
    """A chat completion with this ``message`` and ``finish_reason``."""
    return json.dumps(
        {
            "id": "chatcmpl-fault",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [{"index": 0, "finish_reason": finish_reason, "message": {"role": "assistant", **message}}],
            "usage": {
                "prompt_tokens": 11,
                "completion_tokens": completion_tokens,
                "total_tokens": 11 + completion_tokens,
            },
        }
    ).encode()


def assert_no_secret(*texts: str, folders: tuple[Path, ...] = ()) -> None:
    """No secret in ``texts`` nor in any file under ``folders``."""
    for secret in SECRETS:
        for text in texts:
            assert secret not in text
        for folder in folders:
            for path in folder.rglob("*"):
                if path.is_file():
                    assert secret.encode() not in path.read_bytes(), (secret, path)


def summary(outcome: Outcome) -> dict[str, Any]:
    return json.loads((outcome.out / "summary.json").read_text(encoding="utf-8"))


def test_secrets_echoed_in_answers_are_written_and_printed_nowhere(
    secrets_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    """Item 3: the Scorer's 200 answer quotes every configured secret; results, show --full, the cache and the
    report hold none of them, and the record counts the redactions."""
    leak = " ".join([FAKE_KEY, *OTHER_SECRETS.values(), BEARER])
    server = server_factory(
        script=lambda number, request: (
            Action(reply=f"My credentials: {leak}.\nScore: 4") if role(request) == "scorer" else None
        )
    )
    run = cli(run_args(server, secrets_env / "run"))
    assert_clean(run, code=0, message=None, results=ITEMS, server=server)
    records = run.records()
    assert all(r["score"] == 4 and r["error"] is None for r in records)
    for record in records:
        scorer = [e for e in record["transcript"] if e["role"] == "scorer"]
        assert scorer and all("[redacted]" in e["content"] and e["redactions"] == 5 for e in scorer)
        assert record["redactions"] == 5 * len(scorer)
    shown = cli(["show", str(run.out), "--item", "1", "--full"])
    assert shown.code == 0 and "[redacted]" in shown.stdout
    report = cli(["report", str(run.out), "--out", str(secrets_env / "report.html")])
    assert report.code == 0 and (secrets_env / "report.html").is_file()
    again = cli(run_args(server, secrets_env / "run-cached"))  # every answer now comes from the cache
    assert_clean(again, code=0, message=None, results=ITEMS, server=server)
    assert all(r["llm_calls"] == 0 and r["redactions"] > 0 for r in again.records())
    assert_no_secret(run.output, shown.output, report.output, again.output, folders=(secrets_env,))


def tool_call(request: dict[str, Any]) -> Action:
    call = {"id": "call_1", "type": "function", "function": {"name": "score", "arguments": '{"value": 5}'}}
    return Action(body=body(request, {"content": None, "tool_calls": [call]}, "tool_calls", completion_tokens=9))


def test_a_tool_call_answer_fails_its_item_is_counted_and_retried(
    secrets_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    """Item 6: a Scorer answering with a tool call (content null) fails the item in one line; its calls and tokens
    are counted; nothing is cached; the rerun asks again and finishes."""
    broken = {"on": True}
    server = server_factory(
        script=lambda number, request: tool_call(request) if broken["on"] and role(request) == "scorer" else None
    )
    args = run_args(server, secrets_env / "run")
    first = cli(args)
    assert_clean(first, code=1, message=None, results=ITEMS, server=server)
    records = first.records()
    assert all(
        r["score"] is None and r["error"].startswith("ToolCallAnswerError: the model answered") for r in records
    ), [r["error"] for r in records]
    assert all(r["usage"]["scorer"]["calls"] == 1 and r["usage"]["scorer"]["completion_tokens"] == 9 for r in records)
    assert summary(first)["this_invocation"]["llm_calls"] == server.count - 1  # every call but the endpoint check
    assert f"failed items: ToolCallAnswerError x{ITEMS}" in first.stdout and "a rerun retries them" in first.stdout
    broken["on"] = False
    before = server.count
    second = cli(args)
    assert_clean(second, code=0, message=None, results=ITEMS, server=server)
    assert len([r for r in server.requests[before:] if role(r) == "scorer"]) >= ITEMS  # not cached: asked again
    assert all(r["score"] == 3 and r["error"] is None for r in second.records())
    assert_no_secret(first.output, second.output, folders=(secrets_env,))


def test_a_content_filtered_answer_is_no_score_and_is_retried(
    secrets_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    """Item 9: finish_reason content_filter with the partial text "Score: 5" sets no score: the item fails, the
    answer is not cached, the rerun asks again; every transcript entry records its finish reason."""
    filtered = {"on": True}

    def script(number: int, request: dict[str, Any]) -> Action | None:
        if filtered["on"] and role(request) == "scorer":
            return Action(body=body(request, {"content": "Score: 5"}, "content_filter"))
        return None

    server = server_factory(script=script)
    args = run_args(server, secrets_env / "run")
    first = cli(args)
    assert_clean(first, code=1, message=None, results=ITEMS, server=server)
    assert all(r["score"] is None and r["error"].startswith("ContentFilterError: ") for r in first.records())
    assert summary(first)["this_invocation"]["llm_calls"] == server.count - 1
    filtered["on"] = False
    second = cli(args)
    assert_clean(second, code=0, message=None, results=ITEMS, server=server)
    for record in second.records():
        assert record["score"] == 3
        assert all(e["finish_reason"] == "stop" for e in record["transcript"] if e.get("usage"))
    assert_no_secret(first.output, second.output, folders=(secrets_env,))


@pytest.mark.parametrize(("reply", "score"), [("The summary is clear but", None), ("Score: 4\nThe summary is", 4)])
def test_an_answer_cut_at_the_token_limit_is_flagged_when_it_has_no_score(
    secrets_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, reply: str, score: int | None
) -> None:
    """Item 9: finish_reason length; without a score line the item is flagged (no score, the reason says the
    answer was cut and what to do), with one the score stands; the transcript records the finish reason."""

    def script(number: int, request: dict[str, Any]) -> Action | None:
        if role(request) == "scorer":
            return Action(body=body(request, {"content": reply}, "length"))
        return None

    server = server_factory(script=script)
    outcome = cli(run_args(server, secrets_env / "run", "--max-tokens", "8"))
    assert_clean(outcome, code=0, message=None, results=ITEMS, server=server)
    for record in outcome.records():
        assert record["score"] == score
        scorer = [e for e in record["transcript"] if e["role"] == "scorer"]
        assert scorer and all(e["finish_reason"] == "length" for e in scorer)
        if score is None:
            assert record["parse_status"] == "no_score" and record["truncated"] is True
            assert "cut off at the token limit (finish_reason=length)" in record["parse_reason"]
            assert "--max-tokens" in record["parse_reason"]
        else:
            assert "truncated" not in record
    assert_no_secret(outcome.output, folders=(secrets_env,))
