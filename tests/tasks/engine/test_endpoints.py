"""Resume and cache are not tied to the URL spelling.

``data/url_era_run/`` was written by the code of commit 9d37737 + b39a689 (before URL-free hashing):
``debate-eval run`` on SummEval coherence, 2 items, one Critic round, ``--base-url http://localhost:33233/v1
--model scripted`` against the scripted server. Its config hash (bfdcbb6fe6b2bad2) counted that URL. Nothing
listens on the ports used below when resuming: a resume that made any model call would fail its items.
The golden cache namespaces below were printed by the same code (``ClientPool.namespace_for``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.client_layers import NamespacedStore
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer
from debate_eval.agents.models.settings import resolve_model_config
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.engine.build import build_run_config as build
from debate_eval.tasks.engine.compat.hashes import url_era_namespace
from debate_eval.tasks.engine.endpoints import same_server
from debate_eval.tasks.engine.request import RunRequest
from debate_eval.tasks.engine.results import read_jsonl

URL_ERA_RUN = Path(__file__).parent / "data" / "url_era_run"
URL_ERA_HASH = "bfdcbb6fe6b2bad2"
WHAT = ["--dataset", "summeval", "--aspect", "coherence", "--max-rounds", "1", "--model", "scripted"]
# a run in this process, and the parent of --workers (which opens the run directory the same way)
BACKENDS = [pytest.param([], id="in_process"), pytest.param(["--workers", "2"], id="workers")]


@pytest.mark.parametrize(
    ("was", "now", "same"),
    [
        ("http://localhost:8000/v1", "http://127.0.0.1:8000/v1", True),
        ("http://localhost:8000/v1", "http://127.0.0.1:8001/v1/", True),  # another port of this machine
        ("http://[::1]:8000/v1", "http://127.0.0.2:9000/v1", True),
        ("http://gpu-box:8000/v1", "https://GPU-BOX:8443/v1", True),
        ("http://gpu-box:8000/v1", "http://other-box:8000/v1", False),
        ("http://localhost:8000/v1", "https://api.openai.com/v1", False),
        ("http://localhost:8000/v1", "http://localhost:8000/openai/v1", False),
    ],
)
def test_same_server(was: str, now: str, same: bool) -> None:
    assert same_server(was, now) is same


def test_the_url_is_no_part_of_the_hash(isolated_env: Path) -> None:
    def config(url: str) -> Any:
        return build(RunRequest(dataset="summeval", aspect="coherence", base_url=url, model="m"))

    assert config("http://localhost:8000/v1").config_hash() == config("http://127.0.0.1:9/v1").config_hash()
    assert config("http://localhost:8000/v1").config_hash() == config("https://elsewhere.example/v1").config_hash()
    other_model = build(RunRequest(dataset="summeval", aspect="coherence", base_url="http://x/v1", model="m2"))
    assert other_model.config_hash() != config("http://x/v1").config_hash()


def _resume(out: Path, url: str, *extra: str) -> int:
    return main(["run", *WHAT, "--base-url", url, "--limit", "2", "--out", str(out), "--no-progress", *extra])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_url_era_directory_resumes_at_another_spelling_with_no_call(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], backend: list[str]
) -> None:
    out = isolated_env / "run"
    shutil.copytree(URL_ERA_RUN, out)
    before = read_jsonl(out / "results.jsonl")
    assert {r["config_hash"] for r in before} == {URL_ERA_HASH}

    assert _resume(out, "http://127.0.0.1:9/v1", "--no-preflight", *backend) == 0
    err = capsys.readouterr().err
    assert f"written by an earlier version (config hash {URL_ERA_HASH})" in err
    assert "the endpoint URL no longer counts" in err
    assert "the scorer's endpoint is now http://127.0.0.1:9/v1 (was http://localhost:33233/v1): the same server" in err
    after = read_jsonl(out / "results.jsonl")
    assert len(after) == 2 and {r["config_hash"] for r in after} != {URL_ERA_HASH}
    strip = [{k: v for k, v in r.items() if k != "config_hash"} for r in after]
    assert strip == [{k: v for k, v in r.items() if k != "config_hash"} for r in before]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["this_invocation"]["llm_calls"] == 0 and summary["finished"] == 2
    document = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert document["migrated_from"] == {"config_hash": URL_ERA_HASH}
    assert document["models"]["roles"]["scorer"]["base_url"] == "http://127.0.0.1:9/v1"  # where it runs now
    assert [c["how"] for c in document["endpoint_changes"]] == ["the same server", "the same server"]

    assert _resume(out, "http://localhost:10/v1", "--no-preflight", *backend) == 0  # and back, on yet another port
    assert "earlier version" not in capsys.readouterr().err


@pytest.mark.parametrize("backend", BACKENDS)
def test_another_server_needs_allow_endpoint_change(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], backend: list[str]
) -> None:
    out = isolated_env / "run"
    shutil.copytree(URL_ERA_RUN, out)
    assert _resume(out, "http://other-host.invalid:8000/v1", "--no-preflight", *backend) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "Traceback" not in "".join(err)  # the migration's note, then the one-line refusal
    assert "the critic's endpoint was http://localhost:33233/v1 and is now http://other-host.invalid:8000/v1" in err[1]
    assert "--allow-endpoint-change" in err[1]
    assert len(read_jsonl(out / "results.jsonl")) == 2  # nothing lost

    assert _resume(out, "http://other-host.invalid:8000/v1", "--no-preflight", "--allow-endpoint-change", *backend) == 0
    assert "accepted by --allow-endpoint-change" in capsys.readouterr().err
    document = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert {c["how"] for c in document["endpoint_changes"]} == {"accepted by --allow-endpoint-change"}
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["this_invocation"]["llm_calls"] == 0 and summary["finished"] == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_current_directory_moved_to_another_server_is_refused(
    isolated_env: Path, capsys: pytest.CaptureFixture[str], backend: list[str]
) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        assert (
            main(["run", *WHAT, "--base-url", server.base_url, "--limit", "1", "--out", str(out), "--no-progress"]) == 0
        )
    capsys.readouterr()
    moved = "http://other-host.invalid:8000/v1"
    assert _resume(out, moved, "--no-preflight", "--limit", "1", *backend) == 2  # nothing pending, still refused
    err = capsys.readouterr().err
    assert f"the critic's endpoint was {server.base_url} and is now {moved}" in err and "--allow-endpoint-change" in err
    assert _resume(out, moved, "--no-preflight", "--limit", "1", "--allow-endpoint-change", *backend) == 0
    document = json.loads((out / "config.json").read_text(encoding="utf-8"))
    assert document["models"]["roles"]["scorer"]["base_url"] == moved
    assert {c["how"] for c in document["endpoint_changes"]} == {"accepted by --allow-endpoint-change"}


def test_a_new_run_at_localhost_extends_at_127_0_0_1(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = isolated_env / "run"
    with ScriptedOpenAIServer() as server:
        port = server.base_url.rsplit(":", 1)[1]
        localhost = f"http://localhost:{port}"
        assert main(["run", *WHAT, "--base-url", localhost, "--limit", "1", "--out", str(out), "--no-progress"]) == 0
        assert _resume(out, server.base_url, "--limit", "2") == 0  # one more item, at 127.0.0.1
    assert "the same server" in capsys.readouterr().err
    assert len(read_jsonl(out / "results.jsonl")) == 2


def test_cache_namespaces_leave_the_url_out_and_read_the_earlier_ones() -> None:
    """The URL-era namespaces (golden, from the code before) are what ``url_era_namespace`` gives, and a
    store reads them when the current namespace has no answer."""
    golden = {
        "http://localhost:8000/v1": ("eddd68ae45ac52d4998a2012dad933db", "fcb6a009dcdebdbb2ef635705a07cb4f"),
        "https://u:pw@host/v1": ("f2b1df67ef1ad2d16d9883f5ef26586a", "97fb1909c8c1aa1488d2b34ad6bba375"),
    }
    current = set()
    for url, (plain, sample) in golden.items():
        config = resolve_model_config(environ={"OPENAI_BASE_URL": url, "DEBATE_EVAL_MODEL": "m"})
        pool, settings = ClientPool(config), config.for_role("scorer")
        assert (url_era_namespace(pool, settings), url_era_namespace(pool, settings, "sample1")) == (plain, sample)
        current.add(pool.namespace_for(settings))
    assert len(current) == 1  # one model, one namespace, whatever the URL

    class Dict(dict[str, Any]):
        def set(self, key: str, value: Any) -> None:
            self[key] = value

    inner = Dict({"old:k": "old answer"})
    store = NamespacedStore(inner, "new", ("old",))
    assert store.get("k") == "old answer" and store.get("missing", "d") == "d"
    store.set("k", "new answer")
    assert inner["new:k"] == "new answer" and inner["old:k"] == "old answer" and store.get("k") == "new answer"
