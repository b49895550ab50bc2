"""Endpoint faults against the real command line: 5xx bursts, 429s, hangs, bodies that are no completion,
context-length errors, empty answers and a rejected key.

Every case checks the exit code, the one-line message, that no traceback is printed, the number of results
(no loss, no duplicate) and that the fake API key appears nowhere.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultkit import ITEMS, Action, Outcome, assert_clean, role, run_args

PREFLIGHT = 0  # the first request of a run is the endpoint check


def burst(first: int, length: int, action: Action) -> Callable[[int, dict[str, Any]], Action | None]:
    return lambda number, request: action if first <= number < first + length else None


@pytest.mark.parametrize(
    ("name", "script"),
    [
        ("500 burst at start", burst(PREFLIGHT, 3, Action(status=500))),
        ("500 burst mid-run", burst(8, 3, Action(status=500))),
        ("503 and 429 with Retry-After", burst(5, 3, Action(status=429, retry_after="0.05"))),
        ("429 without Retry-After", burst(PREFLIGHT, 3, Action(status=429))),
        ("hang past --timeout", burst(6, 2, Action(hang_s=10.0))),
        ("reset connections", burst(4, 3, Action(reset=True))),
        ("empty bodies", burst(PREFLIGHT, 3, Action(body=b""))),
        ("garbled bodies mid-run", burst(7, 3, Action(body=b"\xff\xfe\x00\x81garbled"))),
        ("an HTML page", burst(3, 2, Action(body=b"<html><body>Bad gateway</body></html>", content_type="text/html"))),
    ],
)
def test_transient_faults_are_absorbed(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, name: str, script: Any
) -> None:
    server = server_factory(script=script)
    outcome = cli(run_args(server, fault_env / "run", "--timeout", "2"))
    assert_clean(outcome, code=0, message=None, results=ITEMS, server=server)
    assert all(r["error"] is None and r["score"] == 3 for r in outcome.records())
    summary = json.loads((outcome.out / "summary.json").read_text())
    assert summary["this_invocation"]["retries"] >= 2, name


def test_a_lasting_fault_at_start_fails_in_one_line_and_leaves_nothing_behind(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    server = server_factory(script=lambda number, request: Action(status=500))
    outcome = cli(run_args(server, fault_env / "run"))
    assert_clean(
        outcome, code=2, message="answered HTTP 500 to a test request (after 3 retries", results=0, server=server
    )
    assert server.count == 4
    assert sorted(p.name for p in outcome.out.iterdir()) == ["config.json", "summary.json"]  # no lock, no .tmp


def test_a_rejected_key_fails_fast_without_printing_it(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    from faultkit import FAKE_KEY

    error = {"message": f"Incorrect API key provided: {FAKE_KEY}", "code": "invalid_api_key"}  # as OpenAI does
    server = server_factory(script=lambda number, request: Action(status=401, error=error))
    outcome = cli(run_args(server, fault_env / "run"))
    assert_clean(outcome, code=2, message="rejected the API key in $OPENAI_API_KEY", results=0, server=server)
    assert server.count == 1  # not retried


def test_a_lasting_garbled_body_fails_its_items_in_one_line_then_a_rerun_finishes(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    broken = {"on": True}
    server = server_factory(
        script=lambda number, request: Action(body=b"\x00\xffnot json") if broken["on"] and number > 0 else None
    )
    args = run_args(server, fault_env / "run")
    first = cli(args)
    assert_clean(first, code=1, message=None, results=ITEMS, server=server)
    errors = {r["error"] for r in first.records()}
    assert len(errors) == 1 and "\n" not in next(iter(errors))
    assert next(iter(errors)).startswith("BadResponseError: the endpoint http://127.0.0.1:")
    assert "answered HTTP 200 with a body that is not JSON" in next(iter(errors))
    assert f"failed items: BadResponseError x{ITEMS}" in first.stdout and "a rerun retries them" in first.stdout
    broken["on"] = False
    second = cli(args)
    assert_clean(second, code=0, message=None, results=ITEMS, server=server)
    assert all(r["error"] is None for r in second.records())


def test_context_length_errors_say_what_to_do(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    error = {
        "message": "This model's maximum context length is 128 tokens. However, your messages resulted in 900 "
        "tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
    }
    server = server_factory(
        script=lambda number, request: Action(status=400, error=error) if role(request) == "critic" else None
    )
    outcome = cli(run_args(server, fault_env / "run"))
    assert_clean(outcome, code=1, message=None, results=ITEMS, server=server)
    assert all(r["error"].startswith("ContextLengthError: the request is longer") for r in outcome.records())
    assert "a rerun retries them" not in outcome.stdout
    assert "a rerun with the same settings fails again: use a model with a longer context window" in outcome.stdout


def test_an_empty_answer_is_not_cached_and_a_rerun_asks_again(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    empty = {"on": True}
    server = server_factory(
        script=lambda number, request: Action(reply="") if empty["on"] and role(request) == "critic" else None
    )
    args = run_args(server, fault_env / "run")  # the response cache is on
    first = cli(args)
    assert_clean(first, code=1, message=None, results=ITEMS, server=server)
    assert all("EmptyAnswerError: the model at" in r["error"] for r in first.records())
    empty["on"] = False
    before = server.count
    second = cli(args)
    assert_clean(second, code=0, message=None, results=ITEMS, server=server)
    critic_calls = [r for r in server.requests[before:] if role(r) == "critic"]
    assert len(critic_calls) == ITEMS  # asked again: the empty answers were not cached
    assert all(r["score"] == 3 for r in second.records())
