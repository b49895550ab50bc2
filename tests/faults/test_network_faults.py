"""Network faults against the real command line:
an address nothing listens on, proxies from the environment, a body trickled a byte at a time, an answer
too large, a redirect on the chat route, the open-file limit, and retries shown as they happen.

Every case checks the exit code, the one-line message, that no traceback is printed, the number of results
(no loss, no duplicate) and that the fake API key appears nowhere.
"""

from __future__ import annotations

import errno
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from faultkit import (
    FAKE_KEY,
    ITEMS,
    Action,
    FaultServer,
    Outcome,
    assert_clean,
    assert_no_key,
    completion,
    role,
    run_args,
)

from debate_eval.agents.models.providers.scripted_server import default_reply

PREFLIGHT = 0  # the first request of a run is the endpoint check


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that nothing listens on: bound (so no other process can take it meanwhile) and
    never listening, so a connection to it is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        yield probe.getsockname()[1]


def test_a_closed_port_fails_at_the_endpoint_check_at_once_in_one_line(
    fault_env: Path, cli: Callable[[list[str]], Outcome], closed_port: int
) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    out = fault_env / "run"
    args = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "2", "--base-url", url,
            "--model", "fake", "--out", str(out), "--no-progress", "--max-retries", "6"]  # fmt: skip
    outcome = cli(args)
    assert outcome.code == 2, outcome.output
    assert "Traceback" not in outcome.output
    assert outcome.error_lines() == [
        f"debate-eval: error: cannot reach the model endpoint {url}: connection refused (used by the scorer); "
        "check --base-url"
    ]  # no retry line either: a refused connection at the check is not retried
    assert not (out / "results.jsonl").exists()
    assert_no_key(outcome.output, out)


def test_a_redirect_on_the_chat_route_is_named_not_reported_as_a_missing_model(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    server = server_factory(script=lambda number, request: Action(redirect="/v2/chat/completions"))
    outcome = cli(run_args(server, fault_env / "run"))
    location = server.base_url.rsplit("/v1", 1)[0] + "/v2/chat/completions"
    message = f"answered HTTP 302, a redirect to {location}; requests are not redirected"
    assert_clean(outcome, code=2, message=message, results=0, server=server)
    assert "has no model" not in outcome.output
    assert server.count == 1  # not retried, not followed


def test_a_trickled_body_does_not_outlive_the_timeout(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    # the first Scorer call after the check answers 10 bytes a second: each byte well within the per-read
    # timeout, the whole body (about 300 bytes) in about 30 s; --timeout 5 is the deadline of the whole request
    # (and long enough for every other call, not retried here, however loaded the machine)
    trickle = Action(trickle_s=0.1)
    server = server_factory(script=lambda number, request: trickle if number == PREFLIGHT + 1 else None)
    outcome = cli(run_args(server, fault_env / "run", "--timeout", "5", "--max-retries", "0", "--concurrency", "1"))
    assert_clean(outcome, code=1, message=None, results=ITEMS, server=server)
    failed = [r for r in outcome.records() if r["error"]]
    assert len(failed) == 1
    assert failed[0]["error"].startswith("APITimeoutError: Request timed out. (TimeoutException: no complete answer")
    assert "within 5 s (--timeout)" in failed[0]["error"]
    trickled = server.requests[PREFLIGHT + 1]
    full = len(json.dumps(completion(trickled, default_reply(trickled))))
    assert server.trickled < full / 2  # the client hung up after about 5 s, long before the body was complete


def test_an_answer_over_the_cap_fails_its_item_in_one_line_and_the_others_finish(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    huge = Action(reply="Score: 3 " + "x" * 2_000_000)  # a 2 MB completion

    def script(number: int, request: dict[str, Any]) -> Action | None:
        return huge if number == PREFLIGHT + 1 else None

    server = server_factory(script=script)
    out = fault_env / "run"
    outcome = cli(run_args(server, out, "--concurrency", "1"))
    assert_clean(outcome, code=1, message=None, results=ITEMS, server=server)
    failed = [r for r in outcome.records() if r["error"]]
    assert len(failed) == 1
    assert failed[0]["error"].startswith("AnswerTooLargeError: the answer from http://127.0.0.1:")
    assert "over the cap of 1,000,000 bytes per answer" in failed[0]["error"]
    assert "failed items: AnswerTooLargeError x1" in outcome.stdout
    assert (out / "results.jsonl").stat().st_size < 200_000  # the answer was not stored
    cache = fault_env / "cache"
    assert not any(b"x" * 100_000 in p.read_bytes() for p in cache.rglob("*") if p.is_file())  # nor cached
    smaller = cli(run_args(server, fault_env / "run2", "--max-answer-bytes", "200"))
    assert_clean(smaller, code=2, message="over the cap of 200 bytes per answer", results=0, server=server)


def test_requests_go_through_the_environments_proxy_and_no_proxy_exempts_a_host(
    fault_env: Path,
    cli: Callable[[list[str]], Outcome],
    server_factory: Any,
    recording_proxy: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", recording_proxy.url)
    server = server_factory()
    outcome = cli(run_args(server, fault_env / "run"))
    assert_clean(outcome, code=0, message=None, results=ITEMS, server=server)
    passed = recording_proxy.urls()
    # every request, the endpoint check's included: its test POST and its GET /models (a 404 here: no fingerprint)
    assert len(passed) == server.count + 1 and server.count > ITEMS
    assert set(passed) == {server.base_url + "/chat/completions", server.base_url + "/models"}

    monkeypatch.setenv("NO_PROXY", "localhost")  # the same server by another name: not through the proxy
    local = FaultServer()
    local.__enter__()
    try:
        local.base_url = local.base_url.replace("127.0.0.1", "localhost")
        direct = cli(run_args(local, fault_env / "run2", "--no-cache"))  # (the cache would answer: same model)
        assert_clean(direct, code=0, message=None, results=ITEMS, server=local)
    finally:
        local.stop()
    assert recording_proxy.urls() == passed  # nothing more passed the proxy
    assert local.count > ITEMS


def test_retries_are_shown_as_they_happen_one_line_each(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any
) -> None:
    server = server_factory(script=lambda number, request: Action(status=503) if number in (3, 4) else None)
    outcome = cli(run_args(server, fault_env / "run", "--concurrency", "1"))
    assert_clean(outcome, code=0, message=None, results=ITEMS, server=server)
    lines = [line for line in outcome.error_lines() if line.startswith("debate-eval: retry")]
    pattern = r"debate-eval: retry (1|2) of 3 in \d+\.\d s after HTTP 503: injected HTTP 503 " + re.escape(
        f"({server.base_url}, model scripted)"
    )
    assert len(lines) == 2 and all(re.fullmatch(pattern, line) for line in lines), lines
    assert [line.split()[2] for line in lines] == ["1", "2"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sets RLIMIT_NOFILE of a child process")
def test_the_open_file_limit_lowers_the_concurrency_and_nothing_is_lost(fault_env: Path, server_factory: Any) -> None:
    import resource

    items = 160
    server = server_factory(max_requests=items * 3 + 10)
    out = fault_env / "run"
    args = run_args(server, out, "--concurrency", "256", "--max-retries", "1", "--no-cache", limit=items)

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    done = subprocess.run(
        [sys.executable, "-m", "debate_eval.tasks.cli.main", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        preexec_fn=low_limit,  # a plain setrlimit in the child
        timeout=600,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-2000:]
    assert "Traceback" not in output
    notes = [line for line in done.stderr.splitlines() if "open-file limit" in line]
    assert len(notes) == 1 and notes[0].startswith("debate-eval: note: the open-file limit (ulimit -n 128, ")
    lowered = re.search(r"--concurrency lowered from 256 to (\d+);", notes[0])
    assert lowered and 1 <= int(lowered.group(1)) <= 128 - 48
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(records) == len({r["item_id"] for r in records}) == items
    assert all(r["error"] is None for r in records)
    assert FAKE_KEY not in output
    assert_no_key(output, out)


def test_running_out_of_file_descriptors_names_the_cause_and_the_right_count(
    fault_env: Path, cli: Callable[[list[str]], Outcome], server_factory: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from debate_eval.tasks.engine import results

    real_write = results._write_all
    written = {"lines": 0}

    def write_all(fd: int, data: bytes) -> None:
        if written["lines"] >= 2:
            raise OSError(errno.EMFILE, "Too many open files")
        real_write(fd, data)
        written["lines"] += 1

    monkeypatch.setattr(results, "_write_all", write_all)
    failing = {"on": True}  # the first item's Critic fails: one failed record among those written
    server = server_factory(
        script=lambda number, request: Action(status=400) if failing["on"] and role(request) == "critic" else None
    )
    out = fault_env / "run"
    outcome = cli(run_args(server, out, "--concurrency", "1", limit=6))
    message = (
        f"{out / 'results.jsonl'}: cannot write a result (Too many open files); the run stopped; the 2 results "
        "already written (0 finished, 2 failed) are kept: the process reached its open-file limit"
    )
    assert_clean(outcome, code=2, message=message, results=2, server=server)
    assert "free space" not in outcome.output and "not a disk problem" in outcome.output
