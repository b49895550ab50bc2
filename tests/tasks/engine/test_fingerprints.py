"""The served-model fingerprint recorded in ``config.json`` and checked on resume, through the
command line against the scripted server on 127.0.0.1 answering ``GET /v1/models`` as vLLM does (``root``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.config_checksum import edited_fields
from debate_eval.tasks.engine.results import read_jsonl

URL_ERA_RUN = Path(__file__).parent / "data" / "url_era_run"  # written before served models were recorded
WHAT = ["--dataset", "summeval", "--aspect", "coherence", "--max-rounds", "1", "--model", "scripted"]
ROLES = ("critic", "scorer")
# a run in this process, and --workers (each worker checks the weights against the run directory's record)
BACKENDS = [pytest.param([], id="in_process"), pytest.param(["--workers", "2"], id="workers")]


def _run(out: Path, server: ScriptedOpenAIServer, limit: int, *extra: str) -> int:
    argv = ["run", *WHAT, "--base-url", server.base_url, "--limit", str(limit), "--out", str(out), "--no-progress"]
    return main([*argv, *extra])


def _weights(root: str) -> list[dict[str, Any]]:
    return [{"id": "scripted", "object": "model", "root": root}]


def _config(out: Path) -> dict[str, Any]:
    document = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert edited_fields(document) == []  # sealed by every writer
    return document


def _served(out: Path) -> dict[str, Any]:
    roles = _config(out)["models"]["roles"]
    return {role: roles[role].get("served_model") for role in ROLES}


def test_recorded_then_resumed_with_the_same_weights(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer(model_entries=_weights("/w/A")) as server:
        assert _run(out, server, 1) == 0
        assert _served(out) == {role: {"fingerprint": "/w/A", "source": "vllm root"} for role in ROLES}
        first = (out / "results.jsonl").read_bytes()
        calls = server.count
        assert _run(out, server, 2) == 0  # one more item, the same weights
        assert server.count - calls == 1 + 3  # the test request, then the new item's 3 calls; none for item 1
    assert "served" not in capsys.readouterr().err
    assert (out / "results.jsonl").read_bytes().startswith(first)
    assert len(read_jsonl(out / "results.jsonl")) == 2
    assert _served(out)["scorer"] == {"fingerprint": "/w/A", "source": "vllm root"}
    assert "endpoint_changes" not in _config(out)


def test_other_weights_are_refused_then_accepted_with_the_flag(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer(model_entries=_weights("/w/A")) as server:
        assert _run(out, server, 1) == 0
        capsys.readouterr()
        results = (out / "results.jsonl").read_bytes()
        server.model_entries = _weights("/w/B")  # the same name, other weights, the same URL
        calls = server.count
        assert _run(out, server, 2) == 2
        assert server.count - calls == 1  # the endpoint check's test request only
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "Traceback" not in err[0]
        assert err[0] == (
            f"debate-eval: error: {out / 'config.json'}: the critic's endpoint served /w/A (vllm root) and now "
            "serves /w/B (vllm root): the results there came from other weights; pass --allow-endpoint-change to "
            "resume with the new weights (noted in config.json), or use a new --out"
        )
        assert (out / "results.jsonl").read_bytes() == results
        assert _served(out)["critic"]["fingerprint"] == "/w/A"

        assert _run(out, server, 2, "--allow-endpoint-change") == 0
    err = capsys.readouterr().err
    assert "the scorer's endpoint now serves /w/B (vllm root) (was /w/A (vllm root)): accepted by" in err
    assert (out / "results.jsonl").read_bytes().startswith(results) and len(read_jsonl(out / "results.jsonl")) == 2
    document = _config(out)
    assert _served(out)["scorer"] == {"fingerprint": "/w/B", "source": "vllm root"}
    changes = document["endpoint_changes"]
    assert [(c["role"], c["what"], c["from"]["fingerprint"], c["to"]["fingerprint"]) for c in changes] == [
        ("critic", "served model", "/w/A", "/w/B"),
        ("scorer", "served model", "/w/A", "/w/B"),
    ]
    assert {c["how"] for c in changes} == {"accepted by --allow-endpoint-change"}


@pytest.mark.parametrize("backend", BACKENDS)
def test_other_weights_are_recorded_and_refused_on_every_backend(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], backend: list[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer(model_entries=_weights("/w/A")) as server:
        assert _run(out, server, 2, *backend) == 0
        assert _served(out) == {role: {"fingerprint": "/w/A", "source": "vllm root"} for role in ROLES}
        results = (out / "results.jsonl").read_bytes()
        server.model_entries = _weights("/w/B")  # the same name, other weights, the same URL
        capsys.readouterr()
        assert _run(out, server, 6, *backend) == 2
        err = capsys.readouterr().err
        assert "endpoint served /w/A (vllm root) and now serves /w/B (vllm root)" in err and "Traceback" not in err
        assert (out / "results.jsonl").read_bytes() == results  # no item judged by the other weights
        assert _run(out, server, 6, "--allow-endpoint-change", *backend) == 0
    assert {role: served["fingerprint"] for role, served in _served(out).items()} == dict.fromkeys(ROLES, "/w/B")
    assert len(read_jsonl(out / "results.jsonl")) == 6


def test_a_move_to_another_port_keeps_the_recorded_weights(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer(model_entries=_weights("/w/A")) as server:
        assert _run(out, server, 1) == 0
    with ScriptedOpenAIServer(model_entries=_weights("/w/B")) as moved:  # the URL check passes (same host)
        assert _run(out, moved, 2) == 2
    err = capsys.readouterr().err
    assert "the same server" in err and "served /w/A (vllm root) and now serves /w/B" in err
    assert len(read_jsonl(out / "results.jsonl")) == 1


def test_a_server_without_models_runs_and_resumes_as_before(
    isolated_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer(serve_models=False) as server:
        assert _run(out, server, 1) == 0
        unknown = {"fingerprint": None, "reason": "GET /models answered HTTP 404"}
        assert _served(out) == {role: unknown for role in ROLES}
        assert _run(out, server, 2) == 0
        assert len(read_jsonl(out / "results.jsonl")) == 2
        server.serve_models = True
        server.model_entries = _weights("/w/A")  # now it says: recorded from here on, no refusal
        assert _run(out, server, 3) == 0
        assert _served(out)["scorer"] == {"fingerprint": "/w/A", "source": "vllm root"}
        server.serve_models = False  # and says nothing again: a note, the known one kept
        assert _run(out, server, 4) == 0
    err = capsys.readouterr().err
    assert (
        "the scorer's served model was /w/A (vllm root) and cannot be checked now (GET /models answered HTTP 404)"
        in err
    )
    assert "Traceback" not in err and len(read_jsonl(out / "results.jsonl")) == 4
    assert _served(out)["scorer"] == {"fingerprint": "/w/A", "source": "vllm root"}


def test_a_directory_without_served_models_resumes(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "run"
    shutil.copytree(URL_ERA_RUN, out)
    before = read_jsonl(out / "results.jsonl")
    with ScriptedOpenAIServer(model_entries=_weights("/w/A")) as server:
        assert _run(out, server, 3) == 0
    assert "Traceback" not in capsys.readouterr().err
    after = read_jsonl(out / "results.jsonl")
    assert len(after) == 3 and [r["item_id"] for r in after[:2]] == [r["item_id"] for r in before]
    assert _served(out)["critic"] == {"fingerprint": "/w/A", "source": "vllm root"}
